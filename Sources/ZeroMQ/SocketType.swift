import CZeroMQ

/// The ZeroMQ socket types this project uses.
public struct SocketType: Sendable, Hashable, CustomStringConvertible {
    public let rawValue: Int32
    public let name: String

    public static let pair = SocketType(rawValue: ZMQ_PAIR, name: "PAIR")
    public static let pub = SocketType(rawValue: ZMQ_PUB, name: "PUB")
    public static let sub = SocketType(rawValue: ZMQ_SUB, name: "SUB")
    public static let req = SocketType(rawValue: ZMQ_REQ, name: "REQ")
    public static let rep = SocketType(rawValue: ZMQ_REP, name: "REP")
    public static let dealer = SocketType(rawValue: ZMQ_DEALER, name: "DEALER")
    public static let router = SocketType(rawValue: ZMQ_ROUTER, name: "ROUTER")
    public static let xpub = SocketType(rawValue: ZMQ_XPUB, name: "XPUB")
    public static let xsub = SocketType(rawValue: ZMQ_XSUB, name: "XSUB")

    public var description: String { name }
}

/// Events for `zmq_poll` and `ZMQ_EVENTS`.
public struct PollEvents: OptionSet, Sendable, Hashable {
    public let rawValue: Int16
    public init(rawValue: Int16) { self.rawValue = rawValue }

    public static let readable = PollEvents(rawValue: Int16(ZMQ_POLLIN))
    public static let writable = PollEvents(rawValue: Int16(ZMQ_POLLOUT))
    public static let error = PollEvents(rawValue: Int16(ZMQ_POLLERR))
}
