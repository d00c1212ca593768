import CampaignFollowing
import DurableFiles
import Foundation
import Hummingbird
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdRuntime
import Logging
import NIOCore
import NIOSSL
import ServiceLifecycle
import Synchronization
import ZeroMQ
import ZMQRPC

/// The delivery service at the edge: its state, the sync engine that keeps it, the client socket and HTTP.
public final class DeliveryServiceApp: Sendable {
    public let configuration: DeliveryServiceConfiguration
    private let context: ZMQContext
    private let client: RPCServer
    private let sync: any Service
    private let shipper: ReportShipper
    private let deviceSaver: DeviceSaver
    private let http: any Service
    private let ops: (any Service)?
    /// The state answered from.
    public let cell: StateCell
    public let status: SyncStatus
    public let cacheHealth: CacheHealth

    public init(configuration: DeliveryServiceConfiguration, logger: Logger = Logger(label: "deliveryd"),
                clock: @escaping @Sendable () -> Timestamp = { Timestamp.now() },
                onReady: @escaping @Sendable ([String: String]) async -> Void = { _ in }) throws {
        self.configuration = configuration
        // Every line this edge logs names it, so the logs of many edges can be searched together.
        var logger = logger
        logger[metadataKey: LogField.edgeId] = .string(configuration.following.followerId)
        // Each may list several campaignd (comma-separated): every one is checked.
        try BindPolicy.check(EndpointList.split(configuration.following.upstreamSync).map { ("campaign sync", $0) }
                                + EndpointList.split(configuration.following.upstreamUpdates).map { ("campaign updates", $0) },
                             curve: configuration.keysDirectory != nil, insecure: configuration.insecure)
        context = try ZMQContext()
        var curve: CurveClientOptions?
        // Seals what this edge acknowledges and reports for campaignd itself (origin.pub), also behind relays.
        var sealer: RecordSealer?
        if let keysPath = configuration.keysDirectory {
            let keys = try KeysDirectory(path: keysPath)
            let own = try keys.keyPair("edge")
            curve = CurveClientOptions(serverKey: try keys.publicKey("campaignd"), keyPair: own)
            sealer = try RecordSealer(keyPair: own, origin: try keys.originPublicKey())
        }

        // The state on disk comes first: answer from it at once, before campaignd is reached.
        let followed = try FollowedState(configuration: configuration.following, context: context, curve: curve, sealer: sealer, logger: logger,
                                         clock: clock)
        let directory = URL(fileURLWithPath: configuration.following.cacheDirectory)
        let cell = followed.cell
        self.cell = cell
        let status = followed.status
        self.status = status
        let cacheHealth = followed.cacheHealth
        self.cacheHealth = cacheHealth
        let cache = followed.cache
        sync = followed.service

        // The client socket: public, small messages, strict params.
        let tls = try configuration.tlsCertificate.map { certificate -> TLSConfiguration in
            guard let key = configuration.tlsKey else { throw RuntimeError.configuration("--tls-cert needs --tls-key") }
            return try TLSFiles.configuration(certificate: certificate, key: key)
        }
        if tls == nil && configuration.tlsKey != nil { throw RuntimeError.configuration("--tls-key needs --tls-cert") }
        let scheme = tls == nil ? "http" : "https"
        let baseURL = configuration.publicURL ?? "\(scheme)://\(configuration.httpAddress)"
        let publicBase = PublicBase(baseURL)
        let (devices, deviceState) = try DeviceFile(directory: directory).load(budget: configuration.deviceHistoryBytes)
        if let setAside = deviceState.setAside {
            logger.error("a devices' file that could not be used was set aside; the caps and rotation it may hold are not applied",
                         metadata: ["file": "\(setAside.original.path)", "set_aside": "\(setAside.setAside.path)", "reason": "\(setAside.reason)"])
        }
        if deviceState.devices > 0 { logger.info("devices' caps and rotation restored", metadata: ["devices": "\(deviceState.devices)"]) }
        deviceSaver = DeviceSaver(history: devices, file: DeviceFile(directory: directory), interval: configuration.deviceSaveInterval, logger: logger)
        let (journal, journaled) = EventJournal.open(directory: directory,
                                                           perFile: FingerprintSet.generation(capacity: configuration.maxEventIds))
        if journaled.discarded {
            logger.warning("discarded event ids on disk that did not verify", metadata: ["folder": "\(directory.path)"])
        }
        let ledger = EventLedger(capacity: configuration.maxEventIds, key: journal.key)
        ledger.remember(journaled.fingerprints)
        let metrics = EdgeMetrics(cache: cache, cacheHealth: cacheHealth, eventIdBytes: configuration.eventIdBytes)
        let handlers = ClientHandlers.Context(configuration: configuration, cell: cell, status: status, cacheHealth: cacheHealth,
                                              devices: devices, ledger: ledger, cache: cache, metrics: metrics,
                                              publicBase: publicBase, clock: clock)
        let methods = ClientHandlers.table(handlers)
        shipper = ReportShipper(configuration: configuration, context: context, ledger: ledger, file: ReportFile(directory: directory),
                                journal: journal, curve: curve, sealer: sealer, logger: logger, interval: configuration.reportInterval)
        var clientConfiguration = RPCServerConfiguration(endpoint: configuration.clientEndpoint, name: "client")
        clientConfiguration.maxMessageSize = Int64(DeliveryServiceConfiguration.clientMessageLimit)
        clientConfiguration.maxInFlight = 256
        clientConfiguration.shutdownLinger = configuration.shutdownLinger
        // What a peer that sends and never reads can make the edge hold is about this many replies (and as many
        // requests) per connection: libzmq's default, a tenth of the internal sockets', so that a flood of such
        // connections stays within tens of MiB instead of hundreds. That holds for small replies; large ones are
        // bounded in bytes, over all connections together, by the reply budget below.
        clientConfiguration.highWaterMark = 1_000
        // Replies of 64 KiB and more (creative chunks, big batches) are bounded in bytes as well: libzmq's queues
        // count messages, so a client asking for them and never reading could otherwise hold any amount of memory.
        let busy = JSONRPCError(code: APIError.busy.code, message: APIError.busy.message)
        let replyBudget = ReplyBudget(limit: max(configuration.maxHeldReplyBytes, DeliveryServiceConfiguration.minHeldReplyBytes), error: busy)
        // One dispatcher for the client socket and `POST /rpc`: the same answers, byte for byte.
        let dispatcher = JSONRPCDispatcher(methods: methods, info: ClientAPI.info, onCall: metrics.callObserver(), replyBudget: replyBudget)
        client = try RPCServer(context: context, dispatcher: dispatcher, configuration: clientConfiguration, logger: logger)

        // HTTP: /rpc and /launch-ad below the router, creatives by sha256; /healthz and /metrics here or on the
        // operations address.
        // The public address bounds its connections; the idle timer of its own paths is the edge handler's.
        let publicGate = HTTPConnectionGate(
            policy: HTTPConnectionPolicy(headerTimeout: configuration.httpHeaderTimeout, idleTimeout: nil, maxConnections: configuration.httpMaxConnections),
            metrics: HTTPConnectionMetrics(registry: metrics.registry, names: EdgeMetrics.name, address: "public"))
        let door = HTTPFrontDoor(dispatcher: dispatcher, configuration: configuration, metrics: HTTPMetrics(registry: metrics.registry),
                                 connections: publicGate.metrics, launchAd: ClientHandlers.launchAd(handlers))
        let router = Router()
        let opsRouter = configuration.opsAddress == nil ? router : Router()
        opsRouter.get("/healthz") { _, _ -> Response in
            let state = cell.state
            let stale = !status.connected
            let skewed = abs(status.skew) > 2
            let writable = cacheHealth.writable
            var members: JSONObject = [
                "status": .string(!state.isLoaded ? "loading" : stale ? "stale" : !writable ? "degraded" : "ok"),
                "epoch": .string(state.epoch), "seq": .number(JSONNumber(state.seq)), "stale": .bool(stale),
                "skewSeconds": .number(JSONNumber(status.skew) ?? JSONNumber(0)), "clockSkewed": .bool(skewed),
                // A full or read-only cache folder: answering from memory, and a restart would lose what is not saved.
                "cacheWritable": .bool(writable),
            ]
            if let error = cacheHealth.lastError { members["cacheError"] = .string(error) }
            let body = JSONValue.object(members)
            return Response(status: state.isLoaded ? .ok : .serviceUnavailable, headers: [.contentType: "application/json"],
                            body: .init(byteBuffer: ByteBuffer(bytes: body.jsonBytes)))
        }
        opsRouter.get("/metrics") { _, _ -> Response in
            metrics.refresh(state: cell.state, status: status, devices: devices.usage)
            return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                            body: .init(byteBuffer: ByteBuffer(string: metrics.text)))
        }
        router.get("/creatives/:sha256") { request, context -> Response in
            try CreativeHTTP.respond(request: request, sha256: context.parameters.get("sha256") ?? "", cell: cell, cache: cache)
        }
        router.head("/creatives/:sha256") { request, context -> Response in
            try CreativeHTTP.respond(request: request, sha256: context.parameters.get("sha256") ?? "", cell: cell, cache: cache, head: true)
        }
        let boundEndpoints = BoundEndpoints()
        // The ready file is written once every HTTP address is up.
        let announced = configuration.opsAddress == nil ? ["http"] : ["http", "ops"]
        @Sendable func bound(_ name: String, _ endpoint: String) async {
            let endpoints = boundEndpoints.adding(name, endpoint)
            if announced.allSatisfy({ endpoints[$0] != nil }) { await onReady(endpoints) }
        }
        http = try HTTPEndpoint.application(
            address: configuration.httpAddress, router: router,
            server: EdgeHTTPServer.publicServer(door: door, tls: tls, gate: publicGate, idleTimeout: configuration.httpIdleTimeout), logger: logger
        ) { endpoint in
            if configuration.publicURL == nil { publicBase.set("\(scheme)://\(endpoint)") }
            await bound("http", endpoint)
        }
        if let address = configuration.opsAddress {
            let opsGate = HTTPConnectionGate(
                policy: HTTPConnectionPolicy(headerTimeout: configuration.httpHeaderTimeout, idleTimeout: configuration.httpIdleTimeout,
                                             maxConnections: HTTPConnectionPolicy.operatorsMaxConnections),
                metrics: HTTPConnectionMetrics(registry: metrics.registry, names: EdgeMetrics.name, address: "ops"))
            ops = try HTTPEndpoint.application(address: address, router: opsRouter, server: opsGate.http1(), logger: logger) { endpoint in
                await bound("ops", endpoint)
            }
        } else {
            ops = nil
        }
        endpointBox = boundEndpoints
    }

    private let endpointBox: BoundEndpoints

    /// Binds the client socket; returns the endpoints bound so far (HTTP comes when it runs).
    public func start() throws -> [String: String] {
        let bound = ["client": try client.start()]
        endpointBox.set(bound)
        return bound
    }

    /// The long-running parts, in start order.
    public var services: [any Service] { [sync, shipper, deviceSaver, client, http] + (ops.map { [$0] } ?? []) }

    /// Once the services have stopped: waits for the ZeroMQ context's end, so that the replies still queued when the
    /// client socket closed reach their peers before the process exits (within the shutdown linger, and a second more
    /// for the rest of the context's sockets); `false` when a socket was still open then.
    @discardableResult
    public func finish() async -> Bool {
        await context.terminate(waitingAtMost: configuration.shutdownLinger + .seconds(1))
    }
}
