import JSONRPC
import LaunchAdRuntime
import Logging
import ServiceLifecycle
import ZMQRPC
import ZeroMQ

/// The delivery service at the edge: its client socket and everything behind it.
public final class DeliveryServiceApp: Sendable {
    public let configuration: DeliveryServiceConfiguration
    private let context: ZMQContext
    private let client: RPCServer

    public init(configuration: DeliveryServiceConfiguration, logger: Logger = Logger(label: "deliveryd")) throws {
        self.configuration = configuration
        context = try ZMQContext()
        var clientConfiguration = RPCServerConfiguration(endpoint: configuration.clientEndpoint, name: "client")
        clientConfiguration.maxMessageSize = 64 * 1024
        client = try RPCServer(context: context,
                               dispatcher: JSONRPCDispatcher(methods: MethodTable(), info: OpenRPCInfo(title: "deliveryd client", version: "1")),
                               configuration: clientConfiguration, logger: logger)
    }

    /// Binds every socket; returns the endpoints really bound, by name.
    public func start() throws -> [String: String] {
        ["client": try client.start()]
    }

    /// The long-running parts, in start order.
    public var services: [any Service] { [client] }
}
