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
    let maxInFlight: Int
    let idleTimeout: TimeAmount
    let requestTimeout: TimeAmount
    private let inFlight = Atomic<Int>(0)

    init(dispatcher: JSONRPCDispatcher, configuration: DeliveryServiceConfiguration, metrics: HTTPMetrics, connections: HTTPConnectionMetrics,
         launchAd: @escaping @Sendable (LaunchRequest, inout JSONWriter) -> Void) {
        self.dispatcher = dispatcher
        self.launchAd = launchAd
        self.metrics = metrics
        self.connections = connections
        rateLimiter = configuration.rateLimit.map { HTTPRateLimiter(rate: $0) }
        maxBody = configuration.httpMaxBody
        maxInFlight = configuration.httpMaxInFlight
        idleTimeout = TimeAmount(configuration.httpIdleTimeout)
        requestTimeout = TimeAmount(configuration.httpBodyTimeout)
    }

    /// Requests whole but not yet answered, now.
    var requestsInFlight: Int { inFlight.load(ordering: .relaxed) }

    /// Takes a place for a request; `false` when all are taken (the request is answered 503).
    func enter() -> Bool {
        let now = inFlight.wrappingAdd(1, ordering: .relaxed).newValue
        guard now <= maxInFlight else {
            inFlight.subtract(1, ordering: .relaxed)
            return false
        }
        return true
    }

    func leave() {
        inFlight.subtract(1, ordering: .relaxed)
    }
}
