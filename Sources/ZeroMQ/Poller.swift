import CZeroMQ

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
