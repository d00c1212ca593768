import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import Prometheus
import Synchronization

/// How long an HTTP connection may take over its request heads and sit idle, and how many may be open at once.
public struct HTTPConnectionPolicy: Sendable {
    /// A connection whose request head is not complete this long after it began (its first byte, or the connection's
    /// start for the first request; a TLS handshake counts) is closed.
    public var headerTimeout: Duration
    /// A connection with nothing under way (no request being read, none being answered) for this long is closed, and
    /// so is one whose request body stalls as long; `nil` where the server above keeps its own idle timer.
    public var idleTimeout: Duration?
    /// Connections open at once past which a new one is closed as soon as it is accepted; `nil` for no bound.
    public var maxConnections: Int?

    public init(headerTimeout: Duration = Self.defaultHeaderTimeout, idleTimeout: Duration? = Self.defaultIdleTimeout,
                maxConnections: Int? = nil) {
        self.headerTimeout = headerTimeout
        self.idleTimeout = idleTimeout
        self.maxConnections = maxConnections
    }

    /// Ample for any client on a slow mobile link to send a few hundred bytes of head; short enough that a slow-head
    /// attacker pays a connection every 10 s.
    public static let defaultHeaderTimeout: Duration = .seconds(10)
    /// Long enough for a scraper's or browser's keep-alive between requests.
    public static let defaultIdleTimeout: Duration = .seconds(60)
    /// The bound on an operators' address (metrics, health, the console): a handful of scrapers and people use one, so
    /// this is far beyond them, and bounds the descriptors that slow clients (a body trickling in under the idle
    /// timeout) can hold there.
    public static let operatorsMaxConnections = 1024
}

/// Why a connection was closed by its server rather than by its peer, the `reason` label of
/// `launchad_<program>_http_connections_closed_total`.
public enum HTTPCloseReason: String, Sendable, CaseIterable {
    /// Its request head was not complete within the header timeout.
    case headerTimeout = "header_timeout"
    /// It sat idle (or its body stalled) past the idle timeout.
    case idleTimeout = "idle_timeout"
    /// Its request body was not complete within the body timeout (deliveryd's own paths, answered 408).
    case bodyTimeout = "body_timeout"
    /// It came while the address had its maximum of connections open.
    case connectionLimit = "connection_limit"
}

/// An HTTP address's connection counts: `launchad_<program>_http_connections_open{address}` and
/// `launchad_<program>_http_connections_closed_total{address,reason}`.
public final class HTTPConnectionMetrics: Sendable {
    private let open: Gauge
    private let closed: [HTTPCloseReason: Counter]

    /// `address` names the address in the labels (`public`, `ops`, `http`, `console`).
    public init(registry: PrometheusCollectorRegistry, names: MetricNames, address: String) {
        open = registry.makeGauge(descriptor: names("http_connections_open", help: "HTTP connections open, by address."),
                                  labels: [("address", address)])
        let descriptor = names("http_connections_closed", unit: "total",
                               help: "HTTP connections the server closed, by address and reason: a head or body too slow, idle too long, or past the address's connection bound.")
        var counters: [HTTPCloseReason: Counter] = [:]
        for reason in HTTPCloseReason.allCases {
            counters[reason] = registry.makeCounter(descriptor: descriptor, labels: [("address", address), ("reason", reason.rawValue)])
        }
        closed = counters
    }

    public func closed(_ reason: HTTPCloseReason) {
        closed[reason]?.increment()
    }

    fileprivate func opened() { open.increment() }
    fileprivate func gone() { open.decrement() }
}

/// Holds an HTTP address to its ``HTTPConnectionPolicy``: it admits each connection (or closes it past the bound),
/// and watches its request heads and idle time. Every server the programs open is built through one.
///
/// The watch is two handlers: one at the front of the connection's pipeline (before TLS, where there is TLS), which
/// sees bytes arrive and owns the timer, and one right after the HTTP/1.1 parser, which tells it where each request
/// begins and ends and when each answer ends. Hummingbird's own idle timer is not used, as it counts nothing.
public final class HTTPConnectionGate: Sendable {
    public let policy: HTTPConnectionPolicy
    public let metrics: HTTPConnectionMetrics
    private let open = Atomic<Int>(0)

    public init(policy: HTTPConnectionPolicy, metrics: HTTPConnectionMetrics) {
        self.policy = policy
        self.metrics = metrics
    }

    /// Connections open now.
    public var connectionsOpen: Int { open.load(ordering: .relaxed) }

    /// A plain HTTP/1.1 server watched by this gate (`configuration`'s own handlers come first).
    public func http1(_ configuration: HTTP1Channel.Configuration = .init()) -> HTTPServerBuilder {
        var watched = configuration
        watched.additionalChannelHandlers = Self.adding(to: configuration.additionalChannelHandlers)
        let final = watched
        return server { HTTP1Channel(responder: $0, configuration: final) }
    }

    /// The server `make` builds, each connection admitted and watched by this gate. The HTTP/1.1 configurations in
    /// it must end their handlers with ``adding(to:)``'s.
    public func server<Child: ServerChildChannel>(_ make: @escaping @Sendable (@escaping HTTPChannelHandler.Responder) throws -> Child)
        -> HTTPServerBuilder {
        HTTPServerBuilder { responder in GatedChildChannel(inner: try make(responder), gate: self) }
    }

    /// `handlers` followed by the handler that puts the request watch right after the HTTP/1.1 parser (after the
    /// handlers placed there before it, so that it sees every request first).
    public static func adding(to handlers: @escaping @Sendable () -> [any RemovableChannelHandler])
        -> @Sendable () -> [any RemovableChannelHandler] {
        { handlers() + [HTTPRequestWatchInstaller()] }
    }

    /// Counts a connection in, or `false` (counted as refused) when the address has its maximum open.
    fileprivate func admit(_ channel: any Channel) -> Bool {
        let now = open.wrappingAdd(1, ordering: .relaxed).newValue
        if let max = policy.maxConnections, now > max {
            open.subtract(1, ordering: .relaxed)
            metrics.closed(.connectionLimit)
            return false
        }
        metrics.opened()
        channel.closeFuture.whenComplete { [self] _ in
            open.subtract(1, ordering: .relaxed)
            metrics.gone()
        }
        return true
    }
}

/// A connection refused by the gate's bound (the child channel's set-up fails with it, after closing the connection).
struct HTTPConnectionRefused: Error {}

/// A server's child channel with the gate in front: admission first, then the connection watch, then the server's
/// own set-up.
struct GatedChildChannel<Inner: ServerChildChannel>: ServerChildChannel {
    typealias Value = Inner.Value
    let inner: Inner
    let gate: HTTPConnectionGate

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        guard gate.admit(channel) else {
            // The failure is dropped by the server's accept loop; the connection must be closed here.
            channel.close(promise: nil)
            return channel.eventLoop.makeFailedFuture(HTTPConnectionRefused())
        }
        do {
            try channel.pipeline.syncOperations.addHandler(HTTPConnectionWatch(gate: gate), position: .first)
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return inner.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}

/// The front of a connection's pipeline: when its current request head began, whether anything is under way, and the
/// timer that closes it past the header or idle timeout.
final class HTTPConnectionWatch: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private let gate: HTTPConnectionGate
    private var context: ChannelHandlerContext?
    /// When the head awaited began; `nil` while none is awaited or no byte of it came yet.
    private var headSince: NIODeadline?
    private var awaitingHead = true
    /// Between a request's head and its end.
    private var readingBody = false
    /// Requests whose answer has not ended.
    private var answering = 0
    /// Since when nothing was under way (or the body being read last moved).
    private var idleSince = NIODeadline.now()
    /// HTTP/2: streams are the server's business, and its idle timer's.
    private var multiplexed = false
    private var timer: Scheduled<Void>?
    private var timerDeadline: NIODeadline?

    init(gate: HTTPConnectionGate) {
        self.gate = gate
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if context.channel.isActive { started() }
    }

    func channelActive(context: ChannelHandlerContext) {
        started()
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stop()
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        stop()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if awaitingHead && headSince == nil && !multiplexed {
            let now = NIODeadline.now()
            headSince = now
            arm(at: now + TimeAmount(gate.policy.headerTimeout))
        }
        context.fireChannelRead(data)
    }

    private func started() {
        guard timerDeadline == nil, !multiplexed else { return }
        let now = NIODeadline.now()
        headSince = now
        idleSince = now
        arm(at: now + TimeAmount(gate.policy.headerTimeout))
    }

    private func stop() {
        timer?.cancel()
        timer = nil
        timerDeadline = nil
    }

    // MARK: What the request watch tells

    func headRead() {
        awaitingHead = false
        headSince = nil
        readingBody = true
        answering += 1
        idleSince = .now()
    }

    func bodyRead() {
        idleSince = .now()
    }

    func requestRead() {
        readingBody = false
        awaitingHead = true
    }

    func answered() {
        answering = max(0, answering - 1)
        if answering == 0 { idleSince = .now() }
    }

    /// The connection speaks HTTP/2: no more heads to time here.
    func becameMultiplexed() {
        multiplexed = true
        headSince = nil
        awaitingHead = false
        stop()
    }

    // MARK: The timer

    /// Makes the timer fire at `deadline` at the latest.
    private func arm(at deadline: NIODeadline) {
        guard let context else { return }
        if let current = timerDeadline, current <= deadline { return }
        timer?.cancel()
        timerDeadline = deadline
        timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in tick() }
    }

    private func tick() {
        timer = nil
        timerDeadline = nil
        guard let context, context.channel.isActive, !multiplexed else { return }
        let now = NIODeadline.now()
        let header = TimeAmount(gate.policy.headerTimeout)
        var next = now + header
        if let since = headSince {
            if now - since >= header { return close(context, .headerTimeout) }
            next = since + header
        } else if let idle = gate.policy.idleTimeout.map(TimeAmount.init), readingBody || answering == 0 {
            if now - idleSince >= idle { return close(context, .idleTimeout) }
            next = idleSince + idle
        } else if let idle = gate.policy.idleTimeout.map(TimeAmount.init) {
            // An answer under way: looked at again later, as a head or idle time that begins meanwhile re-arms.
            next = now + idle
        }
        arm(at: next)
    }

    private func close(_ context: ChannelHandlerContext, _ reason: HTTPCloseReason) {
        gate.metrics.closed(reason)
        context.close(promise: nil)
    }
}

/// Right after the HTTP/1.1 parser: tells the connection's watch where requests begin and end, and when answers end.
/// (deliveryd's own answers are written below it, so on its public address the watch keeps no idle timer.)
final class HTTPRequestWatch: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let watch: HTTPConnectionWatch

    init(watch: HTTPConnectionWatch) {
        self.watch = watch
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head: watch.headRead()
        case .body: watch.bodyRead()
        case .end: watch.requestRead()
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { watch.answered() }
        context.write(data, promise: promise)
    }
}

/// Placed among a server's HTTP/1.1 handlers: puts the request watch right after the parser. On an HTTP/2 stream
/// (no parser, a parent connection) it tells the connection's watch that heads are no longer its to time.
final class HTTPRequestWatchInstaller: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    func handlerAdded(context: ChannelHandlerContext) {
        let pipeline = context.pipeline.syncOperations
        if let watch = try? pipeline.handler(type: HTTPConnectionWatch.self) {
            guard let parser = try? pipeline.context(handlerType: ByteToMessageHandler<HTTPRequestDecoder>.self) else { return }
            do {
                try pipeline.addHandler(HTTPRequestWatch(watch: watch), position: .after(parser.handler))
            } catch {
                context.fireErrorCaught(error)
            }
        } else if let parent = context.channel.parent, let watch = try? parent.pipeline.syncOperations.handler(type: HTTPConnectionWatch.self) {
            watch.becameMultiplexed()
        }
    }
}
