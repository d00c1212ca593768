/// The candidates of an app that share a forced flag and a priority: the group a launch decision chooses among, in
/// id order, with what reaches its members by a request's launch type, platform, region and app version. Immutable, and kept
/// as it is when a change leaves its members as they were.
final class PriorityTier: Sendable {
    let forced: Bool
    let priority: Int
    /// The tier's candidates, by id.
    let members: [Candidate]
    /// What a decision reads of each member before it needs the member itself, in the members' order.
    let facts: [MemberFacts]
    /// 64-bit words in a set of its members.
    let words: Int
    /// Whether any member has a serve share below 1: without one, a decision does no pacing work in the tier.
    let paced: Bool
    private let platforms: ValueReach
    private let regions: ValueReach
    private let versions: VersionReach
    /// The members shown at cold starts, and at hot starts.
    private let cold: [UInt64]
    private let hot: [UInt64]
    private let anyCold: Bool
    /// The least background time of the members shown at hot starts: a hot start after less reaches none of them.
    private let leastBackground: Int?

    init(_ members: [Candidate]) {
        forced = members[0].campaign.forced
        priority = members[0].campaign.priority
        self.members = members
        facts = members.map(MemberFacts.init)
        words = MemberBits.words(members.count)
        paced = facts.contains { $0.shareBound != .max }
        platforms = ValueReach(members, comparison: .exact) { $0.campaign.targeting.platforms }
        regions = ValueReach(members, comparison: .asciiCaseInsensitive) { $0.campaign.targeting.regions }
        versions = VersionReach(members)
        cold = MemberBits.of(members.count) { members[$0].campaign.launchTypes.contains(.cold) }
        hot = MemberBits.of(members.count) { members[$0].campaign.launchTypes.contains(.hot) }
        anyCold = members.contains { $0.campaign.launchTypes.contains(.cold) }
        leastBackground = members.lazy.filter { $0.campaign.launchTypes.contains(.hot) }.map { $0.campaign.minBackgroundSeconds ?? 0 }.min()
    }

    /// Writes into `bits` the members whose launch types, platforms, regions and version range take `request` (the
    /// rest of the targeting, the clock, the creatives and the caps are left to the caller); false, and `bits` left
    /// as they were, when the launch type alone rules out every member. `scratch` is as long as `bits`.
    func reach(_ request: LaunchRequest, into bits: UnsafeMutableBufferPointer<UInt64>, scratch: UnsafeMutableBufferPointer<UInt64>) -> Bool {
        switch request.launchType {
        case .cold:
            guard anyCold else { return false }
            MemberBits.copy(cold, into: bits)
        case .hot:
            guard let leastBackground, let seconds = request.backgroundSeconds, seconds >= leastBackground else { return false }
            MemberBits.copy(hot, into: bits)
        }
        if platforms.targeted {
            platforms.reach(request.platform, into: scratch)
            MemberBits.intersect(bits, with: scratch, count: words)
        }
        if regions.targeted {
            regions.reach(request.region, into: scratch)
            MemberBits.intersect(bits, with: scratch, count: words)
        }
        if versions.targeted {
            versions.reach(request.appVersion, into: scratch)
            MemberBits.intersect(bits, with: scratch, count: words)
        }
        return true
    }
}

/// A tier member's facts that decide whether it is eligible and how much it weighs, as plain values beside the
/// member: a decision reads them for every member a request reaches, and reading them from the ``Candidate`` (a
/// class) would cost a reference count up and down each time, which over a tier of hundreds of members is most of
/// the decision's cost.
struct MemberFacts: Sendable {
    let id: Int64
    let startsAt: Timestamp
    let endsAt: Timestamp
    /// The weight in the draw (at least 1).
    let weight: Int
    let cap: FrequencyCap?
    /// Whether the edge holds a creative of it.
    let held: Bool
    /// Whether a tier's reach says all of its targeting: no locales and no least background time of its own
    /// (otherwise ``DecisionEngine/matchesBeyondReach(_:_:)`` is asked too).
    let reachSaysAll: Bool
    /// Whether it is answered only to its test devices.
    let testOnly: Bool
    /// Its serve share as a bound on a device's 32-bit draw (``DecisionEngine/servesShare(_:below:_:_:)``);
    /// `UInt64.max` without a share, so a campaign that is not paced costs one comparison.
    let shareBound: UInt64

    init(_ candidate: Candidate) {
        let campaign = candidate.campaign
        id = campaign.id
        startsAt = campaign.startsAt
        endsAt = campaign.endsAt
        weight = max(1, campaign.weight)
        cap = campaign.frequencyCap
        held = !candidate.held.isEmpty
        reachSaysAll = candidate.locales == nil && (campaign.minBackgroundSeconds ?? 0) <= 0
        testOnly = candidate.testDevices != nil
        shareBound = DecisionEngine.shareBound(campaign.share)
    }
}
