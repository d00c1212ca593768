import CampaignFollowing
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
    private let sizes = CampaignMemo(PageBound.bytes(of:))

    init() {}

    /// Every campaign of `state`, in order of id.
    func snapshot(of state: EdgeState) -> Snapshot {
        Snapshot(epoch: state.epoch, seq: state.seq, campaigns: ids(of: state).map { state.campaigns[$0]! })
    }

    /// The campaigns of `state` after id `after`, at most `limit` of them and about ``SyncAPI/maxPageBytes`` (one
    /// campaign alone may be bigger), with `next` set when more follow.
    func page(of state: EdgeState, after: Int64, limit: Int) -> Snapshot {
        let ids = ids(of: state)
        let low = ids.partitionPoint { $0 <= after }
        var bound = PageBound(limit: limit), page: [Campaign] = []
        for id in ids[low...] {
            let campaign = state.campaigns[id]!
            guard bound.admits(sizes.value(of: campaign)) else { break }
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
        sizes.keep(only: state.campaigns)
        return ids
    }
}
