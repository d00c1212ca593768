import CampaignStore
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdRuntime
import Locking
import Logging
import ServiceLifecycle

/// What campaignd knows of its edges, from their acknowledgements: held in memory as they arrive (an acknowledgement
/// is answered at once), and saved to the store every `flushInterval` (the newest of each edge), so that every
/// campaignd sharing the database, and this one after a restart, lists every edge. An edge not heard from for
/// `retention` is forgotten (no longer listed, and deleted from the store), so that `adctl --wait` stops counting an
/// edge that was taken away for good.
///
/// An acknowledgement that only says the edge is still there (its epoch, seq, region and relays as saved) is saved
/// once ``seenSaveInterval`` passed since the edge's last save, not at the next flush: each edge acknowledges about
/// once a second, its heartbeats, so its row is written half as often for a time alone. Another campaignd sharing the
/// store sees such an edge's last word at most that much older (well within ``staleAfter``); this one lists it as
/// heard.
final class EdgeRegistry: Service {
    private struct Edges {
        var all: [String: EdgeInfo] = [:]
        /// The edges to save at the next flush.
        var unsaved: Set<String> = []
        /// What the store holds of each edge, as this process last saved it.
        var saved: [String: EdgeInfo] = [:]
    }

    private let edges = Locked(Edges())
    /// An edge not heard from for this long is stale.
    let staleAfter: Double = 5
    /// Seconds after an edge's last save before an acknowledgement that only moves its time is saved: 2, or a quarter
    /// of a shorter retention, so that no campaignd forgets an edge that still acknowledges.
    var seenSaveInterval: Double { min(2, retention / 4) }
    let store: any Store
    let logger: Logger
    let flushInterval: Duration
    /// Seconds after which an edge not heard from is forgotten.
    let retention: Double
    let clock: WallClock
    /// How often the edges' reports arrive, for pacing's lag.
    let reports = ReportCadence()

    init(store: any Store, logger: Logger, retention: Double = CampaignServiceConfiguration.defaultEdgeRetention,
         clock: @escaping WallClock = Timestamp.systemClock, flushInterval: Duration = .milliseconds(250)) {
        self.store = store
        self.logger = logger
        self.retention = retention
        self.clock = clock
        self.flushInterval = flushInterval
    }

    func acknowledge(_ ack: EdgeAck, now: Timestamp) {
        let previous = edges.withLock { edges in
            let previous = edges.all[ack.edgeId]
            let edge = EdgeInfo(edgeId: ack.edgeId, region: ack.region, epoch: ack.epoch, appliedSeq: ack.appliedSeq,
                                lastSeen: now, stale: false, via: ack.via?.isEmpty == false ? ack.via : nil)
            edges.all[ack.edgeId] = edge
            if let saved = edges.saved[ack.edgeId], saved.lastSeen.seconds(until: now) < seenSaveInterval {
                var timeAlone = saved
                timeAlone.lastSeen = now
                if timeAlone == edge { return previous }
            }
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

    /// The region an edge last acknowledged from, as this process heard it.
    func region(of edgeId: String) -> String? {
        edges.withLock { $0.all[edgeId]?.region }
    }

    /// Every edge heard from within the retention, newest acknowledgement first whichever campaignd took it: the
    /// stored ones and those not yet saved.
    func list(now: Timestamp) async throws -> [EdgeInfo] {
        var merged: [String: EdgeInfo] = [:]
        for edge in try await store.acknowledgements() { merged[edge.edgeId] = edge }
        for edge in edges.withLock({ Array($0.all.values) }) {
            let stored = merged[edge.edgeId]
            if (stored?.lastSeen ?? .init(milliseconds: .min)) < edge.lastSeen { merged[edge.edgeId] = edge }
        }
        let cutoff = now.adding(seconds: -retention)
        return merged.values.filter { $0.lastSeen >= cutoff }.sorted { $0.edgeId < $1.edgeId }.map { edge in
            var edge = edge
            edge.stale = edge.lastSeen.seconds(until: now) > staleAfter
            return edge
        }
    }

    /// Saves what arrived since the last save and is due (`everything`: every edge heard from since its last save, as
    /// at shutdown).
    func flush(everything: Bool = false) async {
        let batch = edges.withLock { edges in
            defer { edges.unsaved.removeAll() }
            if everything {
                return edges.all.values.filter { edges.saved[$0.edgeId] != $0 }
            }
            return edges.unsaved.compactMap { edges.all[$0] }
        }
        guard !batch.isEmpty else { return }
        do {
            try await store.saveAcknowledgements(batch)
            edges.withLock { edges in for edge in batch { edges.saved[edge.edgeId] = edge } }
        } catch {
            // Kept for the next round: newer acknowledgements of the same edges replace them.
            edges.withLock { edges in for edge in batch { edges.unsaved.insert(edge.edgeId) } }
            logger.warning("could not save edges' acknowledgements; retrying", metadata: ["error": "\(error)"])
        }
    }

    /// Forgets the edges not heard from within the retention, here and in the store (where another campaignd sharing
    /// it may have heard them later: the store compares its own times).
    func prune() async {
        let cutoff = clock().adding(seconds: -retention)
        let dropped = edges.withLock { edges in
            let old = edges.all.values.filter { $0.lastSeen < cutoff }
            for edge in old {
                edges.all[edge.edgeId] = nil
                edges.unsaved.remove(edge.edgeId)
                edges.saved[edge.edgeId] = nil
            }
            return old
        }
        do {
            let forgotten = Set(try await store.forgetAcknowledgements(lastSeenBefore: cutoff)).union(dropped.map(\.edgeId))
            for edgeId in forgotten.sorted() {
                logger.info("forgot an edge not heard from within the retention",
                            metadata: [LogField.edgeId: "\(edgeId)", "retention_seconds": "\(Int(retention))"])
            }
        } catch {
            logger.warning("could not forget edges past the retention; retrying", metadata: ["error": "\(error)"])
        }
    }

    /// How often edges past the retention are looked for: often enough that one is forgotten within a few percent of
    /// the retention, at most once a minute.
    var pruneInterval: Duration { .milliseconds(Int(min(60, max(1, retention / 20)) * 1000)) }

    func run() async throws {
        await prune()
        await cancelWhenGracefulShutdown {
            var lastPrune = ContinuousClock.now
            while !Task.isCancelled {
                try? await Task.sleep(for: self.flushInterval)
                await self.flush()
                if ContinuousClock.now - lastPrune >= self.pruneInterval {
                    lastPrune = .now
                    await self.prune()
                }
            }
        }
        await flush(everything: true)
    }
}
