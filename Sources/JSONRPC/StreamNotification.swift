/// A notification of a PUB/SUB stream, declared once with its topic, its method and its params' type, and used by
/// the publisher and the subscribers alike (as ``RPCMethod`` is for calls). The transport that carries it (ZMQRPC's
/// publisher and subscriber) sends the topic as the first frame and the notification as the second.
public struct StreamNotification<Params: Codable & Sendable>: Sendable {
    /// The first frame: what subscribers filter on.
    public let topic: String
    /// The JSON-RPC notification's method.
    public let method: String

    public init(topic: String, method: String) {
        self.topic = topic
        self.method = method
    }
}
