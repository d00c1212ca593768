import LaunchAdRuntime
import Prometheus

/// Requests answered on the HTTP addresses, `launchad_deliveryd_http_requests_total`, by route, HTTP method,
/// status and protocol version. A connection keeps the counter of its last answer, so a run of like answers on a
/// connection finds it without the lock.
final class HTTPMetrics: Sendable {
    /// What a request is, for its `route` label.
    enum Route: String, Sendable {
        case rpc, launchAd = "launch_ad", creatives, ops, other
    }

    struct Key: Hashable, Sendable {
        var route: Route
        var method: String
        var status: Int
        var version: String
    }

    private let counters: CounterCache<Key>

    init(registry: PrometheusCollectorRegistry) {
        counters = CounterCache { key in
            registry.makeCounter(
                descriptor: EdgeMetrics.name("http_requests", unit: "total",
                                             help: "Requests answered on the HTTP addresses, by route, method, status and protocol version."),
                labels: [("route", key.route.rawValue), ("method", key.method), ("status", String(key.status)), ("protocol", key.version)])
        }
    }

    /// The counter of `key`, made on first use. Methods other than the few an edge serves count as `other`, so a
    /// client cannot grow the label set.
    func counter(_ key: Key) -> Counter {
        var key = key
        if !["GET", "HEAD", "POST"].contains(key.method) { key.method = "other" }
        return counters.counter(key)
    }
}

/// One connection's cache of its last counter.
struct HTTPCount {
    private var last: (key: HTTPMetrics.Key, counter: Counter)?

    mutating func count(_ key: HTTPMetrics.Key, in metrics: HTTPMetrics) {
        if let last, last.key == key {
            last.counter.increment()
            return
        }
        let counter = metrics.counter(key)
        counter.increment()
        last = (key, counter)
    }
}
