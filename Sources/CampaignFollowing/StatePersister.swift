import DurableFiles
import Foundation
import LaunchAdDomain
import Logging
import Locking
import ZeroMQ

/// Saves the edge's state to the cache folder for the sync engine, as group commits: a change waits 10 ms for
/// others, and while changes keep coming the state is saved about four times a second (a burst of 10,000 changes is a
/// dozen writes, not 10,000 whole-file writes each with an fsync). It says what the disk holds, so an
/// acknowledgement never runs ahead of it; if the cache folder cannot be written, it says what was applied in memory
/// and reports the disk in ``CacheHealth``. Creatives waiting in memory for the disk are written with the state.
///
/// Saves run on a thread of the persister's own, due after the group commit's wait: no task wakes for it, and the
/// thread tells the session (``onSaved``) itself, so a change costs the edge as few thread hand-offs as it can. The
/// thread runs at the lowest CPU priority (nice 19): when a change reaches many processes on few cores at once, each
/// applies it (what apps see) before any spends CPU on its save. Under CFS that is a smaller share, never none, so an
/// edge busy answering apps still saves and acknowledges, a little later. The thread starts when a save is due and
/// ends after ``idleLimit`` with none.
final class StatePersister: Sendable {
    let configuration: FollowingConfiguration
    let cell: StateCell
    let creativeFiles: CreativeFiles
    let stateFile: StateFile
    let cache: CreativeCache
    let cacheHealth: CacheHealth
    let logger: Logger
    /// Wakes the save thread when a save becomes due sooner, or the persister stops; `nil` when no eventfd could be
    /// made (the process is out of descriptors), and then the thread looks again every 50 ms.
    private let waker: Waker?
    /// How long the save thread waits with no save due before it ends (the next request starts another).
    static let idleLimit: Duration = .seconds(10)
    /// Held while saving; holds the state the last successful save wrote (so a request for it is not saved twice).
    private let saving = Locked<EdgeState?>(nil)
    /// The epoch and seq of the last state written (or tried, when the disk refuses): what acknowledgements say.
    let persisted: Locked<(epoch: String, seq: Int64)>
    /// Whether a save is due, and the token bucket that spaces saves while changes keep coming.
    private let schedule: Locked<Schedule>
    /// Told after each save (on the save's queue), or when a request found the disk holding everything already: the
    /// current session acknowledges what ``persisted`` says. None between sessions.
    let onSaved = LockedCallback()

    private struct Schedule {
        /// When the save that is due (at most one is) should be made; `nil` when none is due.
        var deadline: ContinuousClock.Instant?
        /// The save thread is running (or starting).
        var running = false
        /// No more saves are made (the sync engine stopped; its last save is its own).
        var stopped = false
        var tokens: Double
        var refilled: ContinuousClock.Instant
    }

    init(configuration: FollowingConfiguration, cell: StateCell, creativeFiles: CreativeFiles, stateFile: StateFile,
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
        waker = try? Waker()
    }

    /// Asks for the state to be saved soon: after ``FollowingConfiguration/stateSaveDelay``, so that changes
    /// that follow within it share the save; while changes keep coming, a token bucket spaces saves by
    /// `stateSaveInterval` after a burst of `stateSaveBurst`. A request while a save is due is that save's.
    func save() {
        let interval = configuration.stateSaveInterval
        let burst = Double(max(1, configuration.stateSaveBurst))
        let start: Bool? = schedule.withLock { schedule in
            guard schedule.deadline == nil, !schedule.stopped else { return nil }
            let now = ContinuousClock.now
            schedule.tokens = min(burst, schedule.tokens + max(.zero, now - schedule.refilled) / interval)
            // Short of a token, the save waits until one has come, and the bucket counts from then.
            let wait = schedule.tokens < 1 ? interval * (1 - schedule.tokens) : .zero
            schedule.tokens = max(1, schedule.tokens) - 1
            schedule.refilled = now + wait
            schedule.deadline = now + configuration.stateSaveDelay + wait
            defer { schedule.running = true }
            return !schedule.running
        }
        switch start {
        case true?: startThread()
        case false?: waker?.wake()
        case nil: break
        }
    }

    /// Makes no more saves of its own (a save under way finishes); the caller makes the last one with ``saveNow()``.
    func stop() {
        schedule.withLock { $0.stopped = true }
        waker?.wake()
    }

    private enum Step {
        case save
        case wait(Duration)
        case end
    }

    /// Starts the save thread: it makes each due save at its deadline, and ends once stopped or idle.
    private func startThread() {
        _ = OwnerThread(name: "state-save") { [self] in
            // This thread only: Linux keeps a nice value per thread.
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
            var poller = Poller()
            if let waker { poller.add(fd: waker.fd) }
            var lastSave = ContinuousClock.now
            while true {
                let step: Step = schedule.withLock { schedule in
                    let now = ContinuousClock.now
                    if schedule.stopped || (schedule.deadline == nil && now - lastSave >= Self.idleLimit) {
                        schedule.running = false
                        return .end
                    }
                    guard let deadline = schedule.deadline else { return .wait(Self.idleLimit - (now - lastSave)) }
                    guard deadline <= now else { return .wait(deadline - now) }
                    // A change from now on asks for a save of its own.
                    schedule.deadline = nil
                    return .save
                }
                switch step {
                case .end:
                    return
                case .wait(let duration):
                    let (seconds, attoseconds) = duration.components
                    let milliseconds = Int(seconds) * 1000 + Int((attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
                    _ = try? poller.poll(timeoutMilliseconds: min(waker == nil ? 50 : .max, max(1, milliseconds)))
                    waker?.drain()
                case .save:
                    dueSave()
                    lastSave = .now
                }
            }
        }
    }

    /// The due save: made, then told to the session. While the cache folder refuses writes, another is due a second
    /// later, so the edge notices by itself when the disk has room again.
    private func dueSave() {
        saveNow()
        onSaved.call()
        if cacheHealth.refuses(.stateFile) || cache.hasPinned {
            schedule.withLock { schedule in
                guard schedule.deadline == nil, !schedule.stopped else { return }
                schedule.deadline = .now + .seconds(1)
            }
        }
    }

    /// Whether the disk already holds everything: the current state is `lastSaved` (written by the last save that
    /// succeeded), no creative waits in memory, and the state file takes writes. (Creatives refused with none in
    /// memory wait for the downloader, which tries their folders itself.)
    private func alreadyWritten(since lastSaved: EdgeState?) -> Bool {
        lastSaved === cell.state && !cache.hasPinned && !cacheHealth.refuses(.stateFile)
    }

    /// Saves the newest state (whichever write comes last writes the newest), and the creatives that are waiting
    /// in memory for the disk.
    func saveNow() {
        saving.withLock { lastSaved in
            // A change that came while the last save waited was written by it: nothing new to write.
            if alreadyWritten(since: lastSaved) { return }
            let state = cell.state
            // Each part's outcome clears or sets its own refusal only: a state file written says nothing of the
            // creatives' folder (a download may be failing there right now). Both are recorded once the state file
            // is written, and the creatives written are let go from memory then too (while any is held, the
            // downloader does not try the folder itself): the cache is said to take writes only once the disk holds
            // the state.
            let pinned = cache.pinned
            var stored: [String] = []
            var creativesFailure: (any Error)?, stateFailure: (any Error)?
            for (sha256, bytes) in pinned {
                do {
                    try creativeFiles.store(bytes, sha256: sha256)
                    stored.append(sha256)
                } catch {
                    creativesFailure = error
                }
            }
            do {
                try stateFile.save(state)
                lastSaved = state
                cacheHealth.stateWritten()
            } catch {
                stateFailure = error
                lastSaved = nil
            }
            for sha256 in stored { cache.unpin(sha256) }
            var flipped = cacheHealth.record(stateFailure, for: .stateFile)
            if !pinned.isEmpty { flipped = flipped != cacheHealth.record(creativesFailure, for: .creatives) }
            let failure = stateFailure ?? creativesFailure
            if flipped {
                if cacheHealth.writable {
                    logger.info("the cache folder takes writes again")
                } else {
                    logger.error("cannot write the cache folder; answering from memory", metadata: ["error": "\(failure.map { "\($0)" } ?? "")"])
                }
            }
            persisted.withLock { $0 = (state.epoch, state.seq) }
        }
    }
}
