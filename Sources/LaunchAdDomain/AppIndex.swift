/// The campaigns of one app, indexed for the launch query. Immutable: the edge builds a new one per change, keeping
/// what the change leaves as it was (the prepared candidates, and the ``PriorityTier``s whose members stay the same).
/// A class: every launch query takes its app's index out of the state and lets go of it, which costs one reference
/// count rather than one per array (and, for a struct this size, a destroy through its type's metadata).
public final class AppIndex: Sendable {
    /// Campaigns that may still serve (scheduled, live), forced first, then by priority, then by id.
    public let candidates: [Candidate]
    /// Paused, expired and deleted campaigns, most recently changed first (bounded), for `revoked`.
    public let revoked: [Int64]
    /// The candidates by forced flag and priority, in their order: a decision looks at the first tier with an
    /// eligible member and no further.
    let tiers: [PriorityTier]
    /// The candidates by end (earliest first): those ended by the clock lead.
    let byEnd: [Candidate]
    /// The earliest end among the candidates: until the clock reaches it, none has ended by the clock, and a
    /// decision need not look for them.
    var earliestEnd: Timestamp { byEnd.first?.campaign.endsAt ?? Timestamp(milliseconds: .max) }
    /// The most members in one tier: what a decision's scratch space holds.
    let largestTier: Int

    /// An index of `candidates` (in any order) and `revoked`.
    public convenience init(candidates: [Candidate], revoked: [Int64]) {
        self.init(ordered: Self.inOrder(candidates) ? candidates : candidates.sorted(by: Self.precedes), revoked: revoked,
                  byEnd: candidates.sorted { $0.campaign.endsAt < $1.campaign.endsAt }, reusing: [])
    }

    /// An index of `candidates` (in order) keeping those of `previous` tiers whose members are the same candidates.
    init(ordered candidates: [Candidate], revoked: [Int64], byEnd: [Candidate], reusing previous: [PriorityTier]) {
        self.candidates = candidates
        self.revoked = revoked
        self.byEnd = byEnd
        var kept: [Int: PriorityTier] = [:]
        for tier in previous { kept[Self.key(forced: tier.forced, priority: tier.priority)] = tier }
        var tiers: [PriorityTier] = [], start = 0, largest = 0
        while start < candidates.count {
            let first = candidates[start].campaign
            var end = start + 1
            while end < candidates.count, candidates[end].campaign.forced == first.forced, candidates[end].campaign.priority == first.priority {
                end += 1
            }
            let members = candidates[start..<end]
            if let old = kept[Self.key(forced: first.forced, priority: first.priority)], old.members.count == members.count,
               zip(old.members, members).allSatisfy({ pair in pair.0 === pair.1 }) {
                tiers.append(old)
            } else {
                tiers.append(PriorityTier(Array(members)))
            }
            largest = max(largest, members.count)
            start = end
        }
        self.tiers = tiers
        largestTier = largest
    }

    /// This index after a change: the candidates of the campaigns `removed` gone, `added` (prepared, not among the
    /// candidates) in their places, and `revoked` for the revoked list. The other candidates, and the tiers whose
    /// members stay the same, are kept: the work grows with the app's candidates only as copying references does.
    func updating(removing removed: Set<Int64>, adding added: [Candidate], revoked: [Int64]) -> AppIndex {
        var candidates = removed.isEmpty ? self.candidates : self.candidates.filter { !removed.contains($0.campaign.id) }
        var byEnd = removed.isEmpty ? self.byEnd : self.byEnd.filter { !removed.contains($0.campaign.id) }
        for candidate in added {
            candidates.insert(candidate, at: candidates.partitionPoint { Self.precedes($0, candidate) })
            byEnd.insert(candidate, at: byEnd.partitionPoint { $0.campaign.endsAt <= candidate.campaign.endsAt })
        }
        return AppIndex(ordered: candidates, revoked: revoked, byEnd: byEnd, reusing: tiers)
    }

    /// The candidates' order: forced first, then by priority (highest first), then by id.
    static func precedes(_ a: Candidate, _ b: Candidate) -> Bool {
        // The fields are read in place (a copy of a campaign costs a reference count per field).
        if a.campaign.forced != b.campaign.forced { return a.campaign.forced }
        if a.campaign.priority != b.campaign.priority { return a.campaign.priority > b.campaign.priority }
        return a.campaign.id < b.campaign.id
    }

    static func inOrder(_ candidates: [Candidate]) -> Bool {
        !zip(candidates, candidates.dropFirst()).contains { pair in !precedes(pair.0, pair.1) }
    }

    private static func key(forced: Bool, priority: Int) -> Int { priority &* 2 &+ (forced ? 1 : 0) }

    /// The tier holding `forced` and `priority`'s candidates, if any.
    func tier(forced: Bool, priority: Int) -> PriorityTier? {
        tiers.first { $0.forced == forced && $0.priority == priority }
    }
}
