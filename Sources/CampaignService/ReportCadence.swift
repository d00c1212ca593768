import LaunchAdDomain
import Locking

/// How often the edges' reports reach this campaignd, as it observes them: pacing's lag follows the slowest edge's
/// real report interval (deliveryd's `--report-interval`, a relay's forwarding, a loaded host) rather than a constant.
/// An edge ships a report only when it counted something, so the gaps between its reports are its interval or longer
/// (idle spells): the least of its last gaps is its interval. Gaps under half a second (a restarted edge shipping what
/// it kept, a resend) say nothing of it and are passed over.
final class ReportCadence: Sendable {
    private struct Edge {
        var last: Timestamp
        var gaps: [Double] = []
    }

    /// The gaps kept for each edge.
    static let kept = 8
    /// An edge not heard from for this long no longer counts (gone, or idle: it has nothing unreported).
    static let forgetAfter: Double = 600
    private let edges = Locked<[String: Edge]>([:])

    init() {}

    /// Notes a report of `edgeId` taken at `now`.
    func observe(_ edgeId: String, at now: Timestamp) {
        edges.withLock { edges in
            guard var edge = edges[edgeId] else {
                edges[edgeId] = Edge(last: now)
                return
            }
            let gap = edge.last.seconds(until: now)
            if gap >= 0.5 {
                edge.gaps.append(gap)
                if edge.gaps.count > Self.kept { edge.gaps.removeFirst(edge.gaps.count - Self.kept) }
            }
            edge.last = max(edge.last, now)
            edges[edgeId] = edge
        }
    }

    /// The slowest report interval among the edges heard from lately, in seconds (`nil`: none measured yet).
    func slowestInterval(now: Timestamp) -> Double? {
        edges.withLock { edges in
            edges = edges.filter { $0.value.last.seconds(until: now) <= Self.forgetAfter }
            return edges.values.compactMap { $0.gaps.min() }.max()
        }
    }
}
