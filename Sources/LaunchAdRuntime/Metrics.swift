import Prometheus
import Synchronization

/// Names metrics as the project does: `launchad_<subsystem>_<name>_<unit>`, the unit a base unit (`seconds`,
/// `bytes`) or `total` for a counter, left out for a plain number (a sequence number, a count of things held).
public struct MetricNames: Sendable {
    public let subsystem: String

    public init(subsystem: String) {
        self.subsystem = subsystem
    }

    public func callAsFunction(_ name: String, unit: String = "", help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "launchad", subsystem: subsystem, metricName: name, unitName: unit, helpText: help)
    }
}

/// A Prometheus counter that follows a running total kept elsewhere (an atomic on a hot path, a tally under a
/// lock), brought up to date when scraped. It only ever goes up, as a counter must.
public final class MirroredCounter: Sendable {
    private let counter: Counter
    private let exported = Mutex<Int>(0)

    public init(_ counter: Counter) {
        self.counter = counter
    }

    /// Moves the counter up to `total` (a smaller total, which a running total never reports, is ignored).
    public func update(to total: Int) {
        exported.withLock { last in
            guard total > last else { return }
            counter.increment(by: Int64(total - last))
            last = total
        }
    }
}
