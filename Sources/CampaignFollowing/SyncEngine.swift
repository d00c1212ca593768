import DurableFiles
import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdRuntime
import Locking
import Logging
import ServiceLifecycle
import Synchronization
import ZeroMQ
import ZMQRPC

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
    let configuration: FollowingConfiguration
    let context: ZMQContext
    let cell: StateCell
    let status: SyncStatus
    let curve: CurveClientOptions?
    /// With CURVE: seals each acknowledgement, so that campaignd takes it as this edge's own word through any relay.
    let sealer: RecordSealer?
    let logger: Logger
    let clock: @Sendable () -> Timestamp
    let cache: CreativeCache
    /// Saves the state, and says what the disk holds (what acknowledgements say).
    let persister: StatePersister
    /// Fetches the creatives the state needs.
    let downloader: CreativeDownloader
    /// Hears each change applied and each snapshot taken, in order (a relay passes them on); `nil` at an edge.
    let follower: (any SyncFollower)?
    /// Whether campaignd refused the last acknowledgement for a key listed for another edge id (logged once).
    private let ackRefused = Atomic<Bool>(false)
    /// Whether the priority of the thread that applies changes was logged (once, at the first session).
    private let priorityLogged = Atomic<Bool>(false)
    /// When an acknowledgement last went out as a call, and as either (a call or a notification); `nil` before the
    /// first.
    private let lastAck = Locked<(call: ContinuousClock.Instant?, sent: ContinuousClock.Instant?)>((nil, nil))
    /// How often a heartbeat's acknowledgement goes as a call (the rest go as notifications, see
    /// ``heartbeatAtOnce(_:arrived:)``), so that a refusal still shows in the log.
    static let ackCallInterval: Duration = .seconds(10)
    /// A heartbeat's acknowledgement is left out when another went out this recently: it would say what that one
    /// said (the saved seq, and that this edge is there). While changes come, each save acknowledges itself, and the
    /// heartbeat reaching every edge at once adds none; with nothing changing, each heartbeat is acknowledged.
    static let heartbeatAckQuiet: Duration = .milliseconds(500)
    /// Three heartbeats' time: with no word from upstream for longer, the session ends and the next one reconnects.
    static let silenceLimit: Duration = .seconds(3)

    init(configuration: FollowingConfiguration, context: ZMQContext, cell: StateCell, status: SyncStatus,
         creativeFiles: CreativeFiles, stateFile: StateFile, cache: CreativeCache, cacheHealth: CacheHealth,
         curve: CurveClientOptions?, sealer: RecordSealer? = nil, logger: Logger, clock: @escaping @Sendable () -> Timestamp,
         follower: (any SyncFollower)? = nil) {
        self.configuration = configuration
        self.follower = follower
        self.context = context
        self.cell = cell
        self.status = status
        self.curve = curve
        self.sealer = sealer
        self.logger = logger
        self.clock = clock
        self.cache = cache
        let persister = StatePersister(configuration: configuration, cell: cell, creativeFiles: creativeFiles, stateFile: stateFile,
                                       cache: cache, cacheHealth: cacheHealth, logger: logger)
        self.persister = persister
        downloader = CreativeDownloader(configuration: configuration, context: context, cell: cell, creativeFiles: creativeFiles,
                                        cache: cache, cacheHealth: cacheHealth, persister: persister, curve: curve, logger: logger)
    }

    enum Event: Sendable {
        /// A message from the update stream, with the edge's clock when it arrived (a heartbeat's skew is measured
        /// against that, not against when a backlog let it be handled).
        case message(PublishedMessage, arrived: Timestamp)
        case tick
    }

    func run() async throws {
        // The downloads are a child task of this one: none outlives it, and a shutdown waits for them before the
        // last save.
        await withDiscardingTaskGroup { group in
            group.addTask { await self.downloader.run() }
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
            // No session any more: no download starts, those under way are cancelled (a shutdown does not wait on
            // campaignd); the group ends once every one of them has.
            self.downloader.finish()
            group.cancelAll()
        }
        persister.stop()
        // The last word on shutdown: whatever was applied reaches the disk before the process exits.
        persister.saveNow()
    }

    /// One connection to campaignd: subscribe, snapshot, follow, until contact is lost. The sync client and the
    /// subscriber are closed when it ends, however it ends, before the next one begins.
    private func session() async throws {
        var clientConfiguration = RPCClientConfiguration(endpoint: configuration.upstreamSync)
        clientConfiguration.curve = curve
        clientConfiguration.timeout = .seconds(3)
        clientConfiguration.name = "sync"
        let client = try RPCClient(context: context, configuration: clientConfiguration)
        try await closing({ await client.close() }) {
            var subscriberConfiguration = Subscriber.Configuration(endpoint: configuration.upstreamUpdates,
                                                                   topics: UpdateStream.topics)
            subscriberConfiguration.curve = curve
            subscriberConfiguration.highWaterMark = configuration.updatesHighWaterMark
            subscriberConfiguration.bufferLimit = Int(configuration.updatesHighWaterMark)
            subscriberConfiguration.priorityBoost = configuration.updatesPriority
            // One queue of events: messages (posted by the subscriber's thread) and a tick when three heartbeats'
            // time passed with no word from upstream. It holds as many messages as the high-water mark: what does not
            // fit is dropped, and noticed as a gap. The usual change, next in seq, is applied on the subscriber's thread
            // when the queue is idle and no backlog waits behind it.
            let events = EventQueue(messageLimit: max(2, Int(configuration.updatesHighWaterMark)))
            let clock = self.clock
            let subscriber = try Subscriber(context: context, configuration: subscriberConfiguration) { message, backlog in
                let arrived = clock()
                events.offer(message, arrived: arrived, backlog: backlog) { self.handleAtOnce($0, arrived: arrived) }
            }
            logPriorityOnce(subscriber)
            try await closing({ await subscriber.stop() }) {
                try await follow(client, events)
            }
        }
    }

    /// Says once, at the first session, at what priority changes are applied (each session's subscriber asks the same).
    private func logPriorityOnce(_ subscriber: Subscriber) {
        let boost = configuration.updatesPriority
        guard boost > 0, !priorityLogged.exchange(true, ordering: .relaxed) else { return }
        let nice = "\(max(-20, ProcessNice.value - boost))"
        if subscriber.priorityRaised {
            logger.info("changes are applied ahead of the other threads", metadata: ["nice": .string(nice)])
        } else {
            logger.notice("changes are applied at the process's priority: putting them ahead takes CAP_SYS_NICE or a nice limit (LimitNICE=) that allows nice \(nice)",
                          metadata: ["nice": "\(ProcessNice.value)"])
        }
    }

    /// Runs `body`, then `close`, whichever way `body` ends: a `defer` that may await.
    private func closing(_ close: () async -> Void, _ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch {
            await close()
            throw error
        }
        await close()
    }

    /// A session's work once subscribed: the snapshot (or the changes missed), then the update stream's messages,
    /// until three heartbeats go missing. Its ticker and its acknowledger are child tasks: it ends once they have.
    private func follow(_ client: RPCClient, _ events: EventQueue) async throws {
        // Acknowledgements go out from a task of their own, each with the newest saved seq (requests made while one
        // is on its way become one), so that a slow or unreachable sync socket never holds up applying what the
        // update stream brings, nor the count of silent heartbeats. A completed save acknowledges itself, from the
        // save's thread, as a notification: no task wakes for it and no answer comes back. So do most heartbeats'
        // (``heartbeatAtOnce(_:arrived:)``); a refusal shows on the one in ``ackCallInterval`` made as a call, here.
        let (ackRequests, acks) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let link = SyncLink(client: client, acks: acks)
        persister.onSaved.set { [self] in self.notifyAcknowledgement(client) }
        defer {
            persister.onSaved.set(nil)
            acks.finish()
            events.finish()
        }

        try await withThrowingDiscardingTaskGroup { group in
            defer { group.cancelAll() }
            // The watch for silence sleeps until three heartbeats' time after the last word from upstream, and posts a
            // tick only once that passed with none: while heartbeats come, it wakes every few seconds, not twice a
            // second. Past the limit (the task may be busy in a long catch-up, which counts as word once it ends), it
            // looks again every half second.
            group.addTask {
                while !Task.isCancelled {
                    let quiet = ContinuousClock.now - events.lastHeard
                    if quiet > Self.silenceLimit { events.post(.tick) }
                    try? await Task.sleep(for: quiet > Self.silenceLimit ? .milliseconds(500) : Self.silenceLimit - quiet + .milliseconds(10))
                }
            }
            group.addTask {
                for await _ in ackRequests { await self.acknowledge(client) }
            }

            // Subscribed first; now the snapshot (unless our state's epoch and seq can be caught up from the log).
            try await resync(link, preferChanges: true)
            events.heard()
            events.finishBatch()
            for await _ in events.signals {
                // Everything that arrived meanwhile, at once: a burst of changes becomes one new state.
                let batch = events.drain()
                var index = 0
                while index < batch.count {
                    switch batch[index] {
                    case .tick:
                        if ContinuousClock.now - events.lastHeard > Self.silenceLimit {
                            logger.warning("no word from campaignd for three heartbeats; reconnecting")
                            return
                        }
                    case .message(let message, let arrived):
                        var run = [message]
                        while index + 1 < batch.count, case .message(let next, _) = batch[index + 1],
                              next.is(UpdateStream.changed), message.is(UpdateStream.changed) {
                            run.append(next)
                            index += 1
                        }
                        if run.count == 1 { try await handle(message, arrived: arrived, link) } else { try await handle(changes: run, link) }
                        // After handling: a long catch-up is not silence.
                        events.heard()
                    }
                    index += 1
                }
                events.finishBatch()
            }
        }
    }

    /// The usual message, handled on the subscriber's thread as it arrives: the next change, or a heartbeat that
    /// finds the edge where it says campaignd is. Anything else goes to the session's task.
    private func handleAtOnce(_ message: PublishedMessage, arrived: Timestamp) -> Bool {
        message.is(UpdateStream.heartbeat) ? heartbeatAtOnce(message, arrived: arrived) : applyAtOnce(message)
    }

    /// A heartbeat of our epoch and `seq`, handled on the subscriber's thread: the clock's skew measured, missing
    /// creatives asked for again, the heartbeat passed on (at a relay), and the saved `seq` acknowledged as a
    /// notification (unless one went out in the last ``heartbeatAckQuiet``), so that no task wakes and no answer
    /// comes back each second. One acknowledgement in ``ackCallInterval`` goes as a call, from the session's task,
    /// whose answer says whether campaignd takes this edge's acknowledgements: until one was made that recently, the
    /// heartbeat is declined and goes to the task.
    private func heartbeatAtOnce(_ message: PublishedMessage, arrived: Timestamp) -> Bool {
        let (called, sent) = lastAck.withLock { $0 }
        let now = ContinuousClock.now
        guard let called, now - called < Self.ackCallInterval else { return false }
        let state = cell.state
        guard state.isLoaded, let heartbeat = message.params(as: UpdateStream.heartbeat), heartbeat.epoch == state.epoch,
              heartbeat.seq == state.seq else { return false }
        status.heard(skew: arrived.seconds(until: heartbeat.time), heartbeatSeq: heartbeat.seq)
        downloader.fetchMissing(state)
        if sent.map({ now - $0 >= Self.heartbeatAckQuiet }) ?? true {
            persister.onSaved.call()
        }
        follower?.heard(heartbeat, state: state)
        return true
    }

    /// The usual change, applied on the subscriber's thread as it arrives (see ``EventQueue/offer(_:arrived:fast:)``):
    /// the next `seq` of our epoch, whole. Anything else (a heartbeat, a gap, another epoch, a change that does not
    /// decode) is declined and goes to the session's task.
    private func applyAtOnce(_ message: PublishedMessage) -> Bool {
        guard message.is(UpdateStream.changed) else { return false }
        let state = cell.state
        guard state.isLoaded, let change = message.params(as: UpdateStream.changed), change.epoch == state.epoch,
              change.seq == state.seq + 1 else { return false }
        status.heard()
        let applied = change.change(at: clock())
        install(state.applying([applied]), changes: [applied])
        logger.debug("applied a change", metadata: [LogField.campaignId: "\(change.id)", "op": "\(change.op.rawValue)",
                                                    "seq": "\(change.seq)", "version": "\(change.campaign.version)"])
        return true
    }

    /// Several changes that arrived together: applied as one new state when they follow on from ours in our
    /// epoch (the usual case in a burst), else one by one, which notices the gap or the new epoch.
    private func handle(changes messages: [PublishedMessage], _ link: SyncLink) async throws {
        let state = cell.state
        var changes: [Change] = []
        changes.reserveCapacity(messages.count)
        var next = state.seq + 1
        var regular = state.isLoaded
        for message in messages where regular {
            guard let change = message.params(as: UpdateStream.changed), change.epoch == state.epoch else {
                regular = false
                break
            }
            if change.seq < next { continue }
            guard change.seq == next else {
                regular = false
                break
            }
            changes.append(change.change(at: clock()))
            next += 1
        }
        guard regular else {
            for message in messages { try await handle(message, arrived: nil, link) }
            return
        }
        status.heard()
        if !changes.isEmpty {
            install(state.applying(changes), changes: changes)
            logger.debug("applied changes", metadata: ["from_seq": "\(changes[0].seq)", "seq": "\(changes[changes.count - 1].seq)",
                                                      "count": "\(changes.count)"])
        }
    }

    /// Handles one message; `arrived` is when it came (a heartbeat's), when known.
    private func handle(_ message: PublishedMessage, arrived: Timestamp?, _ link: SyncLink) async throws {
        let state = cell.state
        if message.is(UpdateStream.heartbeat) {
            guard let heartbeat = message.params(as: UpdateStream.heartbeat) else { return }
            status.heard(skew: (arrived ?? clock()).seconds(until: heartbeat.time), heartbeatSeq: heartbeat.seq)
            downloader.fetchMissing(cell.state)
            if heartbeat.epoch != state.epoch {
                // Another database: start over from a snapshot.
                try await resync(link, preferChanges: false)
            } else if heartbeat.seq < state.seq {
                // Behind what we applied. Mostly a heartbeat that waited in the queue while we caught up from the change
                // log, which answers what is committed a moment before heartbeats carry it; but it may be this database
                // rolled back behind us. The change log tells: it answers from our seq while campaignd holds it, and
                // refuses when campaignd is behind it, and then a snapshot follows.
                try await resync(link, preferChanges: true)
            } else if heartbeat.seq > state.seq {
                status.gapNoticed()
                try await resync(link, preferChanges: true)
            } else {
                link.acknowledge()
            }
            follower?.heard(heartbeat, state: cell.state)
            return
        }
        guard message.is(UpdateStream.changed) else { return }
        // The epoch and seq are read first: a change of another epoch, or after a gap, is not applied even when the
        // rest of it would not decode.
        let params = message.params
        guard let epoch = params["epoch"]?.stringValue, let seqValue = params["seq"]?.intValue else { return }
        let seq = Int64(seqValue)
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
        guard let change = message.params(as: UpdateStream.changed) else {
            try await resync(link, preferChanges: true)
            return
        }
        let applied = change.change(at: clock())
        install(state.applying([applied]), changes: [applied])
        logger.debug("applied a change", metadata: [LogField.campaignId: "\(change.id)", "op": "\(change.op.rawValue)",
                                                    "seq": "\(change.seq)", "version": "\(change.campaign.version)"])
    }

    /// Catches up: from the change log when it still reaches our `seq` in our epoch, else from a fresh snapshot.
    private func resync(_ link: SyncLink, preferChanges: Bool) async throws {
        let state = cell.state
        if preferChanges && state.isLoaded, let (current, changes) = try await catchUpCollecting(state, link) {
            if current.seq != state.seq {
                install(current, changes: changes)
                logger.info("caught up from the change log", metadata: ["epoch": "\(current.epoch)", "from_seq": "\(state.seq)",
                                                                        "seq": "\(current.seq)"])
            } else {
                link.acknowledge()
            }
            return
        }
        let fresh = try await snapshot(link)
        status.resynced()
        install(fresh.state, changes: nil)
        logger.info("took a snapshot", metadata: ["epoch": "\(fresh.state.epoch)", "seq": "\(fresh.state.seq)",
                                                  "campaigns": "\(fresh.state.campaigns.count)", "pages": "\(fresh.pages)"])
    }

    /// `state` with the change log applied up to campaignd's `seq`; `nil` when the log no longer reaches back.
    private func catchUp(_ state: EdgeState, _ link: SyncLink) async throws -> EdgeState? {
        try await catchUpCollecting(state, link)?.state
    }

    /// ``catchUp(_:_:)`` with the changes it applied, in order.
    private func catchUpCollecting(_ state: EdgeState, _ link: SyncLink) async throws -> (state: EdgeState, changes: [Change])? {
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
            try PeerNumbers.checkUpstream(seq: page.seq)
            return page
        } catchUp: { state in
            try await self.catchUp(state, link)
        }
        if let paged { return paged }
        let whole = try await link.client.call(SyncAPI.snapshot, SnapshotParams())
        status.heard()
        try PeerNumbers.checkUpstream(seq: whole.seq)
        // Creatives already verified stay known across snapshots.
        return (EdgeState(snapshot: whole, creatives: cell.state.creatives), 1)
    }

    /// Makes `state`'s campaigns current (keeping the creatives known meanwhile), has it saved (and then
    /// acknowledged), and fetches any creative it needs. `changes` are what made it from the state before, or `nil`
    /// for a snapshot: the follower hears which.
    private func install(_ state: EdgeState, changes: [Change]?) {
        var installed = cell.update { current in state.with(creatives: current.creatives) }
        // Read after the swap: a launch query from this moment on answers from the new state.
        status.reached(epoch: installed.epoch, seq: installed.seq, at: clock())
        if let follower {
            if let changes { follower.applied(changes, making: installed) } else { follower.replaced(by: installed) }
        }
        if cache.hasPinned {
            // Creatives waiting in memory for the disk that no campaign needs any more are let go, with their room.
            let released = cache.releasePins(keeping: installed.wantedCreatives)
            if !released.isEmpty {
                installed = cell.update { $0.forgetting(released) }
                downloader.unheld.withLock { $0.removeAll() }
                logger.info("let go of creatives no campaign needs, held in memory for the disk", metadata: ["count": "\(released.count)"])
            }
        }
        persister.save()
        // A change can only miss the creatives of the campaigns it brings: when those are all held, nothing is looked
        // for (a look goes through every campaign). Downloads that failed are tried again on each heartbeat.
        if let changes, !changes.contains(where: { installed.lacksCreative(of: $0.campaign) }) { return }
        downloader.fetchMissing(installed)
    }


    /// What a session reaches campaignd's sync socket with: calls, and acknowledgements sent by a task of its own.
    private struct SyncLink: Sendable {
        let client: RPCClient
        let acks: AsyncStream<Void>.Continuation

        /// Has the newest saved seq acknowledged soon, without waiting for campaignd's answer.
        func acknowledge() { acks.yield() }
    }

    /// Tells campaignd the seq this edge has applied and saved, as a notification (on the thread that saved).
    private func notifyAcknowledgement(_ client: RPCClient) {
        guard let ack = savedAcknowledgement() else { return }
        // Fails only once the session's client is closed; the next session acknowledges again.
        guard (try? client.notify(SyncAPI.ack, ack)) != nil else { return }
        lastAck.withLock { $0.sent = .now }
    }

    /// What an acknowledgement says: the epoch and seq the disk holds (sealed, with CURVE); `nil` before anything was
    /// saved or loaded.
    private func savedAcknowledgement() -> EdgeAck? {
        let (epoch, seq) = persister.persisted.withLock { $0 }
        guard !epoch.isEmpty else { return nil }
        let ack = EdgeAck(edgeId: configuration.followerId, region: configuration.region, epoch: epoch, appliedSeq: seq)
        return sealer?.sealed(ack) ?? ack
    }

    /// Tells campaignd the seq this edge has applied and saved.
    private func acknowledge(_ client: RPCClient) async {
        guard let ack = savedAcknowledgement() else { return }
        let now = ContinuousClock.now
        lastAck.withLock { $0 = (now, now) }
        do {
            _ = try await client.call(SyncAPI.ack, ack, timeout: .seconds(2))
            ackRefused.store(false, ordering: .relaxed)
        } catch let error as JSONRPCError where error.code == APIError.sealRefused.code && error.data?["field"] == "sentAt" {
            // Overtaken by a newer one of ours (a notification sent from the save's thread meanwhile): campaignd took
            // that one. A clock far off is logged at campaignd.
            logger.debug("campaignd took a newer acknowledgement first", metadata: ["error": "\(error.message)"])
        } catch let error as JSONRPCError where error.code == APIError.edgeKeyMismatch.code || error.code == APIError.sealRefused.code {
            // Logged once until an acknowledgement is taken again: the edge acknowledges every second.
            if !ackRefused.exchange(true, ordering: .relaxed) {
                let reason = error.code == APIError.edgeKeyMismatch.code ? "its key is listed for another edge id"
                    : "their seal does not verify (is origin.pub campaignd's key, and this edge's key listed in its edges/?)"
                logger.error("campaignd refuses this edge's acknowledgements: \(reason)",
                             metadata: [LogField.edgeId: "\(configuration.followerId)", "error": "\(error.message)"])
            }
        } catch {}
    }
}
