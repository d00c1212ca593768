import JSONRPC
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

    public init(configuration: CampaignServiceConfiguration, logger: Logger = Logger(label: "campaignd")) throws {
        self.configuration = configuration
        self.logger = logger
        context = try ZMQContext()

        var adminCurve: CurveServerOptions?
        var edgeCurve: CurveServerOptions?
        if let keysPath = configuration.keysDirectory {
            let keys = try KeysDirectory(path: keysPath)
            let own = try keys.keyPair("campaignd")
            let zap = try ZAPAuthenticator(context: context) { decision in
                if !decision.admitted {
                    logger.warning("refused a client", metadata: ["domain": "\(decision.domain)", "address": "\(decision.address)",
                                                                  "key": "\(decision.clientKey ?? "none")"])
                }
            }
            try zap.allow(domain: "admin", keys: keys.allowlist("admin"))
            try zap.allow(domain: "edges", keys: keys.allowlist("edges"))
            self.zap = zap
            adminCurve = CurveServerOptions(keyPair: own, zapDomain: "admin")
            edgeCurve = CurveServerOptions(keyPair: own, zapDomain: "edges")
        } else {
            zap = nil
        }
        try BindPolicy.check([("admin", configuration.adminEndpoint), ("sync", configuration.syncEndpoint),
                              ("updates", configuration.updatesEndpoint)],
                             curve: configuration.keysDirectory != nil, insecure: configuration.insecure)

        var adminConfiguration = RPCServerConfiguration(endpoint: configuration.adminEndpoint, name: "admin")
        adminConfiguration.curve = adminCurve
        adminConfiguration.maxMessageSize = 8 * 1024 * 1024
        admin = try RPCServer(context: context, dispatcher: JSONRPCDispatcher(methods: MethodTable(), info: OpenRPCInfo(title: "campaignd admin", version: "1")),
                              configuration: adminConfiguration, logger: logger)
        var syncConfiguration = RPCServerConfiguration(endpoint: configuration.syncEndpoint, name: "sync")
        syncConfiguration.curve = edgeCurve
        sync = try RPCServer(context: context, dispatcher: JSONRPCDispatcher(methods: MethodTable(), info: OpenRPCInfo(title: "campaignd sync", version: "1")),
                             configuration: syncConfiguration, logger: logger)
        var updatesConfiguration = Publisher.Configuration(endpoint: configuration.updatesEndpoint)
        updatesConfiguration.curve = edgeCurve
        updates = try Publisher(context: context, configuration: updatesConfiguration)
    }

    /// Binds every socket; returns the endpoints really bound, by name.
    public func start() throws -> [String: String] {
        try zap?.start()
        return [
            "admin": try admin.start(),
            "sync": try sync.start(),
            "updates": try updates.start(),
        ]
    }

    /// The long-running parts, in start order.
    public var services: [any Service] { [admin, sync, updates] }

    /// Releases what outlives the services (the ZAP handler).
    public func close() {
        zap?.stop()
    }
}
