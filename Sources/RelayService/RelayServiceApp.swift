import CampaignFollowing
import Foundation
import Hummingbird
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdRuntime
import Logging
import ServiceLifecycle
import ZeroMQ
import ZMQRPC

/// The regional tier: follows its upstream (campaignd or another relay) as an edge does, with the edge's own sync
/// engine and state on disk, and serves the edges (and relays) below the same sync API and update stream as campaignd,
/// with the same epoch, `seq` and heartbeats, so that they cannot tell it from campaignd.
///
/// ``start()`` binds the sockets; ``services`` then run in a `ServiceGroup`, stopped in reverse order on SIGTERM.
public final class RelayServiceApp: Sendable {
    public let configuration: RelayServiceConfiguration
    private let context: ZMQContext
    private let zap: ZAPAuthenticator?
    private let updates: Publisher
    private let sync: RPCServer
    private let upstream: RPCClient
    private let forwarder: AckForwarder
    private let http: any Service
    private let zmqEndpoints = BoundEndpoints()
    /// The state the relay serves, kept in step with upstream.
    public let followed: FollowedState

    public init(configuration: RelayServiceConfiguration, logger: Logger = Logger(label: "relayd"),
                clock: @escaping WallClock = Timestamp.systemClock,
                onReady: @escaping @Sendable ([String: String]) async -> Void = { _ in }) throws {
        self.configuration = configuration
        // Every line this relay logs names it.
        let logger = {
            var logger = logger
            logger[metadataKey: "relay_id"] = .string(configuration.following.followerId)
            return logger
        }()
        let curveOn = configuration.keysDirectory != nil
        try BindPolicy.check([("sync", configuration.syncEndpoint), ("updates", configuration.updatesEndpoint)]
                                + EndpointList.split(configuration.following.upstreamSync).map { ("upstream sync", $0) }
                                + EndpointList.split(configuration.following.upstreamUpdates).map { ("upstream updates", $0) },
                             curve: curveOn, insecure: configuration.insecure)
        context = try ZMQContext()

        // CURVE: one key pair for the relay, upstream and below; below, edges and relays listed by id.
        var clientCurve: CurveClientOptions?
        var serverCurve: CurveServerOptions?
        var edgeKeys: EdgeKeys?
        // The relay's own acknowledgements are sealed for campaignd as an edge's (origin.pub, else campaignd.pub);
        // those it passes on carry their edges' seals, which it cannot make.
        var sealer: RecordSealer?
        if let keysPath = configuration.keysDirectory {
            let keys = try KeysDirectory(path: keysPath)
            let own = try keys.keyPair("relay")
            clientCurve = CurveClientOptions(serverKey: try keys.publicKey("campaignd"), keyPair: own)
            sealer = try RecordSealer(keyPair: own, origin: try keys.originPublicKey())
            let edgeIds = try keys.edgeKeys()
            let relayIds = try keys.relayKeys()
            edgeKeys = EdgeKeys(edgeIds: edgeIds, relayIds: relayIds, logger: logger)
            let zap = try ZAPAuthenticator(context: context) { decision in
                if !decision.admitted {
                    logger.warning("refused a client", metadata: ["domain": "\(decision.domain)", "address": "\(decision.address)",
                                                                  "key": "\(decision.clientKey ?? "none")"])
                }
            }
            try zap.allow(domain: "edges", keys: Array(edgeIds.keys) + Array(relayIds.keys))
            self.zap = zap
            serverCurve = CurveServerOptions(keyPair: own, zapDomain: "edges")
        } else {
            zap = nil
        }

        let updatesMonitor = ConnectionMonitor(name: "updates")
        let syncMonitor = ConnectionMonitor(name: "sync")
        var updatesConfiguration = Publisher.Configuration(endpoint: configuration.updatesEndpoint)
        updatesConfiguration.curve = serverCurve
        updatesConfiguration.monitor = updatesMonitor
        updatesConfiguration.maxQueuedBytes = configuration.updatesQueueBytes
        updatesConfiguration.largestMessage = UpdateStream.largestMessage
        let updates = try Publisher(context: context, configuration: updatesConfiguration)
        self.updates = updates
        let metrics = RelayMetrics(monitors: [syncMonitor, updatesMonitor])
        let publisher = RelayPublisher(publisher: updates, capacity: configuration.changeWindow,
                                       maxBytes: max(configuration.changeWindowBytes, RelayServiceConfiguration.minChangeWindowBytes),
                                       onTrim: { metrics.windowTrimmed(byCount: $0, byBytes: $1) })
        let followed = try FollowedState(configuration: configuration.following, context: context, curve: clientCurve, sealer: sealer,
                                         logger: logger, clock: clock, follower: publisher)
        self.followed = followed
        // Served from disk at once: the window starts at the saved seq, so an edge at that seq that comes back after a
        // restart of the relay catches up (with nothing, when nothing changed) instead of taking a snapshot.
        publisher.replaced(by: followed.cell.state)

        var upstreamConfiguration = RPCClientConfiguration(endpoint: configuration.following.upstreamSync)
        upstreamConfiguration.curve = clientCurve
        upstreamConfiguration.timeout = .seconds(3)
        upstreamConfiguration.name = "upstream"
        let upstream = try RPCClient(context: context, configuration: upstreamConfiguration)
        self.upstream = upstream
        let forwarder = AckForwarder(relayId: configuration.following.followerId, upstream: upstream, logger: logger)
        self.forwarder = forwarder

        var syncConfiguration = RPCServerConfiguration(endpoint: configuration.syncEndpoint, name: "sync")
        syncConfiguration.curve = serverCurve
        syncConfiguration.maxMessageSize = Int64(SyncAPI.maxCallBytes)
        syncConfiguration.maxInFlight = 256
        syncConfiguration.monitor = syncMonitor
        let handlers = RelaySyncHandlers.Context(relayId: configuration.following.followerId, followed: followed, publisher: publisher,
                                                 forwarder: forwarder, upstream: upstream, edgeKeys: edgeKeys)
        let observer: JSONRPCDispatcher.InternalErrorObserver = { method, error in
            logger.error("request failed", metadata: ["method": "\(method)", "error": "\(error)"])
        }
        sync = try RPCServer(
            context: context,
            dispatcher: JSONRPCDispatcher(methods: RelaySyncHandlers.table(handlers), info: SyncAPI.info, onInternalError: observer,
                                          onCall: metrics.observer(socket: "sync"),
                                          replyBudget: .busy(limit: max(configuration.maxHeldReplyBytes, RelayServiceConfiguration.minHeldReplyBytes))),
            configuration: syncConfiguration, logger: logger)

        let router = Router()
        let status = followed.status
        router.get("/healthz") { _, _ -> Response in
            let state = followed.cell.state
            let stale = !status.connected
            let body: JSONValue = [
                "status": .string(!state.isLoaded ? "loading" : stale ? "stale" : "ok"),
                "epoch": .string(state.epoch), "seq": .number(JSONNumber(state.seq)), "stale": .bool(stale),
                "edges": .number(JSONNumber(forwarder.liveEdges())),
            ]
            return Response(status: state.isLoaded ? .ok : .serviceUnavailable, headers: [.contentType: "application/json"],
                            body: .init(byteBuffer: ByteBuffer(bytes: body.jsonBytes)))
        }
        router.get("/metrics") { _, _ -> Response in
            metrics.refresh(state: followed.cell.state, status: status, edges: forwarder.liveEdges(),
                            published: updates.published.load(ordering: .relaxed), oversized: updates.oversized.load(ordering: .relaxed),
                            acksPassed: forwarder.passed.load(ordering: .relaxed), ackBatches: forwarder.batches.load(ordering: .relaxed))
            return HTTPEndpoint.metricsResponse(metrics.registry)
        }
        let endpoints = zmqEndpoints
        let gate = HTTPConnectionGate(policy: configuration.httpConnections,
                                      metrics: HTTPConnectionMetrics(registry: metrics.registry, names: RelayMetrics.name, address: "http"))
        http = try HTTPEndpoint.application(address: configuration.httpAddress, router: router, server: gate.http1(), logger: logger) { bound in
            await onReady(endpoints.adding("http", bound))
        }
    }

    /// Binds the sockets; returns the endpoints really bound, by name.
    public func start() throws -> [String: String] {
        try zap?.start()
        let bound = ["updates": try updates.start(), "sync": try sync.start()]
        zmqEndpoints.set(bound)
        return bound
    }

    /// The long-running parts, in start order (stopped in reverse: intake first, the publisher last).
    public var services: [any Service] { [updates, followed.service, forwarder, sync, http] }

    /// Releases what outlives the services: the upstream client and the ZAP handler.
    public func close() async {
        await upstream.close()
        zap?.stop()
    }
}
