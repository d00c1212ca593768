import CampaignFollowing
import Foundation
import JSONRPC
import LaunchAdRuntime
import Prometheus
import Synchronization

/// deliveryd's Prometheus metrics, `launchad_deliveryd_*`. Counters on the query path are Prometheus counters
/// (one relaxed atomic add each); the rest are read from the state and the sync status at each scrape.
final class EdgeMetrics: Sendable {
    static let name = MetricNames(subsystem: "deliveryd")
    /// The methods of the client socket: the only `method` label values (unknown methods never reach a handler).
    static let methods = ["launch.query", "launch.prefetch", "launch.report", "creative.get", "edge.status", "rpc.discover", "launch.why"]

    let registry = PrometheusCollectorRegistry()
    private let ads: Counter
    private let noAds: Counter
    private let gauges: [String: Gauge]
    private let resyncs: MirroredCounter
    private let gaps: MirroredCounter
    private let cacheHits: MirroredCounter
    private let cacheMisses: MirroredCounter
    private let cacheWriteFailures: MirroredCounter
    private let stateWrites: MirroredCounter
    private let devicesForgotten: MirroredCounter
    private let cache: CreativeCache
    private let cacheHealth: CacheHealth

    init(cache: CreativeCache, cacheHealth: CacheHealth, eventIdBytes: Int = 0) {
        self.cache = cache
        self.cacheHealth = cacheHealth
        let name = Self.name
        let queries = name("queries", unit: "total", help: "Launch queries answered, by result (ad or no_ad).")
        ads = registry.makeCounter(descriptor: queries, labels: [("result", "ad")])
        noAds = registry.makeCounter(descriptor: queries, labels: [("result", "no_ad")])
        resyncs = MirroredCounter(registry.makeCounter(descriptor: name("resyncs", unit: "total", help: "Snapshots taken from campaignd.")))
        gaps = MirroredCounter(registry.makeCounter(descriptor: name(
            "gaps", unit: "total", help: "Times the edge found itself behind (a gap in the stream, a heartbeat ahead) and caught up.")))
        cacheHits = MirroredCounter(registry.makeCounter(descriptor: name(
            "creative_cache_hits", unit: "total", help: "Creative reads served from memory.")))
        cacheMisses = MirroredCounter(registry.makeCounter(descriptor: name(
            "creative_cache_misses", unit: "total", help: "Creative reads that went to disk.")))
        cacheWriteFailures = MirroredCounter(registry.makeCounter(descriptor: name(
            "cache_write_failures", unit: "total",
            help: "Writes to the cache folder that failed: the state file, a creative, or (while creatives are refused "
                + "with none held in memory) the try of their folders at each heartbeat or change.")))
        stateWrites = MirroredCounter(registry.makeCounter(descriptor: name(
            "state_writes", unit: "total", help: "Times the state file was written (each holds every change applied since the last).")))
        devicesForgotten = MirroredCounter(registry.makeCounter(descriptor: name(
            "devices_forgotten", unit: "total", help: "Devices forgotten (their caps and rotation) to keep within the device memory budget.")))
        gauges = [
            "seq": registry.makeGauge(descriptor: name("applied_seq", help: "Sequence number of the state answered from.")),
            "heartbeatSeq": registry.makeGauge(descriptor: name("heartbeat_seq", help: "Sequence number in campaignd's last heartbeat.")),
            "lag": registry.makeGauge(descriptor: name("lag", unit: "changes", help: "How far the applied seq is behind the last heartbeat.")),
            "stale": registry.makeGauge(descriptor: name("stale", help: "1 when campaignd has not been heard from for three heartbeats.")),
            "skew": registry.makeGauge(descriptor: name("clock_skew", unit: "seconds", help: "campaignd's clock minus this edge's.")),
            "campaigns": registry.makeGauge(descriptor: name("campaigns", help: "Campaigns in the state.")),
            "creatives": registry.makeGauge(descriptor: name("creatives", help: "Creatives held, verified.")),
            "cacheBytes": registry.makeGauge(descriptor: name("creative_cache", unit: "bytes", help: "Bytes of creatives held on disk.")),
            "devices": registry.makeGauge(descriptor: name("devices", help: "Devices remembered for caps and rotation.")),
            "deviceBytes": registry.makeGauge(descriptor: name("device_memory", unit: "bytes", help: "Bytes of the devices' caps and rotation held in memory.")),
            "deviceBudget": registry.makeGauge(descriptor: name(
                "device_memory_budget", unit: "bytes", help: "The most bytes the devices' caps and rotation may take (the device budget less the event ids').")),
            "eventIdBytes": registry.makeGauge(descriptor: name("event_id_memory", unit: "bytes", help: "Bytes of the event ids' fingerprints (fixed).")),
            "memory": registry.makeGauge(descriptor: name("creative_memory", unit: "bytes", help: "Bytes of hot creatives held in memory.")),
            "hitRatio": registry.makeGauge(descriptor: name("creative_cache_hit_ratio", help: "Share of creative reads served from memory, since start.")),
            "writable": registry.makeGauge(descriptor: name("cache_writable", help: "0 while the cache folder refuses writes (answering from memory).")),
        ]
        gauges["eventIdBytes"]?.set(Double(eventIdBytes))
    }

    /// Times of calls on the client socket, by method: atomic buckets rather than a registry histogram, whose lock
    /// and `Duration` arithmetic cost more per call than the rest of the metrics (written after the registry's).
    let durations = LatencyHistograms(
        EdgeMetrics.name("request_duration", unit: "seconds", help: "Time to answer a request on the client socket."),
        bounds: [.microseconds(10), .microseconds(50), .microseconds(100), .microseconds(500), .milliseconds(1), .milliseconds(10), .milliseconds(100)])

    /// Counts and times every call on the client socket, by method (and by code for the count).
    func callObserver() -> JSONRPCDispatcher.CallObserver {
        struct PerMethod {
            var duration: LatencyHistograms.Histogram
            var succeeded: Counter
        }
        // A descriptor is not Sendable: the closure makes its own.
        @Sendable func requests() -> MetricNameDescriptor {
            Self.name("requests", unit: "total", help: "Requests answered on the client socket, by method and JSON-RPC code (0 for success).")
        }
        // A list, not a dictionary: the names are few and short (compared in place), and hashing one per call
        // cost more than scanning them.
        var known: [(name: String, metrics: PerMethod)] = []
        for method in Self.methods {
            known.append((method, PerMethod(duration: durations.histogram(labels: [("method", method)]),
                                            succeeded: registry.makeCounter(descriptor: requests(), labels: [("method", method), ("code", "0")]))))
        }
        let table = known
        let registry = self.registry
        // Errors are rarer and their codes few (the dispatcher's): each method and code's counter is made once.
        let errors = CounterCache<MethodCode> { key in
            registry.makeCounter(descriptor: requests(), labels: [("method", key.method), ("code", String(key.code))])
        }
        return { method, code, nanoseconds in
            guard let entry = table.first(where: { $0.name == method })?.metrics else { return }
            entry.duration.record(nanoseconds: nanoseconds)
            if code == 0 {
                entry.succeeded.increment()
            } else {
                errors.counter(MethodCode(method: method, code: code)).increment()
            }
        }
    }

    /// The metrics in Prometheus's text format.
    var text: String {
        HTTPEndpoint.metricsText(registry) + durations.text
    }

    func answered(hasAd: Bool) {
        (hasAd ? ads : noAds).increment()
    }

    func refresh(state: EdgeState, status: SyncStatus, devices: DeviceHistory.Usage) {
        let heartbeatSeq = status.lastHeartbeatSeq
        gauges["seq"]?.set(Double(state.seq))
        gauges["heartbeatSeq"]?.set(Double(heartbeatSeq))
        gauges["lag"]?.set(Double(max(0, heartbeatSeq - state.seq)))
        gauges["stale"]?.set(Double(status.connected ? 0 : 1))
        gauges["skew"]?.set(status.skew)
        resyncs.update(to: status.resyncs)
        gaps.update(to: status.gaps)
        gauges["campaigns"]?.set(Double(state.campaigns.count))
        gauges["creatives"]?.set(Double(state.creatives.count))
        gauges["cacheBytes"]?.set(Double(state.creatives.values.reduce(0) { $0 + $1.size }))
        gauges["devices"]?.set(Double(devices.devices))
        gauges["deviceBytes"]?.set(Double(devices.bytes))
        gauges["deviceBudget"]?.set(Double(devices.budget))
        devicesForgotten.update(to: devices.forgotten)
        gauges["memory"]?.set(Double(cache.bytesHeld))
        let hits = cache.hits.load(ordering: .relaxed), misses = cache.misses.load(ordering: .relaxed)
        cacheHits.update(to: hits)
        cacheMisses.update(to: misses)
        gauges["hitRatio"]?.set(hits + misses == 0 ? 0 : Double(hits) / Double(hits + misses))
        gauges["writable"]?.set(Double(cacheHealth.writable ? 1 : 0))
        cacheWriteFailures.update(to: cacheHealth.failures)
        stateWrites.update(to: cacheHealth.stateWrites)
    }
}
