import CampaignStore
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdRuntime
import Locking
import Logging
import ServiceLifecycle

/// What campaignd knows of its edges, from their acknowledgements: held in memory as they arrive (an acknowledgement
/// is answered at once), and saved to the store every `flushInterval` (the newest of each edge), so that every
/// campaignd sharing the database, and this one after a restart, lists every edge.
final class EdgeRegistry: Service {
    private let edges = Locked<(all: [String: EdgeInfo], unsaved: Set<String>)>(([:], []))
    /// An edge not heard from for this long is stale.
    let staleAfter: Double = 5
    let store: any Store
    let logger: Logger
    let flushInterval: Duration

    init(store: any Store, logger: Logger, flushInterval: Duration = .milliseconds(250)) {
        self.store = store
        self.logger = logger
        self.flushInterval = flushInterval
    }

    func acknowledge(_ ack: EdgeAck, now: Timestamp) {
        let previous = edges.withLock { edges in
            let previous = edges.all[ack.edgeId]
            edges.all[ack.edgeId] = EdgeInfo(edgeId: ack.edgeId, region: ack.region, epoch: ack.epoch,
                                             appliedSeq: ack.appliedSeq, lastSeen: now, stale: false)
            edges.unsaved.insert(ack.edgeId)
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

    /// Every edge, newest acknowledgement first whichever campaignd took it: the stored ones and those not yet saved.
    func list(now: Timestamp) async throws -> [EdgeInfo] {
        var merged: [String: EdgeInfo] = [:]
        for edge in try await store.acknowledgements() { merged[edge.edgeId] = edge }
        for edge in edges.withLock({ Array($0.all.values) }) where (merged[edge.edgeId]?.lastSeen ?? .init(milliseconds: .min)) < edge.lastSeen {
            merged[edge.edgeId] = edge
        }
        return merged.values.sorted { $0.edgeId < $1.edgeId }.map { edge in
            var edge = edge
            edge.stale = edge.lastSeen.seconds(until: now) > staleAfter
            return edge
        }
    }

    /// Saves what arrived since the last save.
    func flush() async {
        let batch = edges.withLock { edges in
            defer { edges.unsaved.removeAll() }
            return edges.unsaved.compactMap { edges.all[$0] }
        }
        guard !batch.isEmpty else { return }
        do {
            try await store.saveAcknowledgements(batch)
        } catch {
            // Kept for the next round: newer acknowledgements of the same edges replace them.
            edges.withLock { edges in for edge in batch { edges.unsaved.insert(edge.edgeId) } }
            logger.warning("could not save edges' acknowledgements; retrying", metadata: ["error": "\(error)"])
        }
    }

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try? await Task.sleep(for: self.flushInterval)
                await self.flush()
            }
        }
        await flush()
    }
}
