import Crypto
import DurableFiles
import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdRuntime
import Logging
import ServiceLifecycle
import Synchronization
import ZeroMQ
import ZMQRPC

/// What the sync engine knows of its contact with campaignd, for `/healthz`, metrics and `edge.status`.
public final class SyncStatus: Sendable {
    private let state = Mutex<(lastHeard: ContinuousClock.Instant?, skews: [Double], resyncs: Int, lastHeartbeatSeq: Int64, gaps: Int)>((nil, [], 0, 0, 0))
    /// Heartbeats whose clock readings are kept for the estimate of campaignd's clock.
    static let skewSamples = 8
    /// Added to the estimate of campaignd's clock when judging expiry, for the heartbeat's time in transit.
    public static let transitAllowance = 0.1

    /// Heard from campaignd within the last three heartbeats.
    public var connected: Bool {
        state.withLock { $0.lastHeard.map { ContinuousClock.now - $0 < .seconds(3) } ?? false }
    }

    /// campaignd's clock minus ours, in seconds, from the recent heartbeats. Each reading falls short by the
    /// heartbeat's time in transit, so the largest of the last few (the one that travelled fastest) is the best.
    public var skew: Double { Double(bitPattern: skewBits.load(ordering: .relaxed)) }
    /// The largest of `skews`, kept apart from the lock: every launch query reads it.
    private let skewBits = Atomic<UInt64>(0.0.bitPattern)
    public var resyncs: Int { state.withLock { $0.resyncs } }
    /// Times the edge found itself behind (a gap in the stream, or a heartbeat ahead) and caught up.
    public var gaps: Int { state.withLock { $0.gaps } }

    func gapNoticed() { state.withLock { $0.gaps += 1 } }
    public var lastHeartbeatSeq: Int64 { state.withLock { $0.lastHeartbeatSeq } }

    func heard(skew: Double? = nil, heartbeatSeq: Int64? = nil) {
        state.withLock { state in
            state.lastHeard = .now
            if let skew {
                state.skews.append(skew)
                if state.skews.count > Self.skewSamples { state.skews.removeFirst() }
                skewBits.store((state.skews.max() ?? 0).bitPattern, ordering: .relaxed)
            }
            if let heartbeatSeq { state.lastHeartbeatSeq = heartbeatSeq }
        }
    }

    func resynced() { state.withLock { $0.resyncs += 1 } }

    /// The edge's estimate of campaignd's clock now, for expiry: erring early by ``transitAllowance``, because a
    /// campaign expired a moment early is harmless and one served a moment late is not.
    public func serviceNow(_ now: Timestamp) -> Timestamp { now.adding(seconds: skew + Self.transitAllowance) }
}

/// Keeps the edge's state in step with campaignd, the ZeroMQ guide's Clone pattern made strict: subscribe first,
/// then take a snapshot, drop updates at or below its `seq`, apply the rest in order; on a gap, a new epoch or a
/// heartbeat ahead, fetch the missing changes (or a fresh snapshot); acknowledge `appliedSeq` once the state that
/// holds it is saved; after three silent heartbeats, count the contact as lost and reconnect.
///
/// Saves are group commits: a change waits 10 ms for others, and while changes keep coming the state is saved
/// about four times a second (a burst of 10,000 changes is a dozen writes, not 10,000 whole-file writes each with
/// an fsync). An acknowledgement never runs ahead of the disk, so a `seq` that campaignd counts as applied
/// survives a `kill -9` of the edge. If the cache folder cannot be written, the
/// edge acknowledges what it applied in memory and reports the disk in `/healthz`.
final class SyncEngine: Service {
    let configuration: DeliveryServiceConfiguration
    let context: ZMQContext
    let cell: StateCell
    let status: SyncStatus
    let creativeFiles: CreativeFiles
    let stateFile: StateFile
    let curve: CurveClientOptions?
    let logger: Logger
    let clock: @Sendable () -> Timestamp
    let cache: CreativeCache
    let cacheHealth: CacheHealth
    private let downloading = Mutex<Set<String>>([])
    /// Creatives downloaded while the cache folder refused writes that found no room in memory either: not asked
    /// for again until the folder takes writes or a pin is let go.
    private let unheld = Mutex<Set<String>>([])
    /// Where saves run (blocking file writes and fsyncs, off the tasks' shared threads).
    private let disk = DispatchQueue(label: "deliveryd.state-save")
    /// Held while saving; holds the state the last successful save wrote (so a signal for it is not saved twice).
    private let saving = Mutex<EdgeState?>(nil)
    /// The epoch and seq of the last state written (or tried, when the disk refuses): what acknowledgements say.
    private let persisted: Mutex<(epoch: String, seq: Int64)>
    /// Signals that the state changed since the last save (the newest signal is enough).
    private let dirty: AsyncStream<Void>.Continuation
    private let dirtySignals: AsyncStream<Void>
    /// The current session's events, to tell it a save completed (so it acknowledges).
    private let sessionEvents = Mutex<EventQueue?>(nil)

    init(configuration: DeliveryServiceConfiguration, context: ZMQContext, cell: StateCell, status: SyncStatus,
         creativeFiles: CreativeFiles, stateFile: StateFile, cache: CreativeCache, cacheHealth: CacheHealth,
         curve: CurveClientOptions?, logger: Logger, clock: @escaping @Sendable () -> Timestamp) {
        self.configuration = configuration
        self.context = context
        self.cell = cell
        self.status = status
        self.creativeFiles = creativeFiles
        self.stateFile = stateFile
        self.curve = curve
        self.logger = logger
        self.clock = clock
        self.cache = cache
        self.cacheHealth = cacheHealth
        let loaded = cell.state
        persisted = Mutex((loaded.epoch, loaded.seq))
        (dirtySignals, dirty) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    enum Event: Sendable {
        /// A message from the update stream, with the edge's clock when it arrived (a heartbeat's skew is measured
        /// against that, not against when a backlog let it be handled).
        case message(PublishedMessage, arrived: Timestamp)
        case tick
        /// A save completed: acknowledge what it holds.
        case saved
    }

    func run() async throws {
        let persister = Task { await self.persist() }
        defer {
            // The last word on shutdown: whatever was applied reaches the disk before the process exits.
            persister.cancel()
            saveNow()
        }
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await self.session()
                } catch is CancellationError {
                    return
                } catch {
                    self.logger.warning("sync session ended; reconnecting", metadata: ["error": "\(error)"])
                }
                try? await Task.sleep(for: .milliseconds(500))
            }
        }
    }

    /// One connection to campaignd: subscribe, snapshot, follow, until contact is lost.
    private func session() async throws {
        var clientConfiguration = RPCClientConfiguration(endpoint: configuration.campaignSync)
        clientConfiguration.curve = curve
        clientConfiguration.timeout = .seconds(3)
        clientConfiguration.name = "sync"
        let client = try RPCClient(context: context, configuration: clientConfiguration)
        defer { Task { await client.close() } }
        var subscriberConfiguration = Subscriber.Configuration(endpoint: configuration.campaignUpdates,
                                                               topics: [UpdateStream.campaignTopic, UpdateStream.heartbeatTopic])
        subscriberConfiguration.curve = curve
        subscriberConfiguration.highWaterMark = configuration.updatesHighWaterMark
        subscriberConfiguration.bufferLimit = Int(configuration.updatesHighWaterMark)
        // One queue of events: messages (posted by the subscriber's thread), a tick twice a second to notice
        // silence, and completed saves. It holds as many messages as the high-water mark: what does not fit is
        // dropped, and noticed as a gap.
        let events = EventQueue(messageLimit: max(2, Int(configuration.updatesHighWaterMark)))
        let clock = self.clock
        let subscriber = try Subscriber(context: context, configuration: subscriberConfiguration) { message in
            events.post(.message(message, arrived: clock()))
        }
        defer { Task { await subscriber.stop() } }
        let ticker = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(500))
                events.post(.tick)
            }
        }
        sessionEvents.withLock { $0 = events }
        defer {
            sessionEvents.withLock { $0 = nil }
            ticker.cancel()
            events.finish()
        }

        // Acknowledgements go out from a task of their own, each with the newest saved seq (requests made while one
        // is on its way become one), so that a slow or unreachable sync socket never holds up applying what the
        // update stream brings, nor the count of silent heartbeats.
        let (ackRequests, acks) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let acknowledger = Task {
            for await _ in ackRequests { await self.acknowledge(client) }
        }
        defer {
            acks.finish()
            acknowledger.cancel()
        }
        let link = SyncLink(client: client, acks: acks)

        // Subscribed first; now the snapshot (unless our state's epoch and seq can be caught up from the log).
        try await resync(link, preferChanges: true)
        var lastHeard = ContinuousClock.now
        for await _ in events.signals {
            // Everything that arrived meanwhile, at once: a burst of changes becomes one new state.
            let batch = events.drain()
            var index = 0
            while index < batch.count {
                switch batch[index] {
                case .tick:
                    if ContinuousClock.now - lastHeard > .seconds(3) {
                        logger.warning("no word from campaignd for three heartbeats; reconnecting")
                        return
                    }
                case .message(let message, let arrived):
                    var run = [message]
                    while index + 1 < batch.count, case .message(let next, _) = batch[index + 1],
                          next.method == UpdateStream.changed, message.method == UpdateStream.changed {
                        run.append(next)
                        index += 1
                    }
                    if run.count == 1 { try await handle(message, arrived: arrived, link) } else { try await handle(changes: run, link) }
                    // After handling: a long catch-up is not silence.
                    lastHeard = .now
                case .saved:
                    link.acknowledge()
                }
                index += 1
            }
        }
    }

    /// Several changes that arrived together: applied as one new state when they follow on from ours in our
    /// epoch (the usual case in a burst), else one by one, which notices the gap or the new epoch.
    private func handle(changes messages: [PublishedMessage], _ link: SyncLink) async throws {
        let state = cell.state
        var changes: [Change] = []
        changes.reserveCapacity(messages.count)
        let decoder = JSONValueDecoder(rejectUnknownKeys: false)
        var next = state.seq + 1
        var regular = state.isLoaded
        for message in messages where regular {
            guard let params = message.params.objectValue,
                  let change = try? decoder.decode(ChangeMessage.self, from: .object(params)), change.epoch == state.epoch else {
                regular = false
                break
            }
            if change.seq < next { continue }
            guard change.seq == next else {
                regular = false
                break
            }
            changes.append(Change(seq: change.seq, op: change.op, id: change.id, campaign: change.campaign, at: clock()))
            next += 1
        }
        guard regular else {
            for message in messages { try await handle(message, arrived: nil, link) }
            return
        }
        status.heard()
        if !changes.isEmpty {
            install(state.applying(changes))
            logger.info("applied changes", metadata: ["from_seq": "\(changes[0].seq)", "seq": "\(changes[changes.count - 1].seq)",
                                                     "count": "\(changes.count)"])
        }
    }

    /// Handles one message; `arrived` is when it came (a heartbeat's), when known.
    private func handle(_ message: PublishedMessage, arrived: Timestamp?, _ link: SyncLink) async throws {
        let state = cell.state
        guard let epoch = message.params["epoch"]?.stringValue, let seqValue = message.params["seq"]?.intValue else { return }
        let seq = Int64(seqValue)
        if message.method == UpdateStream.heartbeat {
            var skew: Double?
            if let time = message.params["time"]?.stringValue.flatMap(Timestamp.init(rfc3339:)) {
                skew = (arrived ?? clock()).seconds(until: time)
            }
            status.heard(skew: skew, heartbeatSeq: seq)
            fetchMissing(cell.state)
            if epoch != state.epoch {
                // Another database: start over from a snapshot.
                try await resync(link, preferChanges: false)
            } else if seq < state.seq {
                // Behind what we applied. Mostly a heartbeat that waited in the queue while we caught up from the change
                // log, which answers what is committed a moment before heartbeats carry it; but it may be this database
                // rolled back behind us. The change log tells: it answers from our seq while campaignd holds it, and
                // refuses when campaignd is behind it, and then a snapshot follows.
                try await resync(link, preferChanges: true)
            } else if seq > state.seq {
                status.gapNoticed()
                try await resync(link, preferChanges: true)
            } else {
                link.acknowledge()
            }
            return
        }
        guard message.method == UpdateStream.changed else { return }
        status.heard()
        if epoch != state.epoch {
            try await resync(link, preferChanges: false)
            return
        }
        if seq <= state.seq { return }
        if seq != state.seq + 1 {
            status.gapNoticed()
            try await resync(link, preferChanges: true)
            return
        }
        guard let params = message.params.objectValue,
              let change = try? JSONValueDecoder(rejectUnknownKeys: false).decode(ChangeMessage.self, from: .object(params)) else {
            try await resync(link, preferChanges: true)
            return
        }
        install(state.applying([Change(seq: change.seq, op: change.op, id: change.id, campaign: change.campaign, at: clock())]))
        logger.info("applied a change", metadata: [LogField.campaignId: "\(change.id)", "op": "\(change.op.rawValue)",
                                                   "seq": "\(change.seq)", "version": "\(change.campaign.version)"])
    }

    struct ChangeMessage: Decodable {
        var epoch: String
        var seq: Int64
        var op: CampaignOperation
        var id: Int64
        var campaign: Campaign
    }

    /// Catches up: from the change log when it still reaches our `seq` in our epoch, else from a fresh snapshot.
    private func resync(_ link: SyncLink, preferChanges: Bool) async throws {
        let state = cell.state
        if preferChanges && state.isLoaded, let current = try await catchUp(state, link) {
            if current.seq != state.seq {
                install(current)
                logger.info("caught up from the change log", metadata: ["epoch": "\(current.epoch)", "from_seq": "\(state.seq)",
                                                                        "seq": "\(current.seq)"])
            } else {
                link.acknowledge()
            }
            return
        }
        let fresh = try await snapshot(link)
        status.resynced()
        install(fresh.state)
        logger.info("took a snapshot", metadata: ["epoch": "\(fresh.state.epoch)", "seq": "\(fresh.state.seq)",
                                                  "campaigns": "\(fresh.state.campaigns.count)", "pages": "\(fresh.pages)"])
    }

    /// `state` with the change log applied up to campaignd's `seq`; `nil` when the log no longer reaches back.
    private func catchUp(_ state: EdgeState, _ link: SyncLink) async throws -> EdgeState? {
        try await CampaignSync.catchUp(state) { params in
            let page = try await link.client.call(SyncAPI.changes, params)
            // An answer is word from campaignd as much as a heartbeat is: a new session is not stale once it has one.
            self.status.heard()
            return page
        }
    }

    /// campaignd's state, a page at a time (see ``CampaignSync/pagedSnapshot(pageSize:tries:creatives:page:catchUp:)``),
    /// or whole when the pages kept missing each other.
    private func snapshot(_ link: SyncLink) async throws -> (state: EdgeState, pages: Int) {
        let creatives = cell.state.creatives
        let paged = try await CampaignSync.pagedSnapshot(pageSize: configuration.snapshotPageSize, tries: 3, creatives: creatives) { params in
            let page = try await link.client.call(SyncAPI.snapshot, params)
            self.status.heard()
            return page
        } catchUp: { state in
            try await self.catchUp(state, link)
        }
        if let paged { return paged }
        let whole = try await link.client.call(SyncAPI.snapshot, SnapshotParams())
        status.heard()
        // Creatives already verified stay known across snapshots.
        return (EdgeState(snapshot: whole, creatives: cell.state.creatives), 1)
    }

    /// Makes `state`'s campaigns current (keeping the creatives known meanwhile), has it saved (and then
    /// acknowledged), and fetches any creative it needs.
    private func install(_ state: EdgeState) {
        var installed = cell.update { current in state.with(creatives: current.creatives) }
        if cache.hasPinned {
            // Creatives waiting in memory for the disk that no campaign needs any more are let go, with their room.
            let released = cache.releasePins(keeping: installed.wantedCreatives)
            if !released.isEmpty {
                installed = cell.update { $0.forgetting(released) }
                unheld.withLock { $0.removeAll() }
                logger.info("let go of creatives no campaign needs, held in memory for the disk", metadata: ["count": "\(released.count)"])
            }
        }
        save()
        fetchMissing(installed)
    }

    /// Downloads under way at once, at most: each has a connection and a thread of its own, and a snapshot may name
    /// hundreds of creatives the edge does not hold.
    static let maxDownloads = 8

    /// Fetches the creatives the campaigns need and the edge does not hold (again, after a failure; also after a
    /// restart that discarded some), forced campaigns' first, up to ``maxDownloads`` at once; each download that
    /// ends well starts the next. Downloads already under way are not started twice.
    private func fetchMissing(_ state: EdgeState) {
        let waiting = unheld.withLock { unheld in
            if cacheHealth.writable { unheld.removeAll() }
            return unheld
        }
        for sha256 in state.missingCreatives where !waiting.contains(sha256) {
            guard fetch(sha256) else { return }
        }
    }

    /// Asks for the state to be saved soon (see ``persist()``).
    private func save() {
        dirty.yield()
    }

    /// Saves on demand, as group commits: a change waits ``DeliveryServiceConfiguration/stateSaveDelay`` for others,
    /// then one save holds them all; while changes keep coming, a token bucket spaces saves by
    /// `stateSaveInterval` after a burst of `stateSaveBurst`. While the cache folder refuses writes, it tries again
    /// every second, so the edge notices by itself when the disk has room again.
    private func persist() async {
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
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                disk.async {
                    self.saveNow()
                    done.resume()
                }
            }
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
    private func saveNow() {
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

    /// What a session reaches campaignd's sync socket with: calls, and acknowledgements sent by a task of its own.
    private struct SyncLink: Sendable {
        let client: RPCClient
        let acks: AsyncStream<Void>.Continuation

        /// Has the newest saved seq acknowledged soon, without waiting for campaignd's answer.
        func acknowledge() { acks.yield() }
    }

    /// Tells campaignd the seq this edge has applied and saved.
    private func acknowledge(_ client: RPCClient) async {
        let (epoch, seq) = persisted.withLock { $0 }
        guard !epoch.isEmpty else { return }
        _ = try? await client.call(SyncAPI.ack, EdgeAck(edgeId: configuration.edgeId, region: configuration.region,
                                                       epoch: epoch, appliedSeq: seq), timeout: .seconds(2))
    }

    /// Downloads a creative in chunks, verifies its sha256, stores it, and makes it known; then goes on with what is
    /// still missing. Returns `false` when no download may start now (``maxDownloads`` are under way).
    private func fetch(_ sha256: String) -> Bool {
        let (started, room) = downloading.withLock { downloading -> (Bool, Bool) in
            guard !downloading.contains(sha256) else { return (false, true) }
            guard downloading.count < Self.maxDownloads else { return (false, false) }
            downloading.insert(sha256)
            return (true, true)
        }
        guard started else { return room }
        Task {
            defer { _ = downloading.withLock { $0.remove(sha256) } }
            var clientConfiguration = RPCClientConfiguration(endpoint: configuration.campaignSync)
            clientConfiguration.curve = curve
            clientConfiguration.name = "creatives"
            guard let client = try? RPCClient(context: context, configuration: clientConfiguration) else { return }
            defer { Task { await client.close() } }
            do {
                var bytes: [UInt8] = []
                var facts: CreativeFacts?
                repeat {
                    let chunk = try await client.call(SyncAPI.creative, CreativeChunkParams(sha256: sha256, offset: bytes.count, length: SyncAPI.maxChunk))
                    guard let data = Data(base64Encoded: chunk.data), chunk.offset == bytes.count else { throw DownloadError.corrupt }
                    bytes += data
                    facts = CreativeFacts(sha256: sha256, contentType: chunk.contentType, width: chunk.width, height: chunk.height, size: chunk.size)
                    if data.isEmpty { break }
                } while bytes.count < (facts?.size ?? 0)
                guard let facts, bytes.count == facts.size, SHA256.hash(data: bytes).hex == sha256 else { throw DownloadError.corrupt }
                do {
                    try creativeFiles.store(bytes, sha256: sha256)
                } catch {
                    if cacheHealth.record(error) {
                        logger.error("cannot write the cache folder; answering from memory", metadata: ["error": "\(error)"])
                    }
                    // Verified, but the disk refuses it: serve it from memory until a later save stores it, if there is room.
                    guard cache.pin(bytes, sha256: sha256) else {
                        unheld.withLock { _ = $0.insert(sha256) }
                        logger.warning("no room in memory for a creative the cache folder refuses; it waits for the folder",
                                       metadata: ["sha256": "\(sha256)", "bytes": "\(bytes.count)", "held": "\(cache.pinnedBytes)"])
                        return
                    }
                }
                let state = cell.update { $0.adding(facts) }
                save()
                logger.info("fetched a creative", metadata: ["sha256": "\(sha256)", "bytes": "\(bytes.count)"])
                // The next one at once (a failed download waits for the next heartbeat's look instead, so a creative
                // that cannot be had is not asked for in a loop).
                _ = downloading.withLock { $0.remove(sha256) }
                fetchMissing(state)
            } catch {
                logger.warning("could not fetch a creative; will retry", metadata: ["sha256": "\(sha256)", "error": "\(error)"])
            }
        }
        return true
    }

    enum DownloadError: Error { case corrupt }
}

/// A session's events, taken in batches: whatever arrived while the last batch was handled comes out at once.
/// Messages beyond the limit are dropped (the edge notices the gap and catches up); ticks and saves never are.
final class EventQueue: Sendable {
    private let items = Mutex<(events: [SyncEngine.Event], messages: Int)>(([], 0))
    private let messageLimit: Int
    let signals: AsyncStream<Void>
    private let signal: AsyncStream<Void>.Continuation

    init(messageLimit: Int) {
        self.messageLimit = messageLimit
        (signals, signal) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    func post(_ event: SyncEngine.Event) {
        let taken = items.withLock { items -> Bool in
            if case .message = event {
                guard items.messages < messageLimit else { return false }
                items.messages += 1
            }
            items.events.append(event)
            return true
        }
        if taken { signal.yield() }
    }

    func drain() -> [SyncEngine.Event] {
        items.withLock { items in
            defer { items = ([], 0) }
            return items.events
        }
    }

    func finish() { signal.finish() }
}
