import LaunchAdAPI
import LaunchAdDomain

/// `--wait`: polls campaignd's `edge.list` until every edge it knows has applied a change, and says of each edge
/// whether it did and how long it took. An edge counts as applied only by an acknowledgement of the change's `seq` in
/// campaignd's epoch; a stale edge (not heard from for 5 s), a silent one (nothing heard since the change) and one
/// behind when the time is up count as not applied.
struct EdgeWait {
    /// What became of one edge.
    enum Outcome: Equatable {
        /// Acknowledged the change this many milliseconds after it was sent.
        case applied(milliseconds: Int)
        /// Heard from since the change, but at an earlier `seq` when the wait ended.
        case behind
        /// Not heard from since the change was made (by campaignd's clock), but not yet stale.
        case silent
        /// Not heard from for more than 5 s (campaignd's `stale`).
        case stale
        /// Acknowledging another database's changes (another epoch).
        case otherEpoch

        var name: String {
            switch self {
            case .applied: "applied"
            case .behind: "behind"
            case .silent: "silent"
            case .stale: "stale"
            case .otherEpoch: "otherEpoch"
            }
        }
    }

    struct Report {
        var edges: [(edge: EdgeInfo, outcome: Outcome)]
        var notApplied: [(edge: EdgeInfo, outcome: Outcome)] { edges.filter { if case .applied = $0.outcome { false } else { true } } }
    }

    /// How long a wait goes on for edges that are all stale: long enough for one that is alive to be heard (edges
    /// acknowledge on every heartbeat, once a second), so that a campaignd restarted a moment ago, which lists its
    /// edges as they were when it stopped, does not give up on them at once.
    static let staleGrace: Duration = .seconds(3)

    let seq: Int64
    /// When the change was made, by campaignd's clock (the campaign's `updatedAt`).
    let changedAt: Timestamp
    let timeout: Duration
    let started: ContinuousClock.Instant

    /// Waits until every edge applied the change, or every one that has not is stale (after ``staleGrace``), or the
    /// timeout; `list` is `edge.list`.
    func run(_ list: () async throws -> EdgeListResult) async throws -> Report {
        var took: [String: Int] = [:]
        var last = EdgeListResult(edges: [], seq: 0)
        let deadline = started + timeout
        while true {
            last = try await list()
            let elapsed = ContinuousClock.now - started
            for edge in last.edges where applied(edge, in: last) && took[edge.edgeId] == nil {
                took[edge.edgeId] = Int(elapsed / .milliseconds(1))
            }
            let waiting = last.edges.filter { took[$0.edgeId] == nil }
            if waiting.isEmpty || ContinuousClock.now >= deadline { break }
            if elapsed >= Self.staleGrace && waiting.allSatisfy({ $0.stale || !sameEpoch($0, in: last) }) { break }
            try await Task.sleep(for: .milliseconds(5))
        }
        return Report(edges: last.edges.map { edge in (edge, outcome(edge, in: last, took: took[edge.edgeId])) })
    }

    private func sameEpoch(_ edge: EdgeInfo, in list: EdgeListResult) -> Bool {
        list.epoch.map { $0 == edge.epoch } ?? true
    }

    private func applied(_ edge: EdgeInfo, in list: EdgeListResult) -> Bool {
        edge.appliedSeq >= seq && sameEpoch(edge, in: list)
    }

    private func outcome(_ edge: EdgeInfo, in list: EdgeListResult, took: Int?) -> Outcome {
        if let took { return .applied(milliseconds: took) }
        if !sameEpoch(edge, in: list) { return .otherEpoch }
        if edge.stale { return .stale }
        if edge.lastSeen < changedAt { return .silent }
        return .behind
    }

    /// What became of one edge, in a few words: the TOOK column of the table (`27 ms`, `stale since ...`), and after
    /// the edge's id in a failure's line.
    static func detail(_ edge: EdgeInfo, _ outcome: Outcome) -> String {
        switch outcome {
        case .applied(let ms): "\(ms) ms"
        case .behind: "behind, at seq \(edge.appliedSeq)"
        case .silent: "silent since the change, last seen \(edge.lastSeen.rfc3339)"
        case .stale: "stale since \(edge.lastSeen.rfc3339)"
        case .otherEpoch: "on another epoch, \(edge.epoch)"
        }
    }
}
