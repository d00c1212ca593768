import CZeroMQ
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Multipart messages queued on the sending thread and handed to libzmq together by ``flush(to:)``.
///
/// Sending replies one by one while requests are still being read wakes libzmq's I/O thread for nearly every
/// reply, and it then writes each one to the kernel alone. Holding the replies of one batch of requests and
/// sending them back to back lets the I/O thread pick up many at a time and write them in one system call.
/// Envelope frames move in from a ``MultipartBuffer`` without a copy; bodies are copied into frames of their own,
/// taken from the batch's pool of reply slots when one is free and the body fits (see ``init(frameCapacity:pooled:)``).
/// Not thread-safe: it belongs to the thread that owns the socket.
public final class OutgoingBatch {
    /// What a ``flush(to:)`` did.
    public struct FlushResult: Sendable, Equatable {
        /// Messages handed to libzmq.
        public var sent = 0
        /// Messages dropped: the peer was unroutable (`EHOSTUNREACH`) or its queue was full (`EAGAIN`).
        public var dropped = 0
        /// The first error that was not one of those (the message was dropped and counted too).
        public var error: ZMQError?
    }

    // The batch belongs to one thread (it is not Sendable), so its counters skip the runtime's exclusivity checks.
    @exclusivity(unchecked) private var slots: UnsafeMutablePointer<zmq_msg_t>
    /// `true` where the frame is the last of its message.
    @exclusivity(unchecked) private var lasts: UnsafeMutablePointer<Bool>
    @exclusivity(unchecked) private var capacity: Int
    /// Frames held.
    @exclusivity(unchecked) public private(set) var frameCount = 0
    /// Whole messages held (a message still being appended is not counted).
    @exclusivity(unchecked) public private(set) var messageCount = 0
    /// Where copied frames are made when they fit, or `nil`.
    private let pool: OpaquePointer?
    /// The size of the pool's slots (0 without a pool).
    private let slotSize: Int
    /// Frames copied into a slot of the pool, and frames that fitted one but found the next slot still lent.
    @exclusivity(unchecked) public private(set) var pooledFrames = 0
    @exclusivity(unchecked) public private(set) var slotMisses = 0

    /// The size and number of the slots in a batch's pool of reply frames.
    public struct Slots: Sendable, Equatable {
        public var size: Int
        public var count: Int

        public init(size: Int, count: Int) {
            precondition(size > 0 && count > 0)
            self.size = size
            self.count = count
        }
    }

    /// A batch whose copied frames come from a pool of `pooled` slots when they fit (`nil`: every frame is allocated
    /// by libzmq).
    ///
    /// A frame that libzmq allocates is freed on its I/O thread once written; under load, the sending thread's
    /// allocations and the I/O thread's frees then meet on one lock of the C allocator for every reply, and one
    /// thread often sleeps on it. A slot is lent to libzmq instead and comes back when libzmq lets go of the frame;
    /// the slots live until the batch is gone and libzmq has let go of every frame in them. The slot lent last is
    /// taken again once it is back (replies that go one at a time keep writing to memory in the cache), otherwise the
    /// next in turn; when that one is still lent too (its peer is slow to read), the frame is allocated as before.
    public init(frameCapacity: Int = 128, pooled: Slots? = nil) {
        precondition(frameCapacity > 0)
        if let pooled, let made = launchad_frame_pool_create(pooled.size, pooled.count) {
            pool = made
            slotSize = pooled.size
        } else {
            pool = nil
            slotSize = 0
        }
        capacity = frameCapacity
        slots = .allocate(capacity: frameCapacity)
        lasts = .allocate(capacity: frameCapacity)
        for index in 0..<frameCapacity { zmq_msg_init(slots + index) }
    }

    deinit {
        for index in 0..<capacity { zmq_msg_close(slots + index) }
        slots.deallocate()
        lasts.deallocate()
        if let pool { launchad_frame_pool_close(pool) }
    }

    /// Whether nothing is held.
    public var isEmpty: Bool { frameCount == 0 }

    /// Appends frame `index` of `buffer`, moving its content (the buffer's frame is left empty).
    /// `last` ends the message.
    public func append(moving index: Int, of buffer: MultipartBuffer, last: Bool = false) {
        let slot = nextSlot(last: last)
        buffer.move(index, to: slot)
    }

    /// Appends a frame holding a copy of `bytes`. `last` ends the message.
    public func append(copying bytes: UnsafeRawBufferPointer, last: Bool = true) {
        let slot = nextSlot(last: last)
        zmq_msg_close(slot)
        if let pool, let base = bytes.baseAddress, bytes.count > 0, bytes.count <= slotSize {
            if launchad_frame_pool_copy(pool, slot, base, bytes.count) == 0 {
                pooledFrames &+= 1
                return
            }
            slotMisses &+= 1
        }
        guard zmq_msg_init_size(slot, bytes.count) == 0 else { fatalError("out of memory for a \(bytes.count)-byte frame") }
        if let base = bytes.baseAddress, bytes.count > 0 {
            zmq_msg_data(slot).copyMemory(from: base, byteCount: bytes.count)
        }
    }

    /// Appends a frame holding a copy of `bytes` that tells when libzmq lets go of it: `released` runs with the
    /// frame's size once libzmq has written it out or dropped it (on libzmq's I/O thread, or on this one for a frame
    /// that is never sent), so a sender can bound the bytes libzmq holds for it. `last` ends the message.
    public func append(copying bytes: UnsafeRawBufferPointer, last: Bool = true, whenReleased released: @escaping @Sendable (Int) -> Void) {
        let slot = nextSlot(last: last)
        zmq_msg_close(slot)
        let count = bytes.count
        guard let memory = malloc(max(1, count)) else { fatalError("out of memory for a \(count)-byte frame") }
        if let base = bytes.baseAddress, count > 0 { memory.copyMemory(from: base, byteCount: count) }
        let frame = ReleasedFrame(count: count, released)
        frame.publish()
        let hint = Unmanaged.passRetained(frame).toOpaque()
        guard zmq_msg_init_data(slot, memory, count, { data, hint in
            free(data)
            guard let hint else { return }
            let frame = Unmanaged<ReleasedFrame>.fromOpaque(hint).takeRetainedValue()
            frame.received()
            frame.released(frame.count)
        }, hint) == 0 else { fatalError("out of memory for a \(count)-byte frame") }
    }

    /// Sends every whole message held, without blocking, and empties the batch. A message whose first frame
    /// cannot be queued is dropped whole; libzmq queues the rest of a message once its first frame is in. If a
    /// later frame fails all the same (the context is ending), nothing more is sent from this batch: the socket
    /// is left inside that message, and another message's frames must not be glued onto it.
    @discardableResult
    public func flush(to socket: Socket) -> FlushResult {
        precondition(frameCount == 0 || lasts[frameCount - 1], "a message in the batch is not finished")
        var result = FlushResult()
        var index = 0
        var broken = false
        while index < frameCount {
            var first = true
            var dropping = broken
            while true {
                let slot = slots + index
                let last = lasts[index]
                index += 1
                if !dropping {
                    let flags = ZMQ_DONTWAIT | (last ? 0 : ZMQ_SNDMORE)
                    while zmq_msg_send(slot, socket.handle, flags) < 0 {
                        let error = ZMQError.last(.send, on: socket.type)
                        if error.interrupted { continue }
                        let refused = first && (error.wouldBlock || error.hostUnreachable)
                        if !refused {
                            if result.error == nil { result.error = error }
                            if !first { broken = true }
                        }
                        dropping = true
                        break
                    }
                }
                if dropping {
                    // Release what libzmq did not take.
                    zmq_msg_close(slot)
                    zmq_msg_init(slot)
                }
                first = false
                if last { break }
            }
            if dropping { result.dropped += 1 } else { result.sent += 1 }
        }
        frameCount = 0
        messageCount = 0
        return result
    }

    private func nextSlot(last: Bool) -> UnsafeMutablePointer<zmq_msg_t> {
        if frameCount == capacity { grow() }
        let slot = slots + frameCount
        lasts[frameCount] = last
        frameCount += 1
        if last { messageCount += 1 }
        return slot
    }

    private func grow() {
        let newCapacity = capacity * 2
        let newSlots = UnsafeMutablePointer<zmq_msg_t>.allocate(capacity: newCapacity)
        let newLasts = UnsafeMutablePointer<Bool>.allocate(capacity: newCapacity)
        for index in 0..<newCapacity { zmq_msg_init(newSlots + index) }
        for index in 0..<capacity {
            zmq_msg_move(newSlots + index, slots + index)
            zmq_msg_close(slots + index)
        }
        newLasts.initialize(from: lasts, count: capacity)
        slots.deallocate()
        lasts.deallocate()
        slots = newSlots
        lasts = newLasts
        capacity = newCapacity
    }
}

/// What a frame appended with ``OutgoingBatch/append(copying:last:whenReleased:)`` hands to libzmq's free function.
///
/// The object is made on the sending thread and read in the free function, most often on libzmq's I/O thread.
/// libzmq orders the two through its own lock-free queues, inside a library that ThreadSanitizer does not see, so the
/// hand-off is also published through `handedOff`: a releasing store after the object is made, an acquiring load
/// before it is read. On x86 both are plain moves; under ThreadSanitizer they are the order it checks against.
private final class ReleasedFrame: Sendable {
    let count: Int
    let released: @Sendable (Int) -> Void
    private let handedOff = Atomic<Bool>(false)

    init(count: Int, _ released: @escaping @Sendable (Int) -> Void) {
        self.count = count
        self.released = released
    }

    /// Called by the sender once the object is whole, before it goes to libzmq.
    func publish() {
        handedOff.store(true, ordering: .releasing)
    }

    /// Called in the free function before anything else is read.
    func received() {
        let published = handedOff.load(ordering: .acquiring)
        assert(published, "a released frame read before it was handed off")
    }
}
