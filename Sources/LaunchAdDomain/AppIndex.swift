/// The campaigns of one app, indexed for the launch query. Immutable: the edge builds a new one per change.
public struct AppIndex: Sendable {
    /// Campaigns that may still serve (scheduled, live), forced first, then by priority, then by id.
    public var candidates: [Candidate] { didSet { earliestEnd = Self.earliestEnd(candidates) } }
    /// Expired and deleted campaigns, most recent first (bounded), for `revoked`.
    public var revoked: [Int64]
    /// The earliest end among the candidates: until the clock reaches it, none has ended by the clock, and a
    /// decision need not look for them.
    private(set) var earliestEnd: Timestamp

    public init(candidates: [Candidate], revoked: [Int64]) {
        self.candidates = candidates
        self.revoked = revoked
        earliestEnd = Self.earliestEnd(candidates)
    }

    private static func earliestEnd(_ candidates: [Candidate]) -> Timestamp {
        candidates.lazy.map(\.campaign.endsAt).min() ?? Timestamp(milliseconds: .max)
    }
}
