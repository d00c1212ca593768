import JSONRPC
import Logging
import Synchronization
import Locking
import ZeroMQ

/// Settings of an ``RPCServer``.
public struct RPCServerConfiguration: Sendable {
    /// Where to bind; `tcp://127.0.0.1:0` picks a free port.
    public var endpoint: String
    /// The largest request frame; a peer sending more is disconnected by libzmq and never reaches a handler.
    public var maxMessageSize: Int64 = 64 * 1024
    /// The most asynchronous requests in flight; beyond it the server stops reading, so peers' queues and
    /// then their high-water marks push back instead of memory growing.
    public var maxInFlight: Int = 1024
    /// The most inline replies held before they are handed to libzmq together (they also go as soon as no
    /// request is waiting). Sent one at a time while requests are still being read, replies wake libzmq's I/O
    /// thread for nearly every one and reach the kernel one `send` each; in batches the I/O thread takes many
    /// at once. Under load a reply waits for at most this many requests' handling; with one request in flight
    /// nothing waits. Too large a batch starves clients of answers, and leaves the I/O thread idle while the
    /// batch is made; too small a one wakes it too often (BENCHMARKS.md has the measurements).
    public var replyBatch: Int = 64
    /// Reply frames lent to libzmq from a pool instead of allocated one by one (see ``OutgoingBatch``), or `nil`.
    /// A reply larger than a slot, or one that finds the next slot still lent, is allocated as before. The default,
    /// 1,024 slots of 1 KiB, holds a launch answer and outlasts the replies of 1,024 requests in flight.
    public var replySlots: OutgoingBatch.Slots? = OutgoingBatch.Slots(size: 1024, count: 1024)
    /// Send and receive high-water marks, in messages per peer.
    public var highWaterMark: Int32 = 10_000
    /// How long the replies already handed to libzmq may still take to reach their peers once a graceful shutdown
    /// has closed the socket (its `ZMQ_LINGER` then; until then, `LINGER 0` as every socket of the wrapper). A peer
    /// that reads slowly, or not at all, holds the context's termination, so the process's exit, at most this long.
    public var shutdownLinger: Duration = .seconds(2)
    /// CURVE with a ZAP allowlist, or `nil` for a plain socket.
    public var curve: CurveServerOptions?
    /// A short name for the thread and the logs (`admin`, `sync`, `client`).
    public var name: String
    /// Counts the clients' connections and peers, when set.
    public var monitor: ConnectionMonitor?

    public init(endpoint: String, name: String = "rpc") {
        self.endpoint = endpoint
        self.name = name
    }
}

/// Counters of an ``RPCServer``, safe to read from any thread.
public final class RPCServerStats: Sendable {
    /// Messages taken from the socket.
    public let received = Atomic<Int>(0)
    /// Replies handed to libzmq.
    public let replied = Atomic<Int>(0)
    /// Replies dropped because the peer had gone or its queue was full.
    public let repliesDropped = Atomic<Int>(0)
    /// Messages dropped unanswered because their framing was unusable (too many frames).
    public let malformed = Atomic<Int>(0)
    /// Asynchronous requests being handled now.
    public let inFlight = Atomic<Int>(0)

    init() {}
}

/// A JSON-RPC 2.0 server on a ZeroMQ ROUTER socket.
///
/// One dedicated thread owns the socket. Every frame before the body is the envelope and is echoed, so REQ
/// peers (routing id, empty delimiter, body) and DEALER peers (with or without the delimiter) both work; a
/// message whose delimiter is followed by more than one frame is answered with -32600. Inline handlers run on
/// that thread; asynchronous ones run as tasks whose replies come back through a mailbox. Replies never block:
/// they are sent with `DONTWAIT` to a `ROUTER_MANDATORY` socket, and dropped (and counted) when the peer is
/// gone or not reading.
public final class RPCServer: Sendable {
    public let configuration: RPCServerConfiguration
    public let dispatcher: JSONRPCDispatcher
    public let stats = RPCServerStats()
    private let context: ZMQContext
    private let logger: Logger
    private let mailbox: Mailbox<Completion>
    private let state = Locked<State>(State())

    struct Completion: Sendable {
        let envelope: [[UInt8]]
        let body: [UInt8]?
    }

    private struct State {
        var thread: OwnerThread?
        var endpoint: String?
        var stopping = false
        var failure: ZMQError?
    }

    /// Why the loop ended without being asked to, if it did: ``run()`` then throws it, so that the service group, and
    /// the process, end with an error rather than a socket no longer served. (The context's termination is no failure.)
    public var failure: ZMQError? { state.withLock { $0.failure } }

    /// Logs the error that ends the loop, and keeps it as ``failure``.
    private func fail(_ message: Logger.Message, _ error: ZMQError) {
        logger.error(message, metadata: ["socket": "\(configuration.name)", "error": "\(error)"])
        if !error.contextTerminated { state.withLock { $0.failure = error } }
    }

    /// The most frames accepted in one message; longer messages are dropped unanswered.
    public static let maxFrames = 32

    public init(context: ZMQContext, dispatcher: JSONRPCDispatcher, configuration: RPCServerConfiguration,
                logger: Logger = Logger(label: "launchad.rpc")) throws(ZMQError) {
        self.context = context
        self.dispatcher = dispatcher
        self.configuration = configuration
        self.logger = logger
        self.mailbox = try Mailbox()
    }

    /// The endpoint really bound, once started.
    public var endpoint: String? { state.withLock { $0.endpoint } }

    /// Binds the socket and starts serving; returns the endpoint really bound.
    @discardableResult
    public func start() throws(ZMQError) -> String {
        let ready = Handoff<Result<String, ZMQError>>()
        let thread = OwnerThread(name: "rpc-\(configuration.name)") { [self] in
            let socket: Socket
            let bound: String
            do throws(ZMQError) {
                socket = try Socket(context, type: .router)
                try configuration.monitor?.watch(socket, context: context)
                try socket.setRouterMandatory(true)
                try socket.setMaxMessageSize(configuration.maxMessageSize)
                try socket.setSendHighWaterMark(configuration.highWaterMark)
                try socket.setReceiveHighWaterMark(configuration.highWaterMark)
                try configuration.curve?.apply(to: socket)
                bound = try socket.bind(configuration.endpoint)
            } catch {
                ready.put(.failure(error))
                return
            }
            ready.put(.success(bound))
            serve(socket)
            socket.close()
        }
        let bound = try ready.take().get()
        state.withLock {
            $0.thread = thread
            $0.endpoint = bound
        }
        logger.info("serving JSON-RPC", metadata: ["socket": "\(configuration.name)", "endpoint": "\(bound)"])
        return bound
    }

    /// Stops taking requests, finishes those in flight and sends their replies, then closes the socket.
    public func shutdown() async {
        beginShutdown()
        await stopped()
    }

    /// Starts a graceful shutdown without waiting for it.
    public func beginShutdown() {
        state.withLock { $0.stopping = true }
        mailbox.wake()
    }

    /// Returns once the server's thread has finished (at once if it never started).
    public func stopped() async {
        let thread = state.withLock { $0.thread }
        await thread?.joined()
    }

    private var isStopping: Bool { state.withLock { $0.stopping } }

    // MARK: The loop (on the owner thread)

    /// Gives the replies still queued ``RPCServerConfiguration/shutdownLinger`` to leave after the socket's close.
    private func lingerOnClose(_ socket: Socket) {
        let linger = configuration.shutdownLinger.components
        let milliseconds = linger.seconds * 1000 + linger.attoseconds / 1_000_000_000_000_000
        do {
            try socket.setLinger(milliseconds: Int32(clamping: max(0, milliseconds)))
        } catch {
            logger.warning("replies still queued may be dropped at close",
                           metadata: ["socket": "\(configuration.name)", "error": "\(error)"])
        }
    }

    private func serve(_ socket: Socket) {
        let frames = MultipartBuffer(capacity: Self.maxFrames)
        let replies = OutgoingBatch(pooled: configuration.replySlots)
        let scratch = JSONRPCDispatcher.Scratch()
        let curve = configuration.curve != nil
        let replyBatch = max(1, configuration.replyBatch)
        // The socket's descriptor and the mailbox's, waited on with poll(2): zmq_poll would read the socket's
        // commands before and after each sleep, which a receive that says EAGAIN has just done.
        var poller = DescriptorPoller()
        let socketIndex: Int
        do {
            socketIndex = poller.add(fd: try socket.signalDescriptor)
        } catch {
            fail("no descriptor to poll", error)
            return
        }
        let wakerIndex = poller.add(fd: mailbox.waker.fd)
        var inFlight = 0
        var stopping = false
        // Whether the last call on the socket was a receive that said EAGAIN: only then does its descriptor announce
        // the next request (see `Socket.signalDescriptor`), and only then may the loop sleep while reading.
        var drained = false
        while true {
            // Back-pressure: stop reading while too many requests are in flight, or once stopping.
            let reading = !stopping && inFlight < configuration.maxInFlight
            poller.setWatched(reading, at: socketIndex)
            do {
                try poller.poll(timeoutMilliseconds: reading && !drained ? 0 : -1)
            } catch {
                fail("poll failed", error)
                return
            }
            let completions = poller.isReadable(wakerIndex) ? mailbox.takeAll() : []
            // Asynchronous replies go out the same way as inline ones.
            for completion in completions {
                inFlight -= 1
                stats.inFlight.subtract(1, ordering: .relaxed)
                guard completion.body != nil || completion.envelope.last?.isEmpty == true else { continue }
                for frame in completion.envelope { frame.withUnsafeBytes { replies.append(copying: $0, last: false) } }
                (completion.body ?? []).withUnsafeBytes { appendBody($0, to: replies, held: true) }
            }
            if !replies.isEmpty {
                flush(replies, to: socket)
                drained = false
            }
            if !stopping && isStopping { stopping = true }
            if stopping {
                guard inFlight == 0 else { continue }
                // Every reply is now libzmq's to send: closing with `LINGER 0` would drop those still queued.
                lingerOnClose(socket)
                logger.info("stopped serving JSON-RPC", metadata: ["socket": "\(configuration.name)",
                                                                  "replied": "\(stats.replied.load(ordering: .relaxed))",
                                                                  "replies_dropped": "\(stats.repliesDropped.load(ordering: .relaxed))"])
                return
            }
            guard reading, !drained || poller.isReadable(socketIndex) else { continue }
            // Drain what is waiting, a bounded batch at a time so completions are not starved. Inline replies
            // wait in `replies` and go out together: every `replyBatch` requests, and when nothing more waits.
            drained = false
            var handled = 0
            while handled < 512 && inFlight < configuration.maxInFlight {
                let outcome: MultipartBuffer.Outcome
                do {
                    outcome = try frames.receive(from: socket, dontWait: true)
                } catch {
                    fail("receive failed", error)
                    flush(replies, to: socket)
                    return
                }
                switch outcome {
                case .wouldBlock:
                    // Sending takes in the socket's commands too: after the held replies go, look once more.
                    if !replies.isEmpty {
                        flush(replies, to: socket)
                        continue
                    }
                    drained = true
                    handled = Int.max
                    continue
                case .tooManyFrames:
                    // Counted in the drain's bound like any message: a stream of them must not starve completions.
                    stats.malformed.add(1, ordering: .relaxed)
                    handled += 1
                    continue
                case .message:
                    break
                }
                handled += 1
                stats.received.add(1, ordering: .relaxed)
                if handle(frames, replies: replies, curve: curve, scratch: scratch) {
                    inFlight += 1
                    stats.inFlight.add(1, ordering: .relaxed)
                }
                frames.clear()
                // The first reply of a drain goes at once: with one request in flight it is the only one, and
                // the reply should not wait for a look at an empty socket.
                if handled == 1 || replies.messageCount >= replyBatch { flush(replies, to: socket) }
            }
            flush(replies, to: socket)
        }
    }

    /// Handles the message in `frames`, queueing an inline reply in `replies`; returns `true` when it went on as
    /// an asynchronous request.
    private func handle(_ frames: MultipartBuffer, replies: OutgoingBatch, curve: Bool, scratch: JSONRPCDispatcher.Scratch) -> Bool {
        let count = frames.count
        guard count >= 2 else {
            stats.malformed.add(1, ordering: .relaxed)
            return false
        }
        // The envelope runs to the first empty frame (the delimiter) when there is one after the routing id,
        // otherwise it is every frame but the last.
        var delimiter: Int?
        for index in 1..<count where frames.frame(index).isEmpty {
            delimiter = index
            break
        }
        let envelopeEnd: Int  // exclusive
        let bodyIndex: Int
        if let delimiter, delimiter < count - 1 {
            envelopeEnd = delimiter + 1
            bodyIndex = delimiter + 1
            if count - bodyIndex > 1 {
                errorBody(.invalidRequest("the body must be one frame, got \(count - bodyIndex)")).withUnsafeBytes {
                    enqueue(frames, envelope: 0..<envelopeEnd, body: $0, in: replies)
                }
                return false
            }
        } else {
            envelopeEnd = count - 1
            bodyIndex = count - 1
        }
        var context = RPCContext()
        if curve { context.peerKey = frames.property(bodyIndex, "User-Id") }
        let outcome = dispatcher.dispatch(frames.frame(bodyIndex), context: context, scratch: scratch)
        switch outcome {
        case .reply(let body):
            body.withUnsafeBytes { enqueue(frames, envelope: 0..<envelopeEnd, body: $0, in: replies) }
            return false
        case .noReply:
            // A REQ peer must get something back or it wedges: one empty frame.
            if envelopeEnd > 1 && frames.frame(envelopeEnd - 1).isEmpty {
                enqueue(frames, envelope: 0..<envelopeEnd, body: UnsafeRawBufferPointer(start: nil, count: 0), in: replies)
            }
            return false
        case .deferred(let work):
            let envelope = (0..<envelopeEnd).map { frames.copy($0) }
            let mailbox = self.mailbox
            Task {
                let body = await work()
                mailbox.post(Completion(envelope: envelope, body: body))
            }
            return true
        }
    }

    private func errorBody(_ error: JSONRPCError) -> [UInt8] {
        var object = JSONObject()
        object["jsonrpc"] = "2.0"
        object["id"] = .null
        object["error"] = error.json
        return JSONValue.object(object).jsonBytes
    }

    /// Queues a reply: the envelope frames move out of `frames`, the body is copied.
    private func enqueue(_ frames: MultipartBuffer, envelope: Range<Int>, body: UnsafeRawBufferPointer, in replies: OutgoingBatch) {
        for index in envelope { replies.append(moving: index, of: frames) }
        appendBody(body, to: replies)
    }

    /// Appends a reply's body, the last frame of its message. A large one is held against the dispatcher's reply
    /// budget from now (or, `held`, an asynchronous reply, since the dispatcher made it) until libzmq lets go of it
    /// (written to the peer, or dropped with it).
    private func appendBody(_ body: UnsafeRawBufferPointer, to replies: OutgoingBatch, held: Bool = false) {
        guard body.count >= dispatcher.largeReply, let budget = dispatcher.replyBudget else {
            replies.append(copying: body, last: true)
            return
        }
        if !held { budget.hold(body.count) }
        replies.append(copying: body, last: true) { budget.release($0) }
    }

    private func flush(_ replies: OutgoingBatch, to socket: Socket) {
        guard !replies.isEmpty else { return }
        let result = replies.flush(to: socket)
        if result.sent > 0 { stats.replied.add(result.sent, ordering: .relaxed) }
        if result.dropped > 0 { stats.repliesDropped.add(result.dropped, ordering: .relaxed) }
        if let error = result.error {
            logger.warning("reply failed", metadata: ["socket": "\(configuration.name)", "error": "\(error)"])
        }
    }
}
