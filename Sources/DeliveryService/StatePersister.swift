import DurableFiles
import Foundation
import LaunchAdDomain
import Logging
import Locking

/// Saves the edge's state to the cache folder for the sync engine, as group commits: a change waits 10 ms for
/// others, and while changes keep coming the state is saved about four times a second (a burst of 10,000 changes is a
/// dozen writes, not 10,000 whole-file writes each with an fsync). It says what the disk holds, so an
/// acknowledgement never runs ahead of it; if the cache folder cannot be written, it says what was applied in memory
/// and reports the disk in ``CacheHealth``. Creatives waiting in memory for the disk are written with the state.
///
/// A save is a block on a queue of its own, due after the group commit's wait: no task wakes for it, and the block
/// tells the session (``onSaved``) itself, so a change costs the edge as few thread hand-offs as it can.
final class StatePersister: Sendable {
    let configuration: DeliveryServiceConfiguration
    let cell: StateCell
    let creativeFiles: CreativeFiles
    let stateFile: StateFile
    let cache: CreativeCache
    let cacheHealth: CacheHealth
    let logger: Logger
    /// Where saves run (blocking file writes and fsyncs, off the tasks' shared threads).
    private let disk = DispatchQueue(label: "deliveryd.state-save")
    /// Held while saving; holds the state the last successful save wrote (so a request for it is not saved twice).
    private let saving = Locked<EdgeState?>(nil)
    /// The epoch and seq of the last state written (or tried, when the disk refuses): what acknowledgements say.
    let persisted: Locked<(epoch: String, seq: Int64)>
    /// Whether a save is due, and the token bucket that spaces saves while changes keep coming.
    private let schedule: Locked<Schedule>
    /// Told after each save (on the save's queue), or when a request found the disk holding everything already: the
    /// current session acknowledges what ``persisted`` says. `nil` between sessions.
    let onSaved = Locked<(@Sendable () -> Void)?>(nil)

    private struct Schedule {
        /// A save is due on the queue (at most one is).
        var due = false
        /// No more saves are made (the sync engine stopped; its last save is its own).
        var stopped = false
        var tokens: Double
        var refilled: ContinuousClock.Instant
    }

    init(configuration: DeliveryServiceConfiguration, cell: StateCell, creativeFiles: CreativeFiles, stateFile: StateFile,
         cache: CreativeCache, cacheHealth: CacheHealth, logger: Logger) {
        self.configuration = configuration
        self.cell = cell
        self.creativeFiles = creativeFiles
        self.stateFile = stateFile
        self.cache = cache
        self.cacheHealth = cacheHealth
        self.logger = logger
        let loaded = cell.state
        persisted = Locked((loaded.epoch, loaded.seq))
        schedule = Locked(Schedule(tokens: Double(max(1, configuration.stateSaveBurst)), refilled: .now))
    }

    /// Asks for the state to be saved soon: after ``DeliveryServiceConfiguration/stateSaveDelay``, so that changes
    /// that follow within it share the save; while changes keep coming, a token bucket spaces saves by
    /// `stateSaveInterval` after a burst of `stateSaveBurst`. A request while a save is due is that save's.
    func save() {
        let interval = configuration.stateSaveInterval
        let burst = Double(max(1, configuration.stateSaveBurst))
        let delay: Duration? = schedule.withLock { schedule in
            guard !schedule.due, !schedule.stopped else { return nil }
            schedule.due = true
            let now = ContinuousClock.now
            schedule.tokens = min(burst, schedule.tokens + max(.zero, now - schedule.refilled) / interval)
            // Short of a token, the save waits until one has come, and the bucket counts from then.
            let wait = schedule.tokens < 1 ? interval * (1 - schedule.tokens) : .zero
            schedule.tokens = max(1, schedule.tokens) - 1
            schedule.refilled = now + wait
            return configuration.stateSaveDelay + wait
        }
        if let delay { saveAfter(delay) }
    }

    /// Makes no more saves of its own (a save under way finishes); the caller makes the last one with ``saveNow()``.
    func stop() {
        schedule.withLock { $0.stopped = true }
    }

    /// Has the due save made after `delay`, on the save queue.
    private func saveAfter(_ delay: Duration) {
        let (seconds, attoseconds) = delay.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        disk.asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { self.dueSave() }
    }

    /// The due save: made, then told to the session. While the cache folder refuses writes, another is due a second
    /// later, so the edge notices by itself when the disk has room again.
    private func dueSave() {
        // A change from now on asks for a save of its own.
        guard schedule.withLock({ schedule in
            schedule.due = false
            return !schedule.stopped
        }) else { return }
        saveNow()
        onSaved.withLock { $0 }?()
        if !cacheHealth.writable {
            let retry = schedule.withLock { schedule in
                guard !schedule.due, !schedule.stopped else { return false }
                schedule.due = true
                return true
            }
            if retry { saveAfter(.seconds(1)) }
        }
    }

    /// Whether the disk already holds everything: the current state is `lastSaved` (written by the last save that
    /// succeeded), no creative waits in memory, and the cache folder takes writes.
    private func alreadyWritten(since lastSaved: EdgeState?) -> Bool {
        lastSaved === cell.state && !cache.hasPinned && cacheHealth.writable
    }

    /// Saves the newest state (whichever write comes last writes the newest), and the creatives that are waiting
    /// in memory for the disk.
    func saveNow() {
        saving.withLock { lastSaved in
            // A change that came while the last save waited was written by it: nothing new to write.
            if alreadyWritten(since: lastSaved) { return }
            let state = cell.state
            var failure: (any Error)?
            for (sha256, bytes) in cache.pinned {
                do {
                    try creativeFiles.store(bytes, sha256: sha256)
                    cache.unpin(sha256)
                } catch {
                    failure = error
                }
            }
            do {
                try stateFile.save(state)
                lastSaved = state
                cacheHealth.stateWritten()
            } catch {
                failure = error
                lastSaved = nil
            }
            if cacheHealth.record(failure) {
                if let failure {
                    logger.error("cannot write the cache folder; answering from memory", metadata: ["error": "\(failure)"])
                } else {
                    logger.info("the cache folder takes writes again")
                }
            }
            persisted.withLock { $0 = (state.epoch, state.seq) }
        }
    }
}
