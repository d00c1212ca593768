import Atomics
import LaunchAdAPI
import LaunchAdDomain

/// Everything an edge answers from, at one sequence number. Immutable: each applied change makes a new one, and
/// the query path reads the current one without locks.
public final class EdgeState: Sendable, AtomicReference {
    public let epoch: String
    public let seq: Int64
    public let campaigns: [Int64: Campaign]
    public let index: [String: AppIndex]
    /// Creatives whose bytes the edge holds, verified.
    public let creatives: [String: CreativeFacts]
    /// `epoch` and `seq` as the launch answer writes them.
    public let answerState: AnswerState
    /// `index` again, for the query path (see ``appIndex(_:)``).
    private let apps: AppTable

    public init(epoch: String, seq: Int64, campaigns: [Int64: Campaign], creatives: [String: CreativeFacts]) {
        self.epoch = epoch
        self.seq = seq
        self.campaigns = campaigns
        self.creatives = creatives
        index = DecisionEngine.index(campaigns.values, creatives: creatives, preparer: .json)
        answerState = AnswerState(epoch: epoch, seq: seq)
        apps = AppTable(index)
    }

    private init(epoch: String, seq: Int64, campaigns: [Int64: Campaign], creatives: [String: CreativeFacts], index: [String: AppIndex]) {
        self.epoch = epoch
        self.seq = seq
        self.campaigns = campaigns
        self.creatives = creatives
        self.index = index
        answerState = AnswerState(epoch: epoch, seq: seq)
        apps = AppTable(index)
    }

    /// `index[app]`, found with a cheap hash of the name's bytes rather than the dictionary's seeded one (most of the
    /// cost of a lookup by a short name).
    public func appIndex(_ app: String) -> AppIndex? { apps.find(app) }

    /// The state before any snapshot: nothing to answer from.
    public static let empty = EdgeState(epoch: "", seq: 0, campaigns: [:], creatives: [:])

    public convenience init(snapshot: Snapshot, creatives: [String: CreativeFacts]) {
        self.init(epoch: snapshot.epoch, seq: snapshot.seq,
                  campaigns: Dictionary(uniqueKeysWithValues: snapshot.campaigns.map { ($0.id, $0) }), creatives: creatives)
    }

    /// This state with `changes` applied (they must follow on from `seq`, in order).
    /// Only the index entries of the apps the changes touch are built again.
    public func applying(_ changes: [Change]) -> EdgeState {
        var campaigns = self.campaigns
        var seq = self.seq
        var apps = Set<String>()
        for change in changes where change.seq == seq + 1 {
            if let old = campaigns.updateValue(change.campaign, forKey: change.id) { apps.insert(old.app) }
            apps.insert(change.campaign.app)
            seq = change.seq
        }
        let index = DecisionEngine.reindex(index, apps: apps, campaigns: campaigns.values, creatives: creatives, preparer: .json)
        return EdgeState(epoch: epoch, seq: seq, campaigns: campaigns, creatives: creatives, index: index)
    }

    /// This state's campaigns with `creatives` instead of its own (itself when they are the same).
    public func with(creatives: [String: CreativeFacts]) -> EdgeState {
        if creatives == self.creatives { return self }
        return EdgeState(epoch: epoch, seq: seq, campaigns: campaigns, creatives: creatives)
    }

    /// This state knowing one more creative.
    public func adding(_ facts: CreativeFacts) -> EdgeState {
        var creatives = self.creatives
        creatives[facts.sha256] = facts
        return EdgeState(epoch: epoch, seq: seq, campaigns: campaigns, creatives: creatives)
    }

    /// The creatives that campaigns which may still be served refer to and the edge does not hold, each once, in the
    /// order to fetch them: forced campaigns' first, then by the campaigns' start.
    public var missingCreatives: [String] {
        // Only the campaigns that lack one are sorted: this runs on every heartbeat, and mostly nothing is missing.
        let waiting = campaigns.values.filter { campaign in
            !campaign.state.isFinal && campaign.creatives.contains { creatives[$0.sha256] == nil }
        }.sorted { a, b in
            if a.forced != b.forced { return a.forced }
            if a.startsAt != b.startsAt { return a.startsAt < b.startsAt }
            return a.id < b.id
        }
        var seen = Set<String>()
        return waiting.flatMap(\.creatives).map(\.sha256).filter { creatives[$0] == nil && seen.insert($0).inserted }
    }

    /// The creatives that campaigns which may still be served refer to (held or not).
    public var wantedCreatives: Set<String> {
        var wanted = Set<String>()
        for campaign in campaigns.values where !campaign.state.isFinal {
            for creative in campaign.creatives { wanted.insert(creative.sha256) }
        }
        return wanted
    }

    /// This state no longer holding `released` (their bytes are gone).
    public func forgetting(_ released: some Sequence<String>) -> EdgeState {
        var creatives = self.creatives
        for sha256 in released { creatives[sha256] = nil }
        return creatives.count == self.creatives.count ? self : EdgeState(epoch: epoch, seq: seq, campaigns: campaigns, creatives: creatives)
    }

    /// Whether it came from a snapshot (an empty state answers nothing).
    public var isLoaded: Bool { !epoch.isEmpty }
}
