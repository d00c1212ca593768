import CZeroMQ

/// An error from libzmq, keeping the `errno` it reported and the operation that failed.
public struct ZMQError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The `errno` value libzmq reported (`EAGAIN`, `EHOSTUNREACH`, `EADDRINUSE`, ...).
    public let code: Int32
    /// What was being done, such as `bind tcp://127.0.0.1:7100`.
    public let operation: String

    public init(code: Int32, operation: String) {
        self.code = code
        self.operation = operation
    }

    /// The error libzmq reports for the calling thread's last failed call.
    public static func last(_ operation: @autoclosure () -> String) -> ZMQError {
        ZMQError(code: zmq_errno(), operation: operation())
    }

    /// libzmq's text for the error code.
    public var message: String { String(cString: zmq_strerror(code)) }

    public var description: String { "\(operation): \(message) (errno \(code))" }

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
