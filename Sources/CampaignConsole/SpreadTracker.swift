import LaunchAdAPI
import Locking
import LaunchAdDomain

/// Watches a change made from the console reach the edges: from the write's answer until every edge has applied its
/// `seq` (or a minute has passed), the time each edge took: from the write to the acknowledgement that showed the
/// edge at `seq` (its `lastSeen` in `edge.list`, which the console polls every ``interval``).
final class SpreadTracker: Sendable {
    /// One change on its way to the edges.
    struct Spread: Sendable {
        var seq: Int64
        var campaign: Int64
        var operation: String
        var actor: String
        var started: Timestamp
        /// Seconds from `started` to the first poll that saw each edge at `seq` or past it.
        var reached: [String: Double] = [:]
        var done = false
    }

    static let interval: Duration = .milliseconds(50)
    /// How long a change is watched.
    static let watchSeconds = 60.0
    /// How many changes are remembered (the oldest go first).
    static let capacity = 200

    private let spreads = Locked<[Int64: Spread]>([:])

    func begin(seq: Int64, campaign: Int64, operation: String, actor: String, at time: Timestamp) {
        spreads.withLock { spreads in
            spreads[seq] = Spread(seq: seq, campaign: campaign, operation: operation, actor: actor, started: time)
            if spreads.count > Self.capacity, let oldest = spreads.keys.min() { spreads[oldest] = nil }
        }
    }

    func spread(seq: Int64) -> Spread? { spreads.withLock { $0[seq] } }

    /// Whether some change is still being watched.
    var watching: Bool { spreads.withLock { $0.values.contains { !$0.done } } }

    /// Records what `rows` (read at `now`) show of the changes being watched.
    func observe(_ rows: EdgeListResult, now: Timestamp) {
        spreads.withLock { spreads in
            for (seq, var spread) in spreads where !spread.done {
                let elapsed = spread.started.seconds(until: now)
                for edge in rows.edges where edge.appliedSeq >= seq && edge.epoch == rows.epoch && spread.reached[edge.edgeId] == nil {
                    // The acknowledgement that showed it arrived at `lastSeen`, after the write and at most by now.
                    let acknowledged = spread.started.seconds(until: edge.lastSeen)
                    spread.reached[edge.edgeId] = acknowledged >= 0 ? min(acknowledged, elapsed) : elapsed
                }
                let live = rows.edges.filter { !$0.stale }
                spread.done = elapsed > Self.watchSeconds || (!live.isEmpty && live.allSatisfy { spread.reached[$0.edgeId] != nil })
                spreads[seq] = spread
            }
        }
    }
}
