import Foundation
import JSONRPC
import Prometheus
import Synchronization

/// deliveryd's Prometheus metrics, `launchad_deliveryd_*`. Counters on the query path are plain atomics; the
/// registry's gauges are brought up to date at each scrape.
final class EdgeMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    private let ads = Atomic<Int>(0)
    private let noAds = Atomic<Int>(0)
    private let gauges: [String: Gauge]
    private let cache: CreativeCache
    private let cacheHealth: CacheHealth

    static func name(_ metric: String, unit: String = "", help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "launchad", subsystem: "deliveryd", metricName: metric, unitName: unit, helpText: help)
    }

    init(cache: CreativeCache, cacheHealth: CacheHealth) {
        self.cache = cache
        self.cacheHealth = cacheHealth
        let queries = Self.name("queries", unit: "total", help: "Launch queries answered, by result.")
        gauges = [
            "ad": registry.makeGauge(descriptor: queries, labels: [("result", "ad")]),
            "noAd": registry.makeGauge(descriptor: queries, labels: [("result", "no_ad")]),
            "seq": registry.makeGauge(descriptor: Self.name("applied_seq", help: "Sequence number of the state answered from.")),
            "lag": registry.makeGauge(descriptor: Self.name("lag", unit: "changes", help: "How far the applied seq is behind the last heartbeat.")),
            "stale": registry.makeGauge(descriptor: Self.name("stale", help: "1 when campaignd has not been heard from for three heartbeats.")),
            "skew": registry.makeGauge(descriptor: Self.name("clock_skew", unit: "seconds", help: "campaignd's clock minus this edge's.")),
            "resyncs": registry.makeGauge(descriptor: Self.name("resyncs", unit: "total", help: "Snapshots taken.")),
            "gaps": registry.makeGauge(descriptor: Self.name("gaps", unit: "total", help: "Times the edge found itself behind and caught up.")),
            "campaigns": registry.makeGauge(descriptor: Self.name("campaigns", help: "Campaigns in the state.")),
            "creatives": registry.makeGauge(descriptor: Self.name("creatives", help: "Creatives held, verified.")),
            "cacheBytes": registry.makeGauge(descriptor: Self.name("creative_cache", unit: "bytes", help: "Bytes of creatives held.")),
            "devices": registry.makeGauge(descriptor: Self.name("devices", help: "Devices remembered for caps and rotation.")),
            "memory": registry.makeGauge(descriptor: Self.name("creative_memory", unit: "bytes", help: "Bytes of hot creatives held in memory.")),
            "hitRatio": registry.makeGauge(descriptor: Self.name("creative_cache_hit_ratio", help: "Share of creative reads served from memory.")),
            "writable": registry.makeGauge(descriptor: Self.name("cache_writable", help: "0 while the cache folder refuses writes (answering from memory).")),
            "writeFailures": registry.makeGauge(descriptor: Self.name("cache_write_failures", unit: "total", help: "Writes to the cache folder that failed.")),
        ]
    }

    /// Times every call on the client socket, by method.
    func callObserver() -> JSONRPCDispatcher.CallObserver {
        var histograms: [String: DurationHistogram] = [:]
        for method in ["launch.query", "launch.prefetch", "launch.report", "creative.get", "edge.status", "rpc.discover"] {
            histograms[method] = registry.makeDurationHistogram(
                descriptor: Self.name("request_duration", unit: "seconds", help: "Time to answer a request on the client socket."),
                labels: [("method", method)],
                buckets: [.microseconds(10), .microseconds(50), .microseconds(100), .microseconds(500), .milliseconds(1), .milliseconds(10), .milliseconds(100)])
        }
        let known = histograms
        return { method, _, duration in known[method]?.record(duration) }
    }

    func answered(hasAd: Bool) {
        if hasAd { ads.add(1, ordering: .relaxed) } else { noAds.add(1, ordering: .relaxed) }
    }

    func refresh(state: EdgeState, status: SyncStatus, devices: Int) {
        gauges["ad"]?.set(Double(ads.load(ordering: .relaxed)))
        gauges["noAd"]?.set(Double(noAds.load(ordering: .relaxed)))
        gauges["seq"]?.set(Double(state.seq))
        gauges["lag"]?.set(Double(max(0, status.lastHeartbeatSeq - state.seq)))
        gauges["stale"]?.set(Double(status.connected ? 0 : 1))
        gauges["skew"]?.set(status.skew)
        gauges["resyncs"]?.set(Double(status.resyncs))
        gauges["gaps"]?.set(Double(status.gaps))
        gauges["campaigns"]?.set(Double(state.campaigns.count))
        gauges["creatives"]?.set(Double(state.creatives.count))
        gauges["cacheBytes"]?.set(Double(state.creatives.values.reduce(0) { $0 + $1.size }))
        gauges["devices"]?.set(Double(devices))
        gauges["memory"]?.set(Double(cache.bytesHeld))
        let hits = cache.hits.load(ordering: .relaxed), misses = cache.misses.load(ordering: .relaxed)
        gauges["writable"]?.set(Double(cacheHealth.writable ? 1 : 0))
        gauges["writeFailures"]?.set(Double(cacheHealth.failures))
        gauges["hitRatio"]?.set(hits + misses == 0 ? 0 : Double(hits) / Double(hits + misses))
    }
}
