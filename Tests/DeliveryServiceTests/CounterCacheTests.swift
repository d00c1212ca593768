import LaunchAdRuntime
import Locking
import Prometheus
import Testing

@Suite("Counter cache", .timeLimit(.minutes(1)))
struct CounterCacheTests {
    /// The keys a cache asked the registry for, in order.
    private final class Made: Sendable {
        let keys = Locked<[MethodCode]>([])
    }

    /// A cache over `registry` that notes in `made` each key it asks the registry for.
    private static func cache(_ registry: PrometheusCollectorRegistry, made: Made) -> CounterCache<MethodCode> {
        CounterCache { key in
            made.keys.withLock { $0.append(key) }
            return registry.makeCounter(descriptor: MetricNames(subsystem: "test")("calls", unit: "total", help: "Calls."),
                                        labels: [("method", key.method), ("code", String(key.code))])
        }
    }

    @Test("each key's counter is made once and kept; other keys get their own")
    func madeOnce() {
        let registry = PrometheusCollectorRegistry()
        let made = Made()
        let counters = Self.cache(registry, made: made)
        let query = MethodCode(method: "launch.query", code: 0)
        let first = counters.counter(query)
        first.increment()
        #expect(counters.counter(query) === first)
        counters.counter(query).increment()
        let refused = MethodCode(method: "launch.query", code: -32602)
        #expect(counters.counter(refused) !== first)
        counters.counter(refused).increment()
        #expect(made.keys.withLock { $0 } == [query, refused])
        let text = HTTPEndpoint.metricsText(registry)
        #expect(text.contains(#"launchad_test_calls_total{method="launch.query",code="0"} 2"#))
        #expect(text.contains(#"launchad_test_calls_total{method="launch.query",code="-32602"} 1"#))
    }

    @Test("counts from many threads at once are all kept, each key's counter made once")
    func concurrent() async {
        let registry = PrometheusCollectorRegistry()
        let made = Made()
        let counters = Self.cache(registry, made: made)
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for index in 0..<5_000 { counters.counter(MethodCode(method: "m\((task + index) % 3)", code: 0)).increment() }
                }
            }
        }
        #expect(made.keys.withLock { $0.count } == 3)
        let text = HTTPEndpoint.metricsText(registry)
        let totals = (0..<3).compactMap { method in
            text.split(separator: "\n").first { $0.hasPrefix(#"launchad_test_calls_total{method="m\#(method)",code="0"} "#) }
                .flatMap { Int($0.split(separator: " ").last ?? "") }
        }
        #expect(totals.count == 3)
        #expect(totals.reduce(0, +) == 40_000)
    }
}
