import DeliveryService
import LaunchAdAPI
import LaunchAdDomain
import Locking

/// A relay's snapshots and their pages, cut as campaignd cuts them, without sorting and measuring the campaigns again
/// for each page and each follower: the followed state's ids in order are made once for each state asked for, and each
/// campaign's size as a page's bound counts it (its JSON) is kept while the campaign stays the same. After a new epoch
/// every edge below takes a snapshot of the same state, in pages; the first one measures each campaign, the rest and
/// the pages after a change reuse what it measured.
final class SnapshotPager: Sendable {
    private struct Order {
        let state: EdgeState
        let ids: [Int64]
    }

    private let order = Locked<Order?>(nil)
    /// A campaign's size by id, with the campaign it was measured on: used only while the campaign equals it.
    private let sizes = Locked<[Int64: (campaign: Campaign, bytes: Int)]>([:])

    init() {}

    /// Every campaign of `state`, in order of id.
    func snapshot(of state: EdgeState) -> Snapshot {
        Snapshot(epoch: state.epoch, seq: state.seq, campaigns: ids(of: state).map { state.campaigns[$0]! })
    }

    /// The campaigns of `state` after id `after`, at most `limit` of them and about ``SyncAPI/maxPageBytes`` (one
    /// campaign alone may be bigger), with `next` set when more follow.
    func page(of state: EdgeState, after: Int64, limit: Int) -> Snapshot {
        let ids = ids(of: state)
        // The first id after `after`.
        var low = 0, high = ids.count
        while low < high {
            let middle = (low + high) / 2
            if ids[middle] <= after { low = middle + 1 } else { high = middle }
        }
        var bound = PageBound(limit: limit), page: [Campaign] = []
        for id in ids[low...] {
            let campaign = state.campaigns[id]!
            guard bound.admits(size(of: campaign)) else { break }
            page.append(campaign)
        }
        let more = low + page.count < ids.count
        return Snapshot(epoch: state.epoch, seq: state.seq, campaigns: page, next: more ? page.last?.id : nil)
    }

    /// The ids of `state`'s campaigns in order: those made for it already, or made now (and then the sizes of
    /// campaigns no longer held are dropped).
    private func ids(of state: EdgeState) -> [Int64] {
        if let held = order.withLock({ $0 }), held.state === state { return held.ids }
        let ids = state.campaigns.keys.sorted()
        order.withLock { $0 = Order(state: state, ids: ids) }
        sizes.withLock { sizes in
            if sizes.count > ids.count { sizes = sizes.filter { state.campaigns[$0.key] != nil } }
        }
        return ids
    }

    private func size(of campaign: Campaign) -> Int {
        if let held = sizes.withLock({ $0[campaign.id] }), held.campaign == campaign { return held.bytes }
        let bytes = PageBound.bytes(of: campaign)
        sizes.withLock { $0[campaign.id] = (campaign, bytes) }
        return bytes
    }
}
