import CampaignStore
import Foundation
import JSONRPC
import LaunchAdDomain
import LaunchAdRuntime
import Prometheus
import Synchronization
import ZeroMQ
import ZMQRPC

/// campaignd's Prometheus metrics, named `launchad_campaignd_*`: requests by socket, method and code, their
/// latency, the sequence number, campaigns by state, edges live and stale, changes published, the sync and update
/// sockets' connections and peers.
final class CampaignMetrics: Sendable {
    static let name = MetricNames(subsystem: "campaignd")
    let registry = PrometheusCollectorRegistry()
    private let seq: Gauge
    private let published: MirroredCounter
    private let oversized: MirroredCounter
    private let edgesLive: Gauge
    private let edgesStale: Gauge
    private let stateGauges: [CampaignState: Gauge]
    private let connections: ConnectionGauges

    init(monitors: [ConnectionMonitor]) {
        seq = registry.makeGauge(descriptor: Self.name("seq", help: "Sequence number of the last committed change."))
        oversized = MirroredCounter(registry.makeCounter(descriptor: Self.name(
            "updates_oversized", unit: "total", help: "Changes too large for the update stream's bound in bytes (--updates-queue-bytes): left to sync.changes.")))
        published = MirroredCounter(registry.makeCounter(descriptor: Self.name(
            "updates_published", unit: "total", help: "Messages handed to the update stream (changes and heartbeats).")))
        let edges = Self.name("edges", help: "Edges by whether they were heard from lately.")
        edgesLive = registry.makeGauge(descriptor: edges, labels: [("state", "live")])
        edgesStale = registry.makeGauge(descriptor: edges, labels: [("state", "stale")])
        var gauges: [CampaignState: Gauge] = [:]
        let campaigns = Self.name("campaigns", help: "Campaigns by state.")
        for state in CampaignState.allCases {
            gauges[state] = registry.makeGauge(descriptor: campaigns, labels: [("state", state.rawValue)])
        }
        stateGauges = gauges
        connections = ConnectionGauges(registry: registry, names: Self.name, monitors: monitors)
    }

    /// Counts and times every call on `socket`.
    func observer(socket: String) -> JSONRPCDispatcher.CallObserver {
        RequestMetrics.observer(registry: registry, names: Self.name, socket: socket)
    }

    /// Brings the gauges up to date (at each scrape).
    func refresh(store: any Store, edges: [EdgeInfoSummary], published count: Int, oversized oversizedCount: Int) async {
        if let current = try? await store.currentSeq() { seq.set(Double(current)) }
        if let counts = try? await store.countsByState() {
            for (state, gauge) in stateGauges { gauge.set(Double(counts[state] ?? 0)) }
        }
        edgesLive.set(Double(edges.filter { !$0.stale }.count))
        edgesStale.set(Double(edges.filter(\.stale).count))
        oversized.update(to: oversizedCount)
        published.update(to: count)
        connections.refresh()
    }
}

struct EdgeInfoSummary {
    var stale: Bool
}
