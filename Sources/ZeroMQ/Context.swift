import CZeroMQ
import Synchronization

/// A ZeroMQ context: the container of a process's sockets and their I/O threads.
///
/// A context is thread-safe (sockets are not). Termination waits until every socket made from it is closed, and
/// for the messages a socket closed with a linger still has to send, that long at most; sockets made by this
/// wrapper default to `LINGER 0` (an `RPCServer` stopping gracefully gives its replies a bounded linger).
public final class ZMQContext: @unchecked Sendable {
    // @unchecked: libzmq documents the context handle as thread-safe; the pointer never changes.
    /// The underlying `void *` context handle.
    public let handle: UnsafeMutableRawPointer

    /// Creates a context with the given number of I/O threads, and starts them.
    ///
    /// libzmq starts a context's I/O threads with its first socket, and they take the nice value of the thread that
    /// makes it. They are started here, from an ``OwnerThread``, so that they run at the process's
    /// (``ProcessNice``) even when the context is made from a task: on a machine shared with other processes, a
    /// relay started with `nice -n -5` passes changes on at that priority, its I/O threads included.
    public init(ioThreads: Int32 = 1) throws(ZMQError) {
        guard let handle = zmq_ctx_new() else { throw ZMQError.last("zmq_ctx_new") }
        self.handle = handle
        if ioThreads != 1 {
            try check(zmq_ctx_set(handle, ZMQ_IO_THREADS, ioThreads), "zmq_ctx_set IO_THREADS")
        }
        // If no socket can be made now (no descriptors left), the first one made later starts them.
        let starter = OwnerThread(name: "zmq-start") { [self] in
            if let socket = zmq_socket(self.handle, ZMQ_PAIR) { zmq_close(socket) }
        }
        starter.join()
    }

    /// Whether ``terminate(waitingAtMost:)`` has begun the termination (the release then leaves it alone).
    private let terminating = Atomic<Bool>(false)

    deinit {
        guard !terminating.load(ordering: .acquiring) else { return }
        term()
    }

    /// `zmq_ctx_term`, again while a signal interrupts it.
    private func term() {
        while zmq_ctx_term(handle) != 0 && zmq_errno() == EINTR {}
    }

    /// Terminates the context now, as its release would, and waits for that at most `timeout`: until every socket made
    /// from it is closed and what those closed with a linger still had to send has gone (or their linger has passed).
    /// A process ends with this once its sockets are closed: libzmq's I/O threads die with the process, and with them
    /// the replies a linger was to deliver, when the release comes later or on another thread than the exit. `false`
    /// when the wait ran out (a socket still open): the termination goes on in the background.
    public func terminate(waitingAtMost timeout: Duration) async -> Bool {
        guard !terminating.exchange(true, ordering: .acquiringAndReleasing) else { return true }
        let termination = OwnerThread(name: "zmq-term") { [self] in term() }
        return await termination.joined(within: timeout)
    }

    /// Shuts the context down: blocking calls on its sockets return `ETERM` at once.
    public func shutdown() {
        _ = zmq_ctx_shutdown(handle)
    }

    /// The version of the libzmq this process linked against.
    public static var version: (major: Int32, minor: Int32, patch: Int32) {
        var major: Int32 = 0, minor: Int32 = 0, patch: Int32 = 0
        zmq_version(&major, &minor, &patch)
        return (major, minor, patch)
    }

    /// Whether libzmq was built with a capability such as `"curve"` or `"ipc"`.
    public static func has(_ capability: String) -> Bool {
        zmq_has(capability) != 0
    }
}
