import CampaignFollowing
import JSONRPC
import LaunchAdRuntime
import Prometheus
import ZeroMQ

/// relayd's Prometheus metrics, named `launchad_relayd_*`: requests by method and code (snapshots and changes served
/// to the edges below among them), the epoch's `seq` it serves, snapshots it took upstream, its edges below, whether
/// upstream is heard, messages published, acknowledgements passed upstream and the calls that carried them, the sync and
/// update sockets' connections and peers.
final class RelayMetrics: Sendable {
    static let name = MetricNames(subsystem: "relayd")
    let registry = PrometheusCollectorRegistry()
    private let seq: Gauge
    private let edges: Gauge
    private let stale: Gauge
    private let resyncs: MirroredCounter
    private let published: MirroredCounter
    private let oversized: MirroredCounter
    private let acksPassed: MirroredCounter
    private let ackBatches: MirroredCounter
    private let connections: ConnectionGauges
    private let trimmedByCount: Counter
    private let trimmedByBytes: Counter

    init(monitors: [ConnectionMonitor]) {
        seq = registry.makeGauge(descriptor: Self.name("seq", help: "Sequence number of the state the relay serves."))
        edges = registry.makeGauge(descriptor: Self.name("edges", help: "Edges and relays below heard from in the last 5 seconds."))
        stale = registry.makeGauge(descriptor: Self.name("stale", help: "1 when upstream has not been heard for three heartbeats."))
        resyncs = MirroredCounter(registry.makeCounter(descriptor: Self.name(
            "snapshots_taken", unit: "total", help: "Snapshots the relay took from upstream.")))
        oversized = MirroredCounter(registry.makeCounter(descriptor: Self.name(
            "updates_oversized", unit: "total", help: "Changes too large for the update stream below's bound in bytes (--updates-queue-bytes): left to sync.changes.")))
        published = MirroredCounter(registry.makeCounter(descriptor: Self.name(
            "updates_published", unit: "total", help: "Messages handed to the update stream below (changes and heartbeats).")))
        acksPassed = MirroredCounter(registry.makeCounter(descriptor: Self.name(
            "acks_passed", unit: "total", help: "Acknowledgements of the edges and relays below taken upstream.")))
        ackBatches = MirroredCounter(registry.makeCounter(descriptor: Self.name(
            "ack_batches", unit: "total", help: "edge.acks calls upstream that carried them.")))
        connections = ConnectionGauges(registry: registry, names: Self.name, monitors: monitors)
        let trimmed = Self.name("window_trimmed", unit: "total",
                                help: "Changes let go of the change window by its bound in changes (--change-window) or in bytes (--change-window-bytes).")
        trimmedByCount = registry.makeCounter(descriptor: trimmed, labels: [("bound", "changes")])
        trimmedByBytes = registry.makeCounter(descriptor: trimmed, labels: [("bound", "bytes")])
    }

    /// Counts changes let go of the change window: `byCount` past its bound in changes, `byBytes` past its bound in bytes.
    func windowTrimmed(byCount: Int, byBytes: Int) {
        if byCount > 0 { trimmedByCount.increment(by: Int64(byCount)) }
        if byBytes > 0 { trimmedByBytes.increment(by: Int64(byBytes)) }
    }

    func observer(socket: String) -> JSONRPCDispatcher.CallObserver {
        RequestMetrics.observer(registry: registry, names: Self.name, socket: socket)
    }

    /// Brings the gauges up to date (at each scrape).
    func refresh(state: EdgeState, status: SyncStatus, edges edgeCount: Int, published publishedCount: Int, oversized oversizedCount: Int, acksPassed passedCount: Int,
                 ackBatches batchCount: Int) {
        seq.set(Double(state.seq))
        edges.set(Double(edgeCount))
        stale.set(status.connected ? 0.0 : 1.0)
        resyncs.update(to: status.resyncs)
        oversized.update(to: oversizedCount)
        published.update(to: publishedCount)
        acksPassed.update(to: passedCount)
        ackBatches.update(to: batchCount)
        connections.refresh()
    }
}
