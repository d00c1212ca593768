import CZeroMQ

/// One ZeroMQ frame (`zmq_msg_t`), owned by the thread that received it.
///
/// Its bytes are read in place (``withUnsafeBytes(_:)``), without a copy; sending it with
/// ``Socket/send(_:more:dontWait:)`` hands its content to libzmq, also without a copy.
public final class Message {
    let pointer: UnsafeMutablePointer<zmq_msg_t>

    /// An empty frame.
    public init() {
        pointer = .allocate(capacity: 1)
        zmq_msg_init(pointer)
    }

    /// A frame holding a copy of `bytes`.
    public init(_ bytes: [UInt8]) {
        pointer = .allocate(capacity: 1)
        zmq_msg_init_size(pointer, bytes.count)
        if !bytes.isEmpty {
            bytes.withUnsafeBytes { raw in
                zmq_msg_data(pointer).copyMemory(from: raw.baseAddress!, byteCount: raw.count)
            }
        }
    }

    deinit {
        zmq_msg_close(pointer)
        pointer.deallocate()
    }

    /// The frame's size in bytes.
    public var count: Int { zmq_msg_size(pointer) }

    /// Calls `body` with the frame's bytes in place.
    public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(start: zmq_msg_data(pointer), count: zmq_msg_size(pointer)))
    }

    /// A copy of the frame's bytes.
    public var bytes: [UInt8] { withUnsafeBytes { Array($0) } }

    /// The frame's bytes read as UTF-8 (invalid sequences replaced).
    public var string: String { withUnsafeBytes { String(decoding: $0, as: UTF8.self) } }

    /// A metadata property of the connection the frame came on, such as `"User-Id"` (set by ZAP) or `"Peer-Address"`.
    public func property(_ name: String) -> String? {
        guard let value = zmq_msg_gets(pointer, name) else { return nil }
        return String(cString: value)
    }
}

/// Receives multipart messages into a fixed set of reusable frames: no allocation per message.
///
/// Used on hot paths (the RPC server). The frames are valid until the next ``receive(from:dontWait:)``
/// or ``clear()``; an ``OutgoingBatch`` sends them on without a copy. Messages with more frames than the
/// capacity are drained and reported as `.tooManyFrames`.
public final class MultipartBuffer {
    /// What a receive produced.
    public enum Outcome: Sendable, Equatable {
        /// A whole message is in the buffer.
        case message
        /// Nothing was waiting.
        case wouldBlock
        /// The message had more frames than the capacity; it was read and dropped.
        case tooManyFrames(Int)
    }

    private let slots: UnsafeMutablePointer<zmq_msg_t>
    /// The most frames a message may have.
    public let capacity: Int
    /// The frames of the current message. (The buffer belongs to one thread, so this skips the runtime's
    /// exclusivity checks.)
    @exclusivity(unchecked) public private(set) var count = 0

    public init(capacity: Int = 32) {
        precondition(capacity > 0)
        self.capacity = capacity
        slots = .allocate(capacity: capacity)
        for index in 0..<capacity { zmq_msg_init(slots + index) }
    }

    deinit {
        for index in 0..<capacity { zmq_msg_close(slots + index) }
        slots.deallocate()
    }

    /// Receives one whole multipart message, replacing the current one.
    public func receive(from socket: Socket, dontWait: Bool) throws(ZMQError) -> Outcome {
        count = 0
        var flags: Int32 = dontWait ? ZMQ_DONTWAIT : 0
        while true {
            if count == capacity {
                // Read and drop the rest of an oversized message.
                let junk = Message()
                var extra = count
                while socket.hasMore {
                    _ = try socket.receive(into: junk)
                    extra += 1
                }
                // The frames kept are dropped too, not held (up to the capacity's worth of the largest frames) until
                // later messages take their slots.
                for index in 0..<count {
                    zmq_msg_close(slots + index)
                    zmq_msg_init(slots + index)
                }
                count = 0
                return .tooManyFrames(extra)
            }
            let slot = slots + count
            if zmq_msg_recv(slot, socket.handle, flags) < 0 {
                let error = ZMQError.last(.receive, on: socket.type)
                if error.interrupted { continue }
                if error.wouldBlock && count == 0 { return .wouldBlock }
                throw error
            }
            count += 1
            flags = 0  // the rest of a multipart message is already here
            if zmq_msg_more(slot) == 0 { return .message }
        }
    }

    /// The bytes of frame `index`, valid until the next receive.
    public func frame(_ index: Int) -> UnsafeRawBufferPointer {
        precondition(index >= 0 && index < count)
        return UnsafeRawBufferPointer(start: zmq_msg_data(slots + index), count: zmq_msg_size(slots + index))
    }

    /// A copy of frame `index`.
    public func copy(_ index: Int) -> [UInt8] { Array(frame(index)) }

    /// A metadata property of the connection that frame `index` came on (for example `"User-Id"`).
    public func property(_ index: Int, _ name: String) -> String? {
        precondition(index >= 0 && index < count)
        guard let value = zmq_msg_gets(slots + index, name) else { return nil }
        return String(cString: value)
    }

    /// Moves the content of frame `index` into `destination` (an initialized message), leaving the frame empty.
    func move(_ index: Int, to destination: UnsafeMutablePointer<zmq_msg_t>) {
        precondition(index >= 0 && index < count)
        zmq_msg_move(destination, slots + index)
    }

    /// Releases the frames' content.
    public func clear() {
        for index in 0..<count {
            zmq_msg_close(slots + index)
            zmq_msg_init(slots + index)
        }
        count = 0
    }
}
