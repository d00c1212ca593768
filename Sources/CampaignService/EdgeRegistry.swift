import LaunchAdAPI
import LaunchAdDomain
import LaunchAdRuntime
import Logging
import Locking

/// What campaignd knows of its edges, from their acknowledgements.
final class EdgeRegistry: Sendable {
    private let edges = Locked<[String: EdgeInfo]>([:])
    /// An edge not heard from for this long is stale.
    let staleAfter: Double = 5
    let logger: Logger

    init(logger: Logger) {
        self.logger = logger
    }

    func acknowledge(_ ack: EdgeAck, now: Timestamp) {
        let previous = edges.withLock { edges in
            let previous = edges[ack.edgeId]
            edges[ack.edgeId] = EdgeInfo(edgeId: ack.edgeId, region: ack.region, epoch: ack.epoch,
                                         appliedSeq: ack.appliedSeq, lastSeen: now, stale: false)
            return previous
        }
        // One line when an edge appears, comes back, or moves to another epoch; not one per acknowledgement.
        let event: String? = switch previous {
        case nil: "edge joined"
        case let edge? where edge.lastSeen.seconds(until: now) > staleAfter: "edge back after silence"
        case let edge? where edge.epoch != ack.epoch: "edge moved to another epoch"
        default: nil
        }
        if let event {
            logger.info("\(event)", metadata: [LogField.edgeId: "\(ack.edgeId)", "region": "\(ack.region)",
                                               "epoch": "\(ack.epoch)", "applied_seq": "\(ack.appliedSeq)"])
        }
    }

    func list(now: Timestamp) -> [EdgeInfo] {
        edges.withLock { edges in
            edges.values.sorted { $0.edgeId < $1.edgeId }.map { edge in
                var edge = edge
                edge.stale = edge.lastSeen.seconds(until: now) > staleAfter
                return edge
            }
        }
    }
}
