import CampaignFollowing
import LaunchAdAPI
import LaunchAdDomain
import Locking
import ZMQRPC

/// What a relay passes on below, as the sync engine applies it: each change on its own update stream (with the
/// epoch and `seq` campaignd gave it) and into the change-log window, and each heartbeat from upstream with
/// campaignd's clock. Under one lock, so that a heartbeat never carries a `seq` the window does not hold yet, and the
/// window never holds a change not yet published.
///
/// `seq` passes through unchanged: an edge that moves between a relay and campaignd (or another relay) keeps its
/// state and catches up from the change log, because every tier numbers the same change the same way.
final class RelayPublisher: SyncFollower {
    let publisher: Publisher
    private let window: Locked<ChangeWindow>
    /// Hears the changes let go of the window because it was full, by count and by bytes (for the metrics).
    private let onTrim: @Sendable (_ byCount: Int, _ byBytes: Int) -> Void

    /// Holds nothing until told the state it starts from (``replaced(by:)``): then at most `capacity` changes, and
    /// `maxBytes` of them.
    init(publisher: Publisher, capacity: Int, maxBytes: Int = .max,
         onTrim: @escaping @Sendable (_ byCount: Int, _ byBytes: Int) -> Void = { _, _ in }) {
        self.publisher = publisher
        window = Locked(ChangeWindow(epoch: "", seq: 0, capacity: capacity, maxBytes: maxBytes))
        self.onTrim = onTrim
    }

    func applied(_ changes: [Change], making state: EdgeState) {
        let held = changes.map(ChangeWindow.Held.init)
        let trimmed = window.withLock { window in
            let trimmed = window.append(held, epoch: state.epoch)
            for change in changes {
                publisher.publish(UpdateStream.changed, CampaignChanged(epoch: state.epoch, change: change))
            }
            return trimmed
        }
        if trimmed != ChangeWindow.Trimmed() { onTrim(trimmed.byCount, trimmed.byBytes) }
    }

    func replaced(by state: EdgeState) {
        // The edges below notice the new epoch or seq from the next heartbeat, and ask for changes or a snapshot.
        window.withLock { $0.reset(epoch: state.epoch, seq: state.seq) }
    }

    func heard(_ heartbeat: Heartbeat, state: EdgeState) {
        window.withLock { window in
            // The relay's own epoch and seq (upstream's, once it has caught up), and campaignd's clock unchanged, so the
            // edges below estimate campaignd's clock, not the relay's.
            guard !window.epoch.isEmpty else { return }
            publisher.publish(UpdateStream.heartbeat, Heartbeat(epoch: window.epoch, seq: window.seq, time: heartbeat.time))
        }
    }

    /// `sync.changes` as the relay answers it, a page as campaignd's: `nil` when its window does not hold those changes.
    func changes(_ params: ChangesParams) -> ChangesResult? {
        window.withLock { window in
            let bound = PageBound(limit: params.pageLimit)
            guard let changes = window.changes(epoch: params.epoch, since: params.since, bound: bound) else { return nil }
            return ChangesResult(epoch: window.epoch, seq: window.seq, changes: changes)
        }
    }

    /// The epoch and `seq` the relay serves.
    var position: (epoch: String, seq: Int64) { window.withLock { ($0.epoch, $0.seq) } }
}
