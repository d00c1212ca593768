import CZeroMQ
import Locking

/// Wakes a poll loop from another thread: an `eventfd` that the loop polls beside its sockets.
public final class Waker: Sendable {
    /// The eventfd to poll for readability.
    public let fd: Int32

    public init() throws(ZMQError) {
        let fd = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard fd >= 0 else { throw ZMQError(code: zmq_errno(), operation: "eventfd") }
        self.fd = fd
    }

    deinit { close(fd) }

    /// Makes the eventfd readable; safe from any thread, never blocks.
    public func wake() {
        var one: UInt64 = 1
        _ = write(fd, &one, MemoryLayout<UInt64>.size)
    }

    /// Resets the eventfd (called by the loop before it looks at what it was woken for).
    public func drain() {
        var value: UInt64 = 0
        _ = read(fd, &value, MemoryLayout<UInt64>.size)
    }
}

/// A queue from any thread into a poll loop: posting wakes the loop only when the queue was empty.
public final class Mailbox<Item: Sendable>: Sendable {
    private let items = Locked<[Item]>([])
    /// The waker to add to the loop's ``Poller``.
    public let waker: Waker

    public init() throws(ZMQError) {
        waker = try Waker()
    }

    /// Appends an item and wakes the loop if it may be asleep.
    public func post(_ item: Item) {
        let wasEmpty = items.withLock { items in
            items.append(item)
            return items.count == 1
        }
        if wasEmpty { waker.wake() }
    }

    /// Wakes the loop without posting (for example to make it stop).
    public func wake() { waker.wake() }

    /// Takes every item posted so far (called on the loop thread).
    public func takeAll() -> [Item] {
        waker.drain()
        return items.withLock { items in
            guard !items.isEmpty else { return [] }
            let taken = items
            items.removeAll(keepingCapacity: true)
            return taken
        }
    }
}
