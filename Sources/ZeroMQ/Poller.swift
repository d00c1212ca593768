import CZeroMQ
#if canImport(Glibc)
import Glibc
#endif

/// A set of sockets and file descriptors for `zmq_poll`, the stable polling API of libzmq 4.3.
///
/// Owned by the thread that owns the sockets. Indices returned by `add` stay valid.
public struct Poller {
    private var items: [zmq_pollitem_t] = []

    public init() {}

    /// How many items it polls; the next one added gets this index.
    public var count: Int { items.count }

    /// Adds a socket and returns its index.
    @discardableResult
    public mutating func add(_ socket: Socket, events: PollEvents = .readable) -> Int {
        items.append(zmq_pollitem_t(socket: socket.handle, fd: -1, events: events.rawValue, revents: 0))
        return items.count - 1
    }

    /// Adds a plain file descriptor (an eventfd, a pipe) and returns its index.
    @discardableResult
    public mutating func add(fd: Int32, events: PollEvents = .readable) -> Int {
        items.append(zmq_pollitem_t(socket: nil, fd: fd, events: events.rawValue, revents: 0))
        return items.count - 1
    }

    /// Changes the events polled for at `index` (empty: ignore it for now).
    public mutating func setEvents(_ events: PollEvents, at index: Int) {
        items[index].events = events.rawValue
    }

    /// Waits until an item is ready or `timeoutMilliseconds` pass (-1 waits forever). Returns how many are ready;
    /// 0 on timeout or when a signal interrupted the wait.
    @discardableResult
    public mutating func poll(timeoutMilliseconds: Int) throws(ZMQError) -> Int {
        let count = Int32(items.count)
        let rc = items.withUnsafeMutableBufferPointer { buffer in
            zmq_poll(buffer.baseAddress, count, timeoutMilliseconds)
        }
        if rc < 0 {
            let error = ZMQError.last("zmq_poll")
            if error.interrupted { return 0 }
            throw error
        }
        return Int(rc)
    }

    /// The events ready at `index` after the last poll.
    public func ready(_ index: Int) -> PollEvents {
        PollEvents(rawValue: items[index].revents)
    }
}

/// A set of plain file descriptors for poll(2), waited on without libzmq.
///
/// `zmq_poll` looks at a socket's pending events (`ZMQ_EVENTS`, which reads the socket's command queue: a `getpid`
/// and a `poll` of its own) before it sleeps and again after, and sleeps only on a second `poll`. A loop that keeps
/// to the rule of ``Socket/signalDescriptor`` can instead wait on that descriptor here, once, beside its own.
/// Owned by one thread. Indices returned by `add` stay valid.
public struct DescriptorPoller {
    private var items: [pollfd] = []

    public init() {}

    /// Adds a descriptor, watched for readability, and returns its index.
    @discardableResult
    public mutating func add(fd: Int32) -> Int {
        items.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0))
        return items.count - 1
    }

    /// Watches the descriptor at `index` for readability, or (`false`) ignores it for now.
    public mutating func setWatched(_ watched: Bool, at index: Int) {
        items[index].events = watched ? Int16(POLLIN) : 0
    }

    /// Waits until a descriptor is readable or `timeoutMilliseconds` pass (-1 waits forever, 0 only looks). Returns
    /// how many are ready; 0 on timeout or when a signal interrupted the wait.
    @discardableResult
    public mutating func poll(timeoutMilliseconds: Int32) throws(ZMQError) -> Int {
        let count = nfds_t(items.count)
        let rc = items.withUnsafeMutableBufferPointer { buffer in
            Glibc.poll(buffer.baseAddress, count, timeoutMilliseconds)
        }
        if rc < 0 {
            let code = errno
            if code == EINTR { return 0 }
            throw ZMQError(code: code, operation: "poll")
        }
        return Int(rc)
    }

    /// Whether the descriptor at `index` was readable (or in error or invalid, which a read then reports, rather
    /// than a poll that returns at once forever) after the last poll.
    public func isReadable(_ index: Int) -> Bool {
        items[index].revents & Int16(POLLIN | POLLERR | POLLHUP | POLLNVAL) != 0
    }
}
