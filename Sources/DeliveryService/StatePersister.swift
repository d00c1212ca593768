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
    /// Held while saving; holds the state the last successful save wrote (so a signal for it is not saved twice).
    private let saving = Locked<EdgeState?>(nil)
    /// The epoch and seq of the last state written (or tried, when the disk refuses): what acknowledgements say.
    let persisted: Locked<(epoch: String, seq: Int64)>
    /// Signals that the state changed since the last save (the newest signal is enough).
    private let dirty: AsyncStream<Void>.Continuation
    private let dirtySignals: AsyncStream<Void>
    /// The current session's events, to tell it a save completed (so it acknowledges).
    let sessionEvents = Locked<EventQueue?>(nil)

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
        (dirtySignals, dirty) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Asks for the state to be saved soon (see ``persist()``).
    func save() {
        dirty.yield()
    }

    /// Saves on demand, as group commits: a change waits ``DeliveryServiceConfiguration/stateSaveDelay`` for others,
    /// then one save holds them all; while changes keep coming, a token bucket spaces saves by
    /// `stateSaveInterval` after a burst of `stateSaveBurst`. While the cache folder refuses writes, it tries again
    /// every second, so the edge notices by itself when the disk has room again.
    func persist() async {
        var signals = dirtySignals.makeAsyncIterator()
        let interval = configuration.stateSaveInterval
        let burst = Double(max(1, configuration.stateSaveBurst))
        var tokens = burst
        var refilled = ContinuousClock.now
        func refill() {
            let now = ContinuousClock.now
            tokens = min(burst, tokens + (now - refilled) / interval)
            refilled = now
        }
        while !Task.isCancelled {
            if cacheHealth.writable {
                guard await signals.next() != nil else { return }
            } else {
                try? await Task.sleep(for: .seconds(1))
                if Task.isCancelled { return }
            }
            if saving.withLock({ alreadyWritten(since: $0) }) {
                // Signalled for a change the last save already wrote (it came while that save waited).
                sessionEvents.withLock { $0 }?.post(.saved)
                continue
            }
            try? await Task.sleep(for: configuration.stateSaveDelay)
            refill()
            if tokens < 1 {
                try? await Task.sleep(for: interval * (1 - tokens))
                refill()
            }
            tokens = max(0, tokens - 1)
            // On a thread of its own: the fsyncs must not hold one of the few threads that apply changes and
            // answer acknowledgements.
            await disk.perform { self.saveNow() }
            sessionEvents.withLock { $0 }?.post(.saved)
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
