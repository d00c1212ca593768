import CZeroMQ

/// An error from libzmq, keeping the `errno` it reported and the operation that failed.
///
/// A send or a receive that would block fails on every drain of a socket, so the hot paths make their errors with
/// ``last(_:on:)``: the error keeps the verb and the socket's type, and the text of ``operation`` is built only when
/// someone reads it (a log line, a thrown error's description), never for an `EAGAIN` that is checked and dropped.
public struct ZMQError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What a socket was doing when a send or a receive failed.
    public enum SocketOperation: Sendable, Hashable {
        case send
        case receive
    }

    /// Where the error came from, as given: a text, or a verb and a socket type that ``operation`` puts in words.
    private enum Origin: Sendable {
        case text(String)
        case socket(SocketOperation, SocketType)
    }

    /// The `errno` value libzmq reported (`EAGAIN`, `EHOSTUNREACH`, `EADDRINUSE`, ...).
    public let code: Int32
    private let origin: Origin

    public init(code: Int32, operation: String) {
        self.code = code
        self.origin = .text(operation)
    }

    init(code: Int32, _ verb: SocketOperation, on type: SocketType) {
        self.code = code
        self.origin = .socket(verb, type)
    }

    /// What was being done, such as `bind tcp://127.0.0.1:7100` or `receive on ROUTER`.
    public var operation: String {
        switch origin {
        case .text(let text): text
        case .socket(.send, let type): "send on \(type)"
        case .socket(.receive, let type): "receive on \(type)"
        }
    }

    /// The error libzmq reports for the calling thread's last failed call.
    public static func last(_ operation: @autoclosure () -> String) -> ZMQError {
        ZMQError(code: zmq_errno(), operation: operation())
    }

    /// The error libzmq reports for the calling thread's last failed send or receive on a socket of `type`; nothing
    /// is allocated (the words come when ``operation`` is read).
    @inline(__always)
    static func last(_ verb: SocketOperation, on type: SocketType) -> ZMQError {
        ZMQError(code: zmq_errno(), verb, on: type)
    }

    /// libzmq's text for the error code.
    public var message: String { String(cString: zmq_strerror(code)) }

    public var description: String { "\(operation): \(message) (errno \(code))" }

    // Two errors are the same when they say the same, however their words were given.
    public static func == (lhs: ZMQError, rhs: ZMQError) -> Bool {
        lhs.code == rhs.code && lhs.operation == rhs.operation
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(operation)
    }

    /// The call would have blocked (`EAGAIN`).
    public var wouldBlock: Bool { code == EAGAIN }
    /// The call was interrupted by a signal (`EINTR`).
    public var interrupted: Bool { code == EINTR }
    /// The context was terminated (`ETERM`).
    public var contextTerminated: Bool { code == ETERM }
    /// A ROUTER with `ROUTER_MANDATORY` could not route to the peer (`EHOSTUNREACH`).
    public var hostUnreachable: Bool { code == EHOSTUNREACH }
}

@inline(__always)
func check(_ rc: Int32, _ operation: @autoclosure () -> String) throws(ZMQError) {
    if rc != 0 { throw ZMQError.last(operation()) }
}
