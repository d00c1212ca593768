import Prometheus
import ZeroMQ

/// The `connections` and `peers` gauges of a service's bound sockets, by `socket`, from their ``ConnectionMonitor``s:
/// how many connections each socket holds, and from how many processes (over IPC) or hosts (over TCP). A follower
/// holds one connection on an update stream and a few on a sync socket, so `peers` is what says how many followers a
/// service serves.
public final class ConnectionGauges: Sendable {
    private let sockets: [(monitor: ConnectionMonitor, connections: Gauge, peers: Gauge)]

    /// Registers the gauges of `monitors` (each named for its socket) in `registry`.
    public init(registry: PrometheusCollectorRegistry, names: MetricNames, monitors: [ConnectionMonitor]) {
        let connections = names("connections", help: "Connections the socket holds.")
        let peers = names("peers", help: "Processes (over IPC) or hosts (over TCP) holding connections to the socket.")
        sockets = monitors.map { monitor in
            (monitor, registry.makeGauge(descriptor: connections, labels: [("socket", monitor.name)]),
             registry.makeGauge(descriptor: peers, labels: [("socket", monitor.name)]))
        }
    }

    /// Brings the gauges up to date (at each scrape).
    public func refresh() {
        for socket in sockets {
            socket.connections.set(Double(socket.monitor.connections))
            socket.peers.set(Double(socket.monitor.peers))
        }
    }
}
