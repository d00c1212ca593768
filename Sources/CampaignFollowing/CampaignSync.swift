import JSONRPC
import LaunchAdAPI
import LaunchAdDomain

/// How an edge reads campaignd's state through the sync socket: the change log from a `seq`, and the snapshot a page
/// at a time. The calls themselves are the caller's (the sync engine's client, or a test's), so the rules here are
/// the same wherever they are used.
enum CampaignSync {
    /// `state` with the change log applied from its `seq` up to campaignd's, a page at a time (`changes` makes one
    /// call); `nil` when the log no longer reaches back that far in `state`'s epoch (another database, or this one
    /// restored behind it). With the state, the changes applied to make it, in order.
    static func catchUp(_ state: EdgeState, changes: (ChangesParams) async throws -> ChangesResult) async throws
        -> (state: EdgeState, changes: [Change])? {
        var current = state
        var applied: [Change] = []
        while true {
            let page: ChangesResult
            do {
                page = try await changes(ChangesParams(epoch: current.epoch, since: current.seq, limit: SyncAPI.defaultChangesPage))
            } catch let error as JSONRPCError where error.code == APIError.changesUnavailable.code {
                return nil
            }
            // What `applying` takes: the changes that follow on from `current`, in order.
            var next = current.seq + 1
            let fresh = page.changes.filter { change in
                guard change.seq == next else { return false }
                next += 1
                return true
            }
            current = current.applying(fresh)
            applied += fresh
            if page.changes.isEmpty || current.seq >= page.seq { return (current, applied) }
        }
    }

    /// campaignd's state taken a page at a time (`page` makes one `sync.snapshot` call), so that no reply grows with
    /// the number of campaigns; with the pages it took, or `nil` when `tries` attempts all failed to join.
    ///
    /// Each page is read at its own `seq`, so a campaign that changed while the pages came may be on an early page as
    /// it was before. The pages are joined as the state at the first page's `seq`, and the change log from there
    /// (`catchUp`) makes every campaign current: one that changed since has its changes applied in order, and one
    /// that did not is the same whichever page it came on. A new epoch between pages, a page that does not move on,
    /// or a log that no longer reaches back (a database restored meanwhile) starts the pages over.
    static func pagedSnapshot(pageSize: Int, tries: Int, creatives: [String: CreativeFacts],
                              page: (SnapshotParams) async throws -> Snapshot,
                              catchUp: (EdgeState) async throws -> EdgeState?) async throws -> (state: EdgeState, pages: Int)? {
        for _ in 0..<tries {
            var first: Snapshot?
            var campaigns: [Int64: Campaign] = [:]
            var lastSeq: Int64 = 0, pages = 0, after: Int64 = 0, complete = false
            while true {
                let next = try await page(SnapshotParams(after: after, limit: pageSize))
                pages += 1
                if let first, next.epoch != first.epoch || next.seq < first.seq { break }  // another database meanwhile
                if first == nil { first = next }
                lastSeq = next.seq
                for campaign in next.campaigns { campaigns[campaign.id] = campaign }
                guard let cursor = next.next else {
                    complete = true
                    break
                }
                guard cursor > after, !next.campaigns.isEmpty else { break }
                after = cursor
            }
            guard complete, let first else { continue }
            let joined = EdgeState(epoch: first.epoch, seq: first.seq, campaigns: campaigns, creatives: creatives)
            if lastSeq == first.seq { return (joined, pages) }
            guard let current = try await catchUp(joined) else { continue }
            return (current, pages)
        }
        return nil
    }
}
