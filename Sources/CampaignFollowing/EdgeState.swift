import Atomics
import HashTreeCollections
import LaunchAdAPI
import LaunchAdDomain

/// Everything an edge answers from, at one sequence number. Immutable: each applied change makes a new one, and
/// the query path reads the current one without locks.
public final class EdgeState: Sendable, AtomicReference {
    public let epoch: String
    public let seq: Int64
    /// A persistent map: a change makes a new one that shares all but the path to what it changes, so applying one
    /// costs the same at 100 campaigns as at 10,000 (a dictionary would be copied whole, campaign by campaign).
    public let campaigns: TreeDictionary<Int64, Campaign>
    public let index: [String: AppIndex]
    /// Creatives whose bytes the edge holds, verified.
    public let creatives: [String: CreativeFacts]
    /// `epoch` and `seq` as the launch answer writes them.
    public let answerState: AnswerState
    /// `index` again, for the query path (see ``appIndex(_:)``).
    private let apps: AppTable

    public convenience init(epoch: String, seq: Int64, campaigns: [Int64: Campaign], creatives: [String: CreativeFacts]) {
        self.init(epoch: epoch, seq: seq, campaigns: TreeDictionary(campaigns), creatives: creatives)
    }

    public init(epoch: String, seq: Int64, campaigns: TreeDictionary<Int64, Campaign>, creatives: [String: CreativeFacts]) {
        self.epoch = epoch
        self.seq = seq
        self.campaigns = campaigns
        self.creatives = creatives
        index = DecisionEngine.index(campaigns.values, creatives: creatives, preparer: .json)
        answerState = AnswerState(epoch: epoch, seq: seq)
        apps = AppTable(index)
    }

    private init(epoch: String, seq: Int64, campaigns: TreeDictionary<Int64, Campaign>, creatives: [String: CreativeFacts],
                 index: [String: AppIndex]) {
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
    public static let empty = EdgeState(epoch: "", seq: 0, campaigns: TreeDictionary(), creatives: [:])

    public convenience init(snapshot: Snapshot, creatives: [String: CreativeFacts]) {
        self.init(epoch: snapshot.epoch, seq: snapshot.seq,
                  campaigns: TreeDictionary(uniqueKeysWithValues: snapshot.campaigns.map { ($0.id, $0) }), creatives: creatives)
    }

    /// This state with `changes` applied (they must follow on from `seq`, in order). Only the campaigns they change
    /// are indexed again (see ``DecisionEngine/reindex(_:changed:campaigns:creatives:preparer:)``).
    public func applying(_ changes: [Change]) -> EdgeState {
        var campaigns = self.campaigns
        var seq = self.seq
        var before: [Int64: Campaign?] = [:]
        for change in changes where change.seq == seq + 1 {
            let old = campaigns.updateValue(change.campaign, forKey: change.id)
            if before[change.id] == nil { before[change.id] = .some(old) }
            seq = change.seq
        }
        let changed = before.map { id, old in (before: old, after: campaigns[id]!) }
        let index = DecisionEngine.reindex(index, changed: changed, campaigns: campaigns.values, creatives: creatives, preparer: .json)
        return EdgeState(epoch: epoch, seq: seq, campaigns: campaigns, creatives: creatives, index: index)
    }

    /// This state's campaigns with `creatives` instead of its own (itself when they are the same).
    public func with(creatives: [String: CreativeFacts]) -> EdgeState {
        if creatives == self.creatives { return self }
        var changed = Set<String>()
        for (sha256, facts) in creatives where self.creatives[sha256] != facts { changed.insert(sha256) }
        for sha256 in self.creatives.keys where creatives[sha256] == nil { changed.insert(sha256) }
        return changing(creatives, changed)
    }

    /// This state knowing one more creative.
    public func adding(_ facts: CreativeFacts) -> EdgeState {
        var creatives = self.creatives
        creatives[facts.sha256] = facts
        return changing(creatives, [facts.sha256])
    }

    /// This state with `creatives`, which differ from its own in `changed`: only the apps with a campaign using one
    /// of those are indexed again, and in them only those campaigns prepared again.
    private func changing(_ creatives: [String: CreativeFacts], _ changed: Set<String>) -> EdgeState {
        var apps = Set<String>()
        for campaign in campaigns.values where !apps.contains(campaign.app) && campaign.creatives.contains(where: { changed.contains($0.sha256) }) {
            apps.insert(campaign.app)
        }
        let index = DecisionEngine.reindex(index, apps: apps, campaigns: campaigns.values, creatives: creatives, changedCreatives: changed,
                                           preparer: .json)
        return EdgeState(epoch: epoch, seq: seq, campaigns: campaigns, creatives: creatives, index: index)
    }

    /// The creatives that campaigns which may still be served refer to and the edge does not hold, each once, in the
    /// order to fetch them: forced campaigns' first, then by the campaigns' start.
    public var missingCreatives: [String] {
        // Only the campaigns that lack one are sorted: this runs on every heartbeat, and mostly nothing is missing.
        let waiting = campaigns.values.filter(lacksCreative).sorted { a, b in
            if a.forced != b.forced { return a.forced }
            if a.startsAt != b.startsAt { return a.startsAt < b.startsAt }
            return a.id < b.id
        }
        var seen = Set<String>()
        return waiting.flatMap(\.creatives).map(\.sha256).filter { creatives[$0] == nil && seen.insert($0).inserted }
    }

    /// Whether `campaign` may still be served and refers to a creative this state does not hold.
    public func lacksCreative(of campaign: Campaign) -> Bool {
        !campaign.state.isFinal && campaign.creatives.contains { creatives[$0.sha256] == nil }
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
        var creatives = self.creatives, changed = Set<String>()
        for sha256 in released where creatives.removeValue(forKey: sha256) != nil { changed.insert(sha256) }
        return changed.isEmpty ? self : changing(creatives, changed)
    }

    /// Whether it came from a snapshot (an empty state answers nothing).
    public var isLoaded: Bool { !epoch.isEmpty }
}
