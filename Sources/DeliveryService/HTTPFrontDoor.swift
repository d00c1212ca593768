import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdRuntime
import NIOCore
import Synchronization

/// What the edge's own HTTP paths (`POST /rpc`, `GET /launch-ad`) share over every connection: the client socket's
/// dispatcher, the launch answer, the limits and the count of requests being answered, the metrics and the rate limit.
final class HTTPFrontDoor: Sendable {
    let dispatcher: JSONRPCDispatcher
    /// Decides a launch and writes its classic envelope.
    let launchAd: @Sendable (LaunchRequest, inout JSONWriter) -> Void
    let metrics: HTTPMetrics
    /// The public address's connection counts (the body and idle timeouts are counted here).
    let connections: HTTPConnectionMetrics
    let rateLimiter: HTTPRateLimiter?
    let maxBody: Int
    /// The most bytes of `/rpc` bodies being received at once over all connections: the connection limit times the body
    /// limit. HTTP/1.1 keeps within it by itself (one body at a time a connection); an HTTP/2 connection receives a body
    /// on each of its streams (up to 100 at once), and a body that would pass the bound is refused (503) rather than held.
    let maxBodyBytes: Int
    let maxInFlight: Int
    let idleTimeout: TimeAmount
    let requestTimeout: TimeAmount
    private let inFlight = Atomic<Int>(0)
    private let bodyBytes = Atomic<Int>(0)

    init(dispatcher: JSONRPCDispatcher, configuration: DeliveryServiceConfiguration, metrics: HTTPMetrics, connections: HTTPConnectionMetrics,
         launchAd: @escaping @Sendable (LaunchRequest, inout JSONWriter) -> Void) {
        self.dispatcher = dispatcher
        self.launchAd = launchAd
        self.metrics = metrics
        self.connections = connections
        rateLimiter = configuration.rateLimit.map { HTTPRateLimiter(rate: $0) }
        maxBody = configuration.httpMaxBody
        let (bound, overflow) = configuration.httpMaxConnections.multipliedReportingOverflow(by: configuration.httpMaxBody)
        maxBodyBytes = overflow ? .max : bound
        maxInFlight = configuration.httpMaxInFlight
        idleTimeout = TimeAmount(configuration.httpIdleTimeout)
        requestTimeout = TimeAmount(configuration.httpBodyTimeout)
    }

    /// Requests whole but not yet answered, now.
    var requestsInFlight: Int { inFlight.load(ordering: .relaxed) }

    /// Takes a place for a request; `false` when all are taken (the request is answered 503).
    func enter() -> Bool {
        Self.add(1, to: inFlight, within: maxInFlight)
    }

    func leave() {
        inFlight.subtract(1, ordering: .relaxed)
    }

    /// Holds `bytes` more of a body being received; `false` (nothing held) when they would pass ``maxBodyBytes``.
    func holdBody(_ bytes: Int) -> Bool {
        Self.add(bytes, to: bodyBytes, within: maxBodyBytes)
    }

    func releaseBody(_ bytes: Int) {
        if bytes > 0 { bodyBytes.subtract(bytes, ordering: .relaxed) }
    }

    /// Adds `amount` to `counter` in one step, unless the sum passes `bound`: then takes it back and says so (`false`).
    private static func add(_ amount: Int, to counter: borrowing Atomic<Int>, within bound: Int) -> Bool {
        guard counter.wrappingAdd(amount, ordering: .relaxed).newValue <= bound else {
            counter.subtract(amount, ordering: .relaxed)
            return false
        }
        return true
    }
}
