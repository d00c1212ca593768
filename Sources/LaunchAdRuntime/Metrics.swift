import JSONRPC
import Prometheus
import Synchronization
import Locking

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
    private let exported = Locked<Int>(0)

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

/// A family of latency histograms (one per label value) for a hot path: an observation is two relaxed atomic adds,
/// with no lock and no clock type, and the family writes itself in Prometheus's text format at each scrape, after
/// the registry's metrics (it is not in the registry). What a scrape reads is each count at that moment; an
/// observation being made then may show in its bucket and not yet in the sum.
public final class LatencyHistograms: Sendable {
    /// The histogram of one label value.
    public final class Histogram: Sendable {
        fileprivate let labels: String
        /// Observations per bucket (not cumulative), the last one past the largest bound.
        private let buckets: [Slot]
        private let sum = Atomic<Int>(0)
        private let bounds: [Int64]

        fileprivate final class Slot: Sendable {
            let count = Atomic<Int>(0)
        }

        fileprivate init(labels: String, bounds: [Int64]) {
            self.labels = labels
            self.bounds = bounds
            buckets = (0...bounds.count).map { _ in Slot() }
        }

        /// Counts one observation of `nanoseconds` (a negative one counts as 0).
        public func record(nanoseconds: Int64) {
            let value = max(0, nanoseconds)
            var index = 0
            while index < bounds.count && value > bounds[index] { index += 1 }
            buckets[index].count.add(1, ordering: .relaxed)
            sum.add(Int(value), ordering: .relaxed)
        }

        /// Observations so far, and their sum in nanoseconds.
        public var totals: (count: Int, nanoseconds: Int) {
            (buckets.reduce(0) { $0 + $1.count.load(ordering: .relaxed) }, sum.load(ordering: .relaxed))
        }

        fileprivate func emit(name: String, bounds: [String], into text: inout String) {
            let bucketLabels = labels.isEmpty ? "" : labels + ","
            let ownLabels = labels.isEmpty ? "" : "{\(labels)}"
            var cumulative = 0
            for (index, bound) in bounds.enumerated() {
                cumulative += buckets[index].count.load(ordering: .relaxed)
                text += "\(name)_bucket{\(bucketLabels)le=\"\(bound)\"} \(cumulative)\n"
            }
            cumulative += buckets[bounds.count].count.load(ordering: .relaxed)
            text += "\(name)_bucket{\(bucketLabels)le=\"+Inf\"} \(cumulative)\n"
            text += "\(name)_sum\(ownLabels) \(Duration.nanoseconds(sum.load(ordering: .relaxed)).bucketRepresentation)\n"
            text += "\(name)_count\(ownLabels) \(cumulative)\n"
        }
    }

    private let name: String
    private let help: String
    private let bounds: [Int64]
    private let histograms = Locked<[Histogram]>([])

    /// `bounds` are the buckets' upper bounds, ascending.
    public init(_ descriptor: MetricNameDescriptor, bounds: [Duration]) {
        precondition(zip(bounds, bounds.dropFirst()).allSatisfy { $0 < $1 }, "bounds must ascend")
        name = descriptor.name
        help = descriptor.helpText ?? ""
        self.bounds = bounds.map { $0.components.seconds * 1_000_000_000 + $0.components.attoseconds / 1_000_000_000 }
    }

    /// The histogram of a label (made once; hold on to it). `labels` are name and value pairs.
    public func histogram(labels: [(String, String)]) -> Histogram {
        let text = labels.map { "\($0.0)=\"\(Self.escaped($0.1))\"" }.joined(separator: ",")
        return histograms.withLock { histograms in
            if let found = histograms.first(where: { $0.labels == text }) { return found }
            let histogram = Histogram(labels: text, bounds: bounds)
            histograms.append(histogram)
            return histogram
        }
    }

    /// The family in Prometheus's text format (nothing until a histogram is made).
    public var text: String {
        let histograms = histograms.withLock { $0 }
        guard !histograms.isEmpty else { return "" }
        let bounds = self.bounds.map { Duration.nanoseconds($0).bucketRepresentation }
        var text = help.isEmpty ? "" : "# HELP \(name) \(Self.escaped(help, quotes: false))\n"
        text += "# TYPE \(name) histogram\n"
        for histogram in histograms { histogram.emit(name: name, bounds: bounds, into: &text) }
        return text
    }

    /// A label value as the text format writes it (backslash, quote and newline escaped), or help text (the quote
    /// left as it is).
    static func escaped(_ value: String, quotes: Bool = true) -> String {
        var text = ""
        for character in value {
            switch character {
            case "\\": text += "\\\\"
            case "\"" where quotes: text += "\\\""
            case "\n": text += "\\n"
            default: text.append(character)
            }
        }
        return text
    }
}

/// The counters of one family, each made on its first use and kept by its labels' key: the registry's own lookup
/// builds the name and the labels every time it is asked. The keys must come from a bounded set (known methods,
/// codes, routes), or the family grows with whatever clients send.
public final class CounterCache<Key: Hashable & Sendable>: Sendable {
    private let counters = Locked<[Key: Counter]>([:])
    private let make: @Sendable (Key) -> Counter

    /// `make` asks the registry for `key`'s counter; it is called once for each key.
    public init(make: @escaping @Sendable (Key) -> Counter) {
        self.make = make
    }

    public func counter(_ key: Key) -> Counter {
        counters.withLock { counters in
            if let counter = counters[key] { return counter }
            let counter = make(key)
            counters[key] = counter
            return counter
        }
    }
}

/// Counts and times every call a socket answers: `launchad_<subsystem>_requests_total{socket, method, code}` and
/// `launchad_<subsystem>_request_duration_seconds{socket}` (campaignd's and relayd's sockets).
public enum RequestMetrics {
    public static func observer(registry: PrometheusCollectorRegistry, names: MetricNames, socket: String) -> JSONRPCDispatcher.CallObserver {
        let histogram = registry.makeDurationHistogram(
            descriptor: names("request_duration", unit: "seconds", help: "Time to answer a request."), labels: [("socket", socket)],
            buckets: [.microseconds(100), .milliseconds(1), .milliseconds(5), .milliseconds(20), .milliseconds(100), .milliseconds(500), .seconds(2)])
        // Relays and campaignd answer an acknowledgement from every edge each second. The methods are the socket's
        // known ones and the codes JSON-RPC's, so the cache stays small.
        let counters = CounterCache<MethodCode> { key in
            registry.makeCounter(descriptor: names("requests", unit: "total", help: "Requests answered, by socket, method and JSON-RPC code (0 for success)."),
                                 labels: [("socket", socket), ("method", key.method), ("code", String(key.code))])
        }
        return { method, code, nanoseconds in
            counters.counter(MethodCode(method: method, code: code)).increment()
            histogram.record(.nanoseconds(nanoseconds))
        }
    }
}

/// A request counter's key: the JSON-RPC method and the answer's code (0 for success).
public struct MethodCode: Hashable, Sendable {
    public let method: String
    public let code: Int

    public init(method: String, code: Int) {
        self.method = method
        self.code = code
    }
}
