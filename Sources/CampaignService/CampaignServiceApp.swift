import CampaignConsole
import CampaignStore
import Foundation
import Hummingbird
import JSONRPC
import LaunchAdDomain
import LaunchAdAPI
import LaunchAdRuntime
import Logging
import ServiceLifecycle
import ZMQRPC
import ZeroMQ

/// The campaign service: its sockets and everything behind them, built from a configuration.
///
/// ``start()`` binds every socket (so the real endpoints are known, for the ready file); ``services`` are then
/// run by a `ServiceGroup`, which stops them in reverse order on SIGTERM.
public final class CampaignServiceApp: Sendable {
    public let configuration: CampaignServiceConfiguration
    private let logger: Logger
    private let context: ZMQContext
    private let zap: ZAPAuthenticator?
    private let admin: RPCServer
    private let sync: RPCServer
    private let updates: Publisher
    private let leader: LeaderDuties
    private let edges: EdgeRegistry
    private let statsPruner: StatsPruner
    /// The pacing loop (run among the leader's duties); its outcomes answer `campaign.stats`'s forecast.
    let pacing: PacingService
    private let http: any Service
    private let console: ConsoleServer?
    private let zmqEndpoints = BoundEndpoints()
    /// The campaign database.
    public let store: any Store

    /// `onReady` hears every endpoint really bound (the sockets and HTTP) once the service is serving.
    public init(configuration: CampaignServiceConfiguration, logger: Logger = Logger(label: "campaignd"),
                clock: @escaping WallClock = Timestamp.systemClock,
                onReady: @escaping @Sendable ([String: String]) async -> Void = { _ in }) async throws {
        self.configuration = configuration
        self.logger = logger
        try BindPolicy.check([("admin", configuration.adminEndpoint), ("sync", configuration.syncEndpoint),
                              ("updates", configuration.updatesEndpoint)],
                             curve: configuration.keysDirectory != nil, insecure: configuration.insecure)
        context = try ZMQContext()

        // CURVE: one key pair for the service, an allowlist for operators and one for edges.
        var adminCurve: CurveServerOptions?
        var edgeCurve: CurveServerOptions?
        var edgeKeys: EdgeKeys?
        var seals: RecordSeals?
        var operatorNames: [String: String] = [:]
        if let keysPath = configuration.keysDirectory {
            let keys = try KeysDirectory(path: keysPath)
            let own = try keys.keyPair("campaignd")
            let edgeIds = try keys.edgeKeys()
            let relayIds = try keys.relayKeys()
            operatorNames = try keys.operatorNames()
            edgeKeys = EdgeKeys(edgeIds: edgeIds, relayIds: relayIds, logger: logger)
            seals = try RecordSeals(ownSecretKey: own.secretKey, edgeKeys: edgeIds, relayKeys: relayIds, logger: logger)
            let zap = try ZAPAuthenticator(context: context) { decision in
                if !decision.admitted {
                    logger.warning("refused a client", metadata: ["domain": "\(decision.domain)", "address": "\(decision.address)",
                                                                  "key": "\(decision.clientKey ?? "none")"])
                }
            }
            try zap.allow(domain: "admin", keys: keys.allowlist("admin"))
            try zap.allow(domain: "edges", keys: Array(edgeIds.keys) + Array(relayIds.keys))
            self.zap = zap
            adminCurve = CurveServerOptions(keyPair: own, zapDomain: "admin")
            edgeCurve = CurveServerOptions(keyPair: own, zapDomain: "edges")
        } else {
            zap = nil
        }

        // Storage. The leader (the one process, with SQLite) publishes the change log in seq order.
        let store: any Store
        switch configuration.database {
        case .sqlite:
            store = try SQLiteStore(directory: configuration.dataDirectory)
        case .postgres(let location):
            store = try await PostgresStore.connect(location, logger: logger)
        }
        self.store = store
        let startSeq = try await store.currentSeq()
        // Creatives stored by an older campaignd get their duration from their bytes, once, before anything is served.
        let timed = try await store.fillCreativeDurations()
        if timed > 0 { logger.info("creatives given their duration", metadata: ["creatives": "\(timed)"]) }

        // Who holds the edges' sockets: campaignd behind relays serves the relays alone.
        let updatesMonitor = ConnectionMonitor(name: "updates")
        let syncMonitor = ConnectionMonitor(name: "sync")
        var updatesConfiguration = Publisher.Configuration(endpoint: configuration.updatesEndpoint)
        updatesConfiguration.curve = edgeCurve
        updatesConfiguration.monitor = updatesMonitor
        updatesConfiguration.maxQueuedBytes = configuration.updatesQueueBytes
        updatesConfiguration.largestMessage = UpdateStream.largestMessage
        let updates = try Publisher(context: context, configuration: updatesConfiguration)
        self.updates = updates
        let scheduler = ExpiryScheduler(store: store, clock: clock, logger: logger)
        let seqs = SeqCeiling(store: store, seq: startSeq, logger: logger)
        let publisher = ChangePublisher(publisher: updates, epoch: store.epoch, seq: startSeq, ceiling: seqs)
        let heartbeat = HeartbeatService(publisher: publisher, clock: clock, interval: configuration.heartbeatInterval, logger: logger)
        let edges = EdgeRegistry(store: store, logger: logger, retention: configuration.edgeRetention, clock: clock)
        self.edges = edges
        let pacing = PacingService(store: store, clock: clock, interval: configuration.pacingInterval, reports: edges.reports, logger: logger)
        self.pacing = pacing
        leader = LeaderDuties(store: store, publisher: publisher, heartbeat: heartbeat, scheduler: scheduler, pacing: pacing, logger: logger)
        statsPruner = StatsPruner(store: store, retention: configuration.statsRetention, clock: clock, logger: logger)
        let metrics = CampaignMetrics(monitors: [syncMonitor, updatesMonitor])
        let observer: JSONRPCDispatcher.InternalErrorObserver = { method, error in
            logger.error("request failed", metadata: ["method": "\(method)", "error": "\(error)"])
        }
        // libzmq's queues count messages: large replies for peers that do not read are bounded in bytes, per socket.
        let heldReplyBytes = max(configuration.maxHeldReplyBytes, CampaignServiceConfiguration.minHeldReplyBytes)
        var adminConfiguration = RPCServerConfiguration(endpoint: configuration.adminEndpoint, name: "admin")
        adminConfiguration.curve = adminCurve
        // Creatives arrive base64 in one frame: room for the largest one.
        adminConfiguration.maxMessageSize = Int64(configuration.largestCreativeBytes) * 4 / 3 + 64 * 1024
        adminConfiguration.maxInFlight = 64
        let adminDispatcher = JSONRPCDispatcher(
            methods: AdminHandlers.table(store: store, edges: edges, operatorNames: operatorNames,
                                         backups: try BackupShelf(dataDirectory: configuration.dataDirectory, store: store, logger: logger),
                                         maxCreativeBytes: configuration.maxCreativeBytes, maxVideoBytes: configuration.maxVideoBytes,
                                         pacing: pacing, clock: clock, logger: logger),
            info: AdminAPI.info, onInternalError: observer, onCall: metrics.observer(socket: "admin"),
            replyBudget: .busy(limit: heldReplyBytes))
        admin = try RPCServer(context: context, dispatcher: adminDispatcher, configuration: adminConfiguration, logger: logger)
        var syncConfiguration = RPCServerConfiguration(endpoint: configuration.syncEndpoint, name: "sync")
        syncConfiguration.curve = edgeCurve
        syncConfiguration.maxMessageSize = Int64(SyncAPI.maxCallBytes)
        syncConfiguration.maxInFlight = 256
        syncConfiguration.monitor = syncMonitor
        sync = try RPCServer(
            context: context,
            dispatcher: JSONRPCDispatcher(methods: SyncHandlers.table(store: store, edges: edges, edgeKeys: edgeKeys, seals: seals, seqs: seqs,
                                                                            statsRetention: configuration.statsRetention, clock: clock),
                                          info: SyncAPI.info, onInternalError: observer, onCall: metrics.observer(socket: "sync"),
                                          replyBudget: .busy(limit: heldReplyBytes)),
            configuration: syncConfiguration, logger: logger)

        // HTTP: /metrics and /healthz. The ready file waits for it, as it is the last to bind.
        let router = Router()
        router.get("/healthz") { _, _ -> Response in
            guard let seq = try? await store.currentSeq() else {
                return Response(status: .serviceUnavailable, body: .init(byteBuffer: ByteBuffer(string: #"{"status":"unavailable"}"#)))
            }
            let body: JSONValue = ["status": "ok", "epoch": .string(store.epoch), "seq": .number(JSONNumber(seq))]
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: body.jsonBytes)))
        }
        router.get("/metrics") { _, _ -> Response in
            let now = clock()
            await metrics.refresh(store: store, edges: ((try? await edges.list(now: now)) ?? []).map { EdgeInfoSummary(stale: $0.stale) },
                                  published: updates.published.load(ordering: .relaxed), oversized: updates.oversized.load(ordering: .relaxed))
            return HTTPEndpoint.metricsResponse(metrics.registry)
        }
        // The ready file waits for the console too, when there is one.
        let endpoints = zmqEndpoints
        let required: Set<String> = configuration.console == nil ? ["http"] : ["http", "console"]
        @Sendable func gate(_ address: String) -> HTTPConnectionGate {
            HTTPConnectionGate(policy: configuration.httpConnections,
                               metrics: HTTPConnectionMetrics(registry: metrics.registry, names: CampaignMetrics.name, address: address))
        }
        http = try HTTPEndpoint.application(address: configuration.httpAddress, router: router, server: gate("http").http1(), logger: logger) { bound in
            if let all = endpoints.adding("http", bound, completing: required) { await onReady(all) }
        }
        if let consoleConfiguration = configuration.console {
            // The console writes through the admin socket's own dispatcher, so its writes run the same handlers.
            let maxCreativeBytes = configuration.largestCreativeBytes
            let gateway = AdminGateway(
                call: AdminGateway.calling(adminDispatcher),
                facts: { try await store.creative(sha256: $0) },
                creative: { sha256 in
                    guard case .bytes(let facts, let bytes) = try await store.creativeChunk(sha256: sha256, offset: 0, length: maxCreativeBytes) else {
                        return nil
                    }
                    return (facts, bytes)
                },
                history: { id, before, limit in
                    try await store.campaignHistory(campaign: id, before: before, limit: limit, maxBytes: consoleConfiguration.historyPageBytes)
                        .map { ChangeEntry(change: $0.change, actor: $0.actor, before: $0.before) }
                })
            var consoleLogger = logger
            consoleLogger[metadataKey: "server"] = "console"
            console = try ConsoleServer(configuration: consoleConfiguration, gateway: gateway, clock: clock, gate: gate("console"),
                                        logger: consoleLogger) { bound in
                if let all = endpoints.adding("console", bound, completing: required) { await onReady(all) }
            }
        } else {
            console = nil
        }
        logger.info("database open", metadata: ["database": "\(configuration.database)", "epoch": "\(store.epoch)", "seq": "\(startSeq)"])
    }

    /// Binds every socket; returns the endpoints really bound, by name.
    public func start() throws -> [String: String] {
        try zap?.start()
        let bound = [
            "updates": try updates.start(),
            "sync": try sync.start(),
            "admin": try admin.start(),
        ]
        zmqEndpoints.set(bound)
        return bound
    }

    /// The long-running parts, in start order (stopped in reverse: intake first, the publisher last).
    public var services: [any Service] { [updates, edges, statsPruner, leader, sync, admin, http] + (console.map { [$0] } ?? []) }

    /// Releases what outlives the services (the ZAP handler, the database's connections).
    public func close() {
        zap?.stop()
        (store as? PostgresStore)?.close()
    }
}
