import DequeModule
import LaunchAdAPI

/// The last changes a relay applied, in `seq` order within one epoch: what it answers `sync.changes` from, so an edge
/// that was away catches up from the relay instead of taking a snapshot, while it was away for fewer than `capacity`
/// changes. A snapshot the relay takes starts the window over at the snapshot's `seq`.
struct ChangeWindow: Sendable {
    private(set) var epoch: String
    /// The `seq` just before the first change held.
    private(set) var base: Int64
    private var changes: Deque<Change> = []
    let capacity: Int

    init(epoch: String, seq: Int64, capacity: Int) {
        self.epoch = epoch
        base = seq
        self.capacity = max(1, capacity)
    }

    /// The `seq` of the last change held (the relay's own).
    var seq: Int64 { base + Int64(changes.count) }

    /// Starts over, empty, at `seq` of `epoch`.
    mutating func reset(epoch: String, seq: Int64) {
        self.epoch = epoch
        base = seq
        changes.removeAll()
    }

    /// Appends changes that follow on from ``seq`` in ``epoch``; anything else starts the window over at the last one.
    mutating func append(_ new: [Change], epoch: String) {
        guard let last = new.last else { return }
        guard epoch == self.epoch, new[0].seq == seq + 1 else {
            reset(epoch: epoch, seq: last.seq)
            return
        }
        for change in new {
            guard change.seq == seq + 1 else {
                reset(epoch: epoch, seq: last.seq)
                return
            }
            changes.append(change)
        }
        while changes.count > capacity {
            changes.removeFirst()
            base += 1
        }
    }

    /// At most `limit` changes after `since` in `epoch`, or `nil` when the window does not hold them: another epoch,
    /// `since` before the window, or after the relay's own `seq` (an edge ahead of a relay that restarted from an older
    /// save, or that took a snapshot of a database restored behind it): the edge then takes a snapshot.
    func changes(epoch: String, since: Int64, limit: Int) -> [Change]? {
        guard epoch == self.epoch, since >= base, since <= seq else { return nil }
        let start = Int(since - base)
        let end = min(changes.count, start + max(1, limit))
        return Array(changes[start..<end])
    }
}
