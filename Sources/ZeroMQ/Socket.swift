import CZeroMQ

/// A ZeroMQ socket, owned by one thread.
///
/// The type is deliberately not `Sendable`: libzmq sockets are not thread-safe, so a socket is made,
/// used and closed on the thread that owns it (see ``OwnerThread``). It closes itself when released.
/// New sockets get `LINGER 0`, so closing never waits for unsent messages.
public final class Socket {
    /// The underlying `void *` socket handle.
    public let handle: UnsafeMutableRawPointer
    /// The socket's type.
    public let type: SocketType
    private var closed = false

    /// Creates a socket of `type` in `context`, with `LINGER 0`.
    public init(_ context: ZMQContext, type: SocketType) throws(ZMQError) {
        guard let handle = zmq_socket(context.handle, type.rawValue) else {
            throw ZMQError.last("zmq_socket \(type)")
        }
        self.handle = handle
        self.type = type
        try setOption(ZMQ_LINGER, Int32(0), "LINGER")
    }

    deinit { close() }

    /// Closes the socket; later calls on it fail with `ENOTSOCK`.
    public func close() {
        guard !closed else { return }
        closed = true
        zmq_close(handle)
    }

    // MARK: Endpoints

    /// Binds to `endpoint` and returns the endpoint really bound (with the port chosen for `:0` or `:*`).
    @discardableResult
    public func bind(_ endpoint: String) throws(ZMQError) -> String {
        let normalized = Socket.normalizeEphemeral(endpoint)
        try check(zmq_bind(handle, normalized), "bind \(endpoint)")
        return try lastEndpoint
    }

    /// Connects to `endpoint`; the connection itself happens in the background and is retried.
    public func connect(_ endpoint: String) throws(ZMQError) {
        try check(zmq_connect(handle, endpoint), "connect \(endpoint)")
    }

    /// Stops listening on a bound endpoint.
    public func unbind(_ endpoint: String) throws(ZMQError) {
        try check(zmq_unbind(handle, endpoint), "unbind \(endpoint)")
    }

    /// Drops a connection made with ``connect(_:)``.
    public func disconnect(_ endpoint: String) throws(ZMQError) {
        try check(zmq_disconnect(handle, endpoint), "disconnect \(endpoint)")
    }

    /// The last endpoint bound (`ZMQ_LAST_ENDPOINT`), with the real port.
    public var lastEndpoint: String {
        get throws(ZMQError) { try stringOption(ZMQ_LAST_ENDPOINT, "LAST_ENDPOINT") }
    }

    /// libzmq spells an ephemeral TCP port `*`; this project also accepts the usual `:0`.
    static func normalizeEphemeral(_ endpoint: String) -> String {
        if endpoint.hasPrefix("tcp://") && endpoint.hasSuffix(":0") {
            return String(endpoint.dropLast()) + "*"
        }
        return endpoint
    }

    // MARK: Sending

    /// Sends one frame. Returns `false` when `dontWait` is set and the frame could not be queued (`EAGAIN`).
    @discardableResult
    public func send(_ bytes: UnsafeRawBufferPointer, more: Bool = false, dontWait: Bool = false) throws(ZMQError) -> Bool {
        var flags: Int32 = 0
        if more { flags |= ZMQ_SNDMORE }
        if dontWait { flags |= ZMQ_DONTWAIT }
        while true {
            if zmq_send(handle, bytes.baseAddress, bytes.count, flags) >= 0 { return true }
            let error = ZMQError.last(.send, on: type)
            if error.interrupted { continue }
            if error.wouldBlock && dontWait { return false }
            throw error
        }
    }

    /// Sends one frame of bytes.
    @discardableResult
    public func send(_ bytes: [UInt8], more: Bool = false, dontWait: Bool = false) throws(ZMQError) -> Bool {
        let result: Result<Bool, ZMQError> = bytes.withUnsafeBytes { raw in
            Result { () throws(ZMQError) -> Bool in try send(raw, more: more, dontWait: dontWait) }
        }
        return try result.get()
    }

    /// Sends one frame holding the UTF-8 of `string`.
    @discardableResult
    public func send(_ string: String, more: Bool = false, dontWait: Bool = false) throws(ZMQError) -> Bool {
        try send(Array(string.utf8), more: more, dontWait: dontWait)
    }

    /// Sends a multipart message. Returns `false` when `dontWait` is set and the first frame would block;
    /// libzmq delivers multipart messages atomically, so once the first frame is queued the rest follow.
    @discardableResult
    public func send(parts: [[UInt8]], dontWait: Bool = false) throws(ZMQError) -> Bool {
        precondition(!parts.isEmpty, "a message has at least one frame")
        for (index, part) in parts.enumerated() {
            let sent = try send(part, more: index < parts.count - 1, dontWait: dontWait)
            if !sent {
                precondition(index == 0, "libzmq refused a frame in the middle of a multipart message")
                return false
            }
        }
        return true
    }

    /// Sends `message` (its content moves to libzmq; the message is left empty).
    @discardableResult
    public func send(_ message: Message, more: Bool = false, dontWait: Bool = false) throws(ZMQError) -> Bool {
        var flags: Int32 = 0
        if more { flags |= ZMQ_SNDMORE }
        if dontWait { flags |= ZMQ_DONTWAIT }
        while true {
            if zmq_msg_send(message.pointer, handle, flags) >= 0 { return true }
            let error = ZMQError.last(.send, on: type)
            if error.interrupted { continue }
            if error.wouldBlock && dontWait { return false }
            throw error
        }
    }

    // MARK: Receiving

    /// Receives one frame into `message`. Returns `false` when `dontWait` is set and nothing is waiting.
    public func receive(into message: Message, dontWait: Bool = false) throws(ZMQError) -> Bool {
        let flags: Int32 = dontWait ? ZMQ_DONTWAIT : 0
        while true {
            if zmq_msg_recv(message.pointer, handle, flags) >= 0 { return true }
            let error = ZMQError.last(.receive, on: type)
            if error.interrupted { continue }
            if error.wouldBlock { return false }  // with dontWait, or after RCVTIMEO
            throw error
        }
    }

    /// Receives a whole multipart message as frames, or `nil` when nothing is waiting (`dontWait` or RCVTIMEO).
    public func receiveMultipart(dontWait: Bool = false) throws(ZMQError) -> [Message]? {
        var frames: [Message] = []
        repeat {
            let frame = Message()
            // Once the first frame has arrived, the rest of the message is already there.
            guard try receive(into: frame, dontWait: frames.isEmpty ? dontWait : false) else {
                return frames.isEmpty ? nil : frames
            }
            frames.append(frame)
        } while hasMore
        return frames
    }

    /// Receives a whole multipart message as byte arrays, or `nil` when nothing is waiting.
    public func receiveParts(dontWait: Bool = false) throws(ZMQError) -> [[UInt8]]? {
        try receiveMultipart(dontWait: dontWait)?.map { $0.bytes }
    }

    /// Whether the last frame received has more frames after it (`ZMQ_RCVMORE`).
    public var hasMore: Bool {
        (try? intOption(ZMQ_RCVMORE, "RCVMORE")) == 1
    }

    /// The descriptor libzmq makes readable when commands wait for this socket (`ZMQ_FD`), to wait on with poll(2)
    /// (``DescriptorPoller``) instead of `zmq_poll`.
    ///
    /// It does not say that messages wait: any send, receive or ``events`` on the socket may take in the command
    /// that announced one, and then the descriptor stays quiet while the message waits. So a loop may sleep on it
    /// only right after a receive said `EAGAIN` (which takes in every command waiting) with no call on the socket
    /// since; after anything else it must receive until `EAGAIN` first.
    public var signalDescriptor: Int32 {
        get throws(ZMQError) { try intOption(ZMQ_FD, "FD") }
    }

    /// The events the socket is ready for now (`ZMQ_EVENTS`).
    public var events: PollEvents {
        get throws(ZMQError) { PollEvents(rawValue: Int16(truncatingIfNeeded: try intOption(ZMQ_EVENTS, "EVENTS"))) }
    }
}

// MARK: - Options

extension Socket {
    /// Sets an integer option.
    public func setOption(_ option: Int32, _ value: Int32, _ name: String) throws(ZMQError) {
        var value = value
        try check(zmq_setsockopt(handle, option, &value, MemoryLayout<Int32>.size), "setsockopt \(name)")
    }

    /// Sets a 64-bit integer option.
    public func setOption(_ option: Int32, _ value: Int64, _ name: String) throws(ZMQError) {
        var value = value
        try check(zmq_setsockopt(handle, option, &value, MemoryLayout<Int64>.size), "setsockopt \(name)")
    }

    /// Sets a binary or string option.
    public func setOption(_ option: Int32, bytes: [UInt8], _ name: String) throws(ZMQError) {
        let rc = bytes.withUnsafeBytes { raw in zmq_setsockopt(handle, option, raw.baseAddress, raw.count) }
        try check(rc, "setsockopt \(name)")
    }

    /// Reads an integer option.
    public func intOption(_ option: Int32, _ name: String) throws(ZMQError) -> Int32 {
        var value: Int32 = 0
        var size = MemoryLayout<Int32>.size
        try check(zmq_getsockopt(handle, option, &value, &size), "getsockopt \(name)")
        return value
    }

    /// Reads a 64-bit integer option.
    public func int64Option(_ option: Int32, _ name: String) throws(ZMQError) -> Int64 {
        var value: Int64 = 0
        var size = MemoryLayout<Int64>.size
        try check(zmq_getsockopt(handle, option, &value, &size), "getsockopt \(name)")
        return value
    }

    /// Reads a NUL-terminated string option.
    public func stringOption(_ option: Int32, _ name: String) throws(ZMQError) -> String {
        var buffer = [CChar](repeating: 0, count: 1024)
        var size = buffer.count
        try check(zmq_getsockopt(handle, option, &buffer, &size), "getsockopt \(name)")
        let bytes = buffer.prefix(max(0, size - 1)).map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }

    private func setBool(_ option: Int32, _ value: Bool, _ name: String) throws(ZMQError) {
        try setOption(option, Int32(value ? 1 : 0), name)
    }

    /// Milliseconds to keep unsent messages after close (`ZMQ_LINGER`); -1 waits forever.
    public func setLinger(milliseconds: Int32) throws(ZMQError) { try setOption(ZMQ_LINGER, milliseconds, "LINGER") }
    /// The most messages queued for sending per peer (`ZMQ_SNDHWM`); 0 means no limit.
    public func setSendHighWaterMark(_ messages: Int32) throws(ZMQError) { try setOption(ZMQ_SNDHWM, messages, "SNDHWM") }
    /// The most messages queued on receipt per peer (`ZMQ_RCVHWM`); 0 means no limit.
    public func setReceiveHighWaterMark(_ messages: Int32) throws(ZMQError) { try setOption(ZMQ_RCVHWM, messages, "RCVHWM") }
    /// The largest inbound frame accepted; a peer sending more is disconnected (`ZMQ_MAXMSGSIZE`, -1 for no limit).
    public func setMaxMessageSize(_ bytes: Int64) throws(ZMQError) { try setOption(ZMQ_MAXMSGSIZE, bytes, "MAXMSGSIZE") }

    /// The kernel's receive buffer of the socket's connections, in bytes (a fixed size turns off its autotuning).
    public func setReceiveBufferSize(_ bytes: Int32) throws(ZMQError) { try setOption(ZMQ_RCVBUF, bytes, "RCVBUF") }
    /// Makes a ROUTER report unroutable messages (`EHOSTUNREACH`) and full peers (`EAGAIN`) instead of dropping silently.
    public func setRouterMandatory(_ on: Bool) throws(ZMQError) { try setBool(ZMQ_ROUTER_MANDATORY, on, "ROUTER_MANDATORY") }
    /// Queue messages only to completed connections (`ZMQ_IMMEDIATE`).
    public func setImmediate(_ on: Bool) throws(ZMQError) { try setBool(ZMQ_IMMEDIATE, on, "IMMEDIATE") }
    /// The first reconnect delay in milliseconds (`ZMQ_RECONNECT_IVL`).
    public func setReconnectInterval(milliseconds: Int32) throws(ZMQError) { try setOption(ZMQ_RECONNECT_IVL, milliseconds, "RECONNECT_IVL") }
    /// The longest reconnect delay with exponential backoff (`ZMQ_RECONNECT_IVL_MAX`).
    public func setReconnectIntervalMax(milliseconds: Int32) throws(ZMQError) { try setOption(ZMQ_RECONNECT_IVL_MAX, milliseconds, "RECONNECT_IVL_MAX") }
    /// Interval of ZMTP heartbeats (`ZMQ_HEARTBEAT_IVL`).
    public func setHeartbeatInterval(milliseconds: Int32) throws(ZMQError) { try setOption(ZMQ_HEARTBEAT_IVL, milliseconds, "HEARTBEAT_IVL") }
    /// How long to wait for a heartbeat reply before dropping the connection (`ZMQ_HEARTBEAT_TIMEOUT`).
    public func setHeartbeatTimeout(milliseconds: Int32) throws(ZMQError) { try setOption(ZMQ_HEARTBEAT_TIMEOUT, milliseconds, "HEARTBEAT_TIMEOUT") }
    /// The time-to-live the remote peer should apply to our heartbeats (`ZMQ_HEARTBEAT_TTL`).
    public func setHeartbeatTTL(milliseconds: Int32) throws(ZMQError) { try setOption(ZMQ_HEARTBEAT_TTL, milliseconds, "HEARTBEAT_TTL") }
    /// Receive timeout in milliseconds (`ZMQ_RCVTIMEO`), -1 blocks.
    public func setReceiveTimeout(milliseconds: Int32) throws(ZMQError) { try setOption(ZMQ_RCVTIMEO, milliseconds, "RCVTIMEO") }
    /// Send timeout in milliseconds (`ZMQ_SNDTIMEO`), -1 blocks.
    public func setSendTimeout(milliseconds: Int32) throws(ZMQError) { try setOption(ZMQ_SNDTIMEO, milliseconds, "SNDTIMEO") }
    /// The routing id this socket presents to ROUTER peers (`ZMQ_ROUTING_ID`).
    public func setRoutingId(_ id: [UInt8]) throws(ZMQError) { try setOption(ZMQ_ROUTING_ID, bytes: id, "ROUTING_ID") }

    /// The name the next `connect` gives its peer on a ROUTER socket, so that messages can go to it at once.
    public func setConnectRoutingId(_ id: [UInt8]) throws(ZMQError) { try setOption(ZMQ_CONNECT_ROUTING_ID, bytes: id, "CONNECT_ROUTING_ID") }
    /// Subscribes a SUB socket to a topic prefix (empty: everything).
    public func subscribe(_ prefix: String) throws(ZMQError) { try setOption(ZMQ_SUBSCRIBE, bytes: Array(prefix.utf8), "SUBSCRIBE") }
    /// Removes a subscription.
    public func unsubscribe(_ prefix: String) throws(ZMQError) { try setOption(ZMQ_UNSUBSCRIBE, bytes: Array(prefix.utf8), "UNSUBSCRIBE") }
    /// Makes this socket a CURVE server (`ZMQ_CURVE_SERVER`) with its secret key.
    public func makeCurveServer(secretKey: String) throws(ZMQError) {
        try setBool(ZMQ_CURVE_SERVER, true, "CURVE_SERVER")
        try setOption(ZMQ_CURVE_SECRETKEY, bytes: Array(secretKey.utf8), "CURVE_SECRETKEY")
    }
    /// Makes this socket a CURVE client of the server with `serverKey`, authenticating as `keyPair`.
    public func makeCurveClient(serverKey: String, keyPair: CurveKeyPair) throws(ZMQError) {
        try setOption(ZMQ_CURVE_SERVERKEY, bytes: Array(serverKey.utf8), "CURVE_SERVERKEY")
        try setOption(ZMQ_CURVE_PUBLICKEY, bytes: Array(keyPair.publicKey.utf8), "CURVE_PUBLICKEY")
        try setOption(ZMQ_CURVE_SECRETKEY, bytes: Array(keyPair.secretKey.utf8), "CURVE_SECRETKEY")
    }
    /// The ZAP domain the socket's peers are authenticated in (`ZMQ_ZAP_DOMAIN`).
    public func setZAPDomain(_ domain: String) throws(ZMQError) { try setOption(ZMQ_ZAP_DOMAIN, bytes: Array(domain.utf8), "ZAP_DOMAIN") }
}
