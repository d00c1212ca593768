import JSONRPC
import Logging
import Synchronization
import Locking
import ZeroMQ

/// Publishes two-frame messages (topic, JSON-RPC notification) on a PUB socket owned by its own thread.
///
/// ``publish(topic:method:params:)`` may be called from any thread; messages leave in the order of the calls.
/// PUB never blocks: a subscriber that falls behind its high-water mark loses messages, which is why the
/// stream carries sequence numbers.
public final class Publisher: Sendable {
    public struct Configuration: Sendable {
        public var endpoint: String
        /// The most messages queued for one subscriber that does not keep up; past it, that subscriber loses messages.
        public var highWaterMark: Int32 = 100_000
        /// The most bytes queued for one subscriber, or `nil` for ``highWaterMark`` messages whatever their size.
        ///
        /// libzmq bounds a subscriber's queue in messages alone (`ZMQ_SNDHWM`), so a subscriber that stops reading
        /// while large messages go out would hold ``highWaterMark`` times the largest of them. With a bound in bytes
        /// the mark is lowered to as many of the largest messages as fit in it (``largestMessage``), at least one,
        /// and a message larger than that is not published at all (counted in ``Publisher/oversized``): whatever the
        /// sizes, the queue holds no more than the bound. (`ZMQ_SNDBUF` only bounds the kernel's buffer behind the
        /// queue, which is not the process's memory.) The cost is that a subscriber falling behind by that many
        /// messages, small ones too, loses the rest, as it loses an oversized one: the stream's sequence numbers let
        /// it notice, and it fetches what it missed.
        public var maxQueuedBytes: Int?
        /// The most bytes one message may take (the topic and the notification) when ``maxQueuedBytes`` is set.
        public var largestMessage = 256 * 1024
        public var curve: CurveServerOptions?
        public var name = "updates"
        /// Counts the subscribers' connections and peers, when set.
        public var monitor: ConnectionMonitor?
        public init(endpoint: String) { self.endpoint = endpoint }

        /// The high-water mark set on the socket: ``highWaterMark``, lowered to what ``maxQueuedBytes`` allows.
        public var effectiveHighWaterMark: Int32 {
            guard let maxQueuedBytes else { return highWaterMark }
            let fitting = max(1, maxQueuedBytes / max(1, largestMessage))
            return Int32(min(Int(highWaterMark), fitting))
        }
    }

    public let configuration: Configuration
    private let context: ZMQContext
    private let mailbox: Mailbox<Outgoing>
    private let state = Locked<(thread: OwnerThread?, endpoint: String?)>((nil, nil))
    /// Messages handed to libzmq.
    public let published = Atomic<Int>(0)
    /// Messages not published because they were larger than ``Configuration/largestMessage`` allows.
    public let oversized = Atomic<Int>(0)

    enum Outgoing: Sendable {
        case message(topic: [UInt8], body: [UInt8])
        case stop
    }

    public init(context: ZMQContext, configuration: Configuration) throws(ZMQError) {
        self.context = context
        self.configuration = configuration
        self.mailbox = try Mailbox()
    }

    /// The endpoint really bound, once started.
    public var endpoint: String? { state.withLock { $0.endpoint } }

    /// Binds and starts; returns the endpoint really bound.
    @discardableResult
    public func start() throws(ZMQError) -> String {
        let ready = Handoff<Result<String, ZMQError>>()
        let thread = OwnerThread(name: "pub-\(configuration.name)") { [self] in
            let socket: Socket
            let bound: String
            do throws(ZMQError) {
                socket = try Socket(context, type: .pub)
                try configuration.monitor?.watch(socket, context: context)
                try socket.setSendHighWaterMark(configuration.effectiveHighWaterMark)
                try configuration.curve?.apply(to: socket)
                bound = try socket.bind(configuration.endpoint)
            } catch {
                ready.put(.failure(error))
                return
            }
            ready.put(.success(bound))
            run(socket)
            socket.close()
        }
        let bound = try ready.take().get()
        state.withLock { $0 = (thread, bound) }
        return bound
    }

    /// Publishes a JSON-RPC notification under `topic`.
    public func publish(topic: String, method: String, params: JSONValue) {
        publish(topic: topic, body: PublishedMessage.notificationBody(method: method, params: params))
    }

    /// Publishes an already encoded body under `topic` (not when it is larger than a bound in bytes allows).
    public func publish(topic: String, body: [UInt8]) {
        if configuration.maxQueuedBytes != nil && topic.utf8.count + body.count > configuration.largestMessage {
            oversized.add(1, ordering: .relaxed)
            return
        }
        mailbox.post(.message(topic: Array(topic.utf8), body: body))
    }

    /// Sends what was already published, then closes the socket.
    public func shutdown() async {
        beginShutdown()
        await stopped()
    }

    /// Asks the publisher to stop after what was already published.
    public func beginShutdown() {
        mailbox.post(.stop)
    }

    /// Returns once the publisher's thread has finished (at once if it never started).
    public func stopped() async {
        let thread = state.withLock { $0.thread }
        await thread?.joined()
    }

    private func run(_ socket: Socket) {
        var poller = Poller()
        poller.add(fd: mailbox.waker.fd)
        while true {
            _ = try? poller.poll(timeoutMilliseconds: -1)
            for item in mailbox.takeAll() {
                switch item {
                case .stop:
                    return
                case .message(let topic, let body):
                    if (try? socket.send(parts: [topic, body], dontWait: true)) == true {
                        published.add(1, ordering: .relaxed)
                    }
                }
            }
        }
    }
}

/// One message from a ``Subscriber``: the topic and the notification it carried, kept as the bytes received. Its
/// params are decoded from those bytes when asked for (``params(as:)``), into the type wanted, with no tree of
/// ``JSONValue``s between.
public struct PublishedMessage: Sendable, Equatable {
    public var topic: String
    public var method: String
    /// The JSON-RPC notification's text.
    public var body: [UInt8]

    /// A message carrying a notification of `method` with `params`.
    public init(topic: String, method: String, params: JSONValue) {
        self.init(topic: topic, method: method, body: Self.notificationBody(method: method, params: params))
    }

    /// The text of a JSON-RPC notification of `method` with `params`, as published (and as the RPC client sends one).
    static func notificationBody(method: String, params: JSONValue) -> [UInt8] {
        jsonRPCText(id: nil, method: method) { $0.write(params) }
    }

    /// The same text for params that write themselves: the same bytes, with no tree of values between.
    static func notificationBody(method: String, writing params: some JSONWritable, reservingCapacity: Int) -> [UInt8] {
        jsonRPCText(id: nil, method: method, reservingCapacity: reservingCapacity) { params.write(json: &$0) }
    }

    init(topic: String, method: String, body: [UInt8]) {
        self.topic = topic
        self.method = method
        self.body = body
    }

    /// The params as a ``JSONValue`` (`null` when absent): for messages read member by member.
    public var params: JSONValue {
        guard case .object(let object)? = try? JSONParser.parse(body) else { return .null }
        return object["params"] ?? .null
    }
}

/// What a subscriber reads of a notification before handing it on: that it is JSON-RPC 2.0, and its method. Other
/// members (the params) are passed over here.
private struct NotificationHead: Decodable, JSONReadable {
    let method: String

    init(json: JSONReader) throws {
        let object = try json.object(fields: ["jsonrpc", "method"])
        guard try object.require("jsonrpc").string() == "2.0" else {
            throw DecodingError.dataCorrupted(.init(codingPath: json.codingPath, debugDescription: "is not a JSON-RPC 2.0 notification"))
        }
        method = try object.require("method").string()
    }

    init(from decoder: any Decoder) throws {
        let object = try decoder.container(keyedBy: PathKey.self)
        guard try object.decode(String.self, forKey: PathKey(stringValue: "jsonrpc")) == "2.0" else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "is not a JSON-RPC 2.0 notification"))
        }
        method = try object.decode(String.self, forKey: PathKey(stringValue: "method"))
    }
}

/// A notification's params as `Params`, the other members passed over.
private struct NotificationParams<Params: Decodable>: Decodable, JSONReadable {
    let params: Params

    init(json: JSONReader) throws {
        params = try json.object(fields: ["params"]).require("params").decode(Params.self)
    }

    init(from decoder: any Decoder) throws {
        params = try decoder.container(keyedBy: PathKey.self).decode(Params.self, forKey: PathKey(stringValue: "params"))
    }
}

/// A notification's params as `Params`, which reads itself: its reader called directly.
private struct ReadableNotificationParams<Params: JSONReadable>: Decodable, JSONReadable {
    let params: Params

    init(json: JSONReader) throws {
        params = try Params(json: json.object(fields: ["params"]).require("params"))
    }

    init(from decoder: any Decoder) throws {
        params = try decoder.container(keyedBy: PathKey.self).decode(Params.self, forKey: PathKey(stringValue: "params"))
    }
}

/// Subscribes to topics on a PUB socket and yields its (topic, JSON-RPC notification) messages in order.
/// Its thread runs until ``stop()``.
public final class Subscriber: Sendable {
    public struct Configuration: Sendable {
        /// The publisher's endpoint, or several, comma-separated (see ``EndpointList``).
        public var endpoint: String
        /// Topic prefixes; empty subscribes to everything.
        public var topics: [String]
        public var highWaterMark: Int32 = 100_000
        /// Messages buffered between the socket and the consumer before the newest are dropped.
        public var bufferLimit: Int = 100_000
        public var curve: CurveClientOptions?
        public var name = "updates"
        /// How many nice values below the process's the subscriber's thread runs, where the process may lower a nice
        /// (``ProcessNice/raiseCurrentThread(by:)``); 0 keeps it at the process's. With a handler, that thread is where
        /// messages are handled.
        public var priorityBoost: Int32 = 0
        public init(endpoint: String, topics: [String]) {
            self.endpoint = endpoint
            self.topics = topics
        }
    }

    public let configuration: Configuration
    /// The messages received, in order.
    public let messages: AsyncStream<PublishedMessage>
    /// Messages that were not a two-frame topic and notification.
    public let malformed = Atomic<Int>(0)
    /// Messages dropped because the consumer fell behind ``Configuration/bufferLimit``.
    public let dropped = Atomic<Int>(0)
    /// Whether the thread runs ahead of the process's others, as ``Configuration/priorityBoost`` asked: false when it
    /// asked for 0, or when the process may not lower a nice.
    public var priorityRaised: Bool { raised.load(ordering: .acquiring) }
    private let raised = Atomic<Bool>(false)
    private let continuation: AsyncStream<PublishedMessage>.Continuation
    private let mailbox: Mailbox<Never>
    private let stopping = Atomic<Bool>(false)
    private let thread = Locked<OwnerThread?>(nil)

    /// Called on the subscriber's thread with each message, instead of ``messages``, when given, and whether another
    /// message was already waiting behind it (a backlog).
    private let handler: (@Sendable (PublishedMessage, _ backlog: Bool) -> Void)?

    /// Connects and subscribes; messages start arriving once the connection is made. With `handler`, each message
    /// goes to it on the subscriber's thread, in order, as soon as it is read (one thread hop fewer than
    /// ``messages``, whose stream then stays empty); the handler must be quick and must not block.
    public init(context: ZMQContext, configuration: Configuration,
                handler: (@Sendable (PublishedMessage, _ backlog: Bool) -> Void)? = nil) throws(ZMQError) {
        self.configuration = configuration
        self.handler = handler
        (messages, continuation) = AsyncStream.makeStream(of: PublishedMessage.self,
                                                           bufferingPolicy: .bufferingOldest(configuration.bufferLimit))
        mailbox = try Mailbox()
        let ready = Handoff<Result<Void, ZMQError>>()
        let started = OwnerThread(name: "sub-\(configuration.name)") { [self] in
            if configuration.priorityBoost > 0 && ProcessNice.raiseCurrentThread(by: configuration.priorityBoost) {
                raised.store(true, ordering: .releasing)
            }
            let socket: Socket
            do throws(ZMQError) {
                socket = try Socket(context, type: .sub)
                try socket.setReceiveHighWaterMark(configuration.highWaterMark)
                try configuration.curve?.apply(to: socket)
                for topic in configuration.topics.isEmpty ? [""] : configuration.topics { try socket.subscribe(topic) }
                for endpoint in EndpointList.split(configuration.endpoint) { try socket.connect(endpoint) }
            } catch {
                ready.put(.failure(error))
                return
            }
            ready.put(.success(()))
            run(socket)
            socket.close()
            continuation.finish()
        }
        try ready.take().get()
        thread.withLock { $0 = started }
    }

    /// Disconnects; the message stream finishes.
    public func stop() async {
        stopping.store(true, ordering: .releasing)
        mailbox.wake()
        let running = thread.withLock { current in
            defer { current = nil }
            return current
        }
        await running?.joined()
    }

    private func run(_ socket: Socket) {
        var poller = Poller()
        let socketIndex = poller.add(socket)
        let mailboxIndex = poller.add(fd: mailbox.waker.fd)
        while !stopping.load(ordering: .acquiring) {
            _ = try? poller.poll(timeoutMilliseconds: -1)
            // The mailbox only wakes the loop to stop: it is read when it woke it (a syscall fewer a message).
            if poller.ready(mailboxIndex).contains(.readable) { _ = mailbox.takeAll() }
            guard poller.ready(socketIndex).contains(.readable) else { continue }
            // One message read ahead: the handler hears whether another was already waiting behind each.
            var next = receive(socket)
            while let message = next {
                next = receive(socket)
                if let handler {
                    handler(message, next != nil)
                } else if case .dropped = continuation.yield(message) {
                    dropped.add(1, ordering: .relaxed)
                }
            }
        }
    }

    /// Members a notification's reader does not know are passed over, so a publisher may add some.
    static let lenient = JSONValueDecoder(rejectUnknownKeys: false)

    /// The next well-formed message waiting on the socket, if any (malformed ones are counted and skipped).
    private func receive(_ socket: Socket) -> PublishedMessage? {
        while let parts = try? socket.receiveParts(dontWait: true) {
            guard parts.count == 2, let topic = String(validating: parts[0], as: UTF8.self),
                  let head = try? Self.lenient.decode(NotificationHead.self, fromJSON: parts[1]) else {
                malformed.add(1, ordering: .relaxed)
                continue
            }
            return PublishedMessage(topic: topic, method: head.method, body: parts[1])
        }
        return nil
    }
}

extension Publisher {
    /// Publishes `params` as `notification`, under its topic. Params that cannot be encoded are not published.
    public func publish<Params>(_ notification: StreamNotification<Params>, _ params: Params) {
        guard let value = try? JSONValueEncoder().encode(params) else { return }
        publish(topic: notification.topic, method: notification.method, params: value)
    }

    /// Publishes `params`, which write themselves, as `notification`, under its topic: the same bytes as the generic
    /// encoding gives, with no tree of values between.
    public func publish<Params: JSONWritable>(_ notification: StreamNotification<Params>, _ params: Params) {
        publish(topic: notification.topic,
                body: PublishedMessage.notificationBody(method: notification.method, writing: params, reservingCapacity: 1024))
    }
}

extension PublishedMessage {
    /// Whether the message is `notification` (by its method).
    public func `is`<Params>(_ notification: StreamNotification<Params>) -> Bool {
        method == notification.method
    }

    /// The message's params as `notification`'s, or `nil` when it is another notification or its params do not
    /// decode (members it does not know are ignored, so a publisher may add some).
    public func params<Params>(as notification: StreamNotification<Params>) -> Params? {
        guard method == notification.method else { return nil }
        return try? Subscriber.lenient.decode(NotificationParams<Params>.self, fromJSON: body).params
    }

    /// The message's params as `notification`'s, for params that read themselves (a change, a heartbeat).
    public func params<Params: JSONReadable>(as notification: StreamNotification<Params>) -> Params? {
        guard method == notification.method else { return nil }
        return try? Subscriber.lenient.decode(ReadableNotificationParams<Params>.self, fromJSON: body).params
    }
}
