import DequeModule
import LaunchAdAPI

/// The last changes a relay applied, in `seq` order within one epoch: what it answers `sync.changes` from, so an edge
/// that was away catches up from the relay instead of taking a snapshot, while it was away for fewer than `capacity`
/// changes and the changes since take fewer than `maxBytes` (their campaigns' JSON: a change carries its campaign
/// whole, so a window of large campaigns is bounded by its bytes before its count). A snapshot the relay takes starts
/// the window over at the snapshot's `seq`.
struct ChangeWindow: Sendable {
    /// A change with the size its page counts for it (measured once, as it arrives, outside the relay's lock).
    struct Held: Sendable {
        let change: Change
        let bytes: Int

        init(_ change: Change) {
            self.change = change
            bytes = PageBound.bytes(of: change.campaign)
        }
    }

    private(set) var epoch: String
    /// The `seq` just before the first change held.
    private(set) var base: Int64
    private var changes: Deque<Held> = []
    let capacity: Int
    let maxBytes: Int
    /// The bytes of the changes held, as ``Held/bytes`` counts them.
    private(set) var bytes = 0

    /// Changes let go of so far because the window was full: past ``capacity``, and past ``maxBytes``.
    struct Trimmed: Sendable, Equatable {
        var byCount = 0
        var byBytes = 0
    }

    init(epoch: String, seq: Int64, capacity: Int, maxBytes: Int = .max) {
        self.epoch = epoch
        base = seq
        self.capacity = max(1, capacity)
        self.maxBytes = max(1, maxBytes)
    }

    /// The `seq` of the last change held (the relay's own).
    var seq: Int64 { base + Int64(changes.count) }

    /// Starts over, empty, at `seq` of `epoch`.
    mutating func reset(epoch: String, seq: Int64) {
        self.epoch = epoch
        base = seq
        changes.removeAll()
        bytes = 0
    }

    /// Appends changes that follow on from ``seq`` in ``epoch``; anything else starts the window over at the last one.
    /// Returns the changes let go of to stay within ``capacity`` and ``maxBytes`` (the newest is always kept).
    @discardableResult
    mutating func append(_ new: [Held], epoch: String) -> Trimmed {
        guard let last = new.last?.change else { return Trimmed() }
        guard epoch == self.epoch, new[0].change.seq == seq + 1 else {
            reset(epoch: epoch, seq: last.seq)
            return Trimmed()
        }
        for held in new {
            guard held.change.seq == seq + 1 else {
                reset(epoch: epoch, seq: last.seq)
                return Trimmed()
            }
            changes.append(held)
            bytes += held.bytes
        }
        var trimmed = Trimmed()
        while changes.count > 1 && (changes.count > capacity || bytes > maxBytes) {
            if changes.count > capacity { trimmed.byCount += 1 } else { trimmed.byBytes += 1 }
            bytes -= changes.removeFirst().bytes
            base += 1
        }
        return trimmed
    }

    /// The changes after `since` in `epoch` on one page, cut by `bound` as campaignd cuts its own, or `nil` when the
    /// window does not hold them: another epoch, `since` before the window, or after the relay's own `seq` (an edge
    /// ahead of a relay that restarted from an older save, or that took a snapshot of a database restored behind it):
    /// the edge then takes a snapshot.
    func changes(epoch: String, since: Int64, bound: PageBound) -> [Change]? {
        guard epoch == self.epoch, since >= base, since <= seq else { return nil }
        var bound = bound, page: [Change] = []
        for held in changes[Int(since - base)...] {
            guard bound.admits(held.bytes) else { break }
            page.append(held.change)
        }
        return page
    }
}
