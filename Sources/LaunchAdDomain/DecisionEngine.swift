#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The engine's answer: a campaign and one of its creatives, or none; and the ids the client must forget.
public struct Decision: Sendable {
    /// The chosen campaign, prepared (see ``Candidate``).
    public var candidate: Candidate?
    public var held: HeldCreative?
    public var revoked: [Int64]
    /// When the client shows the chosen creative (see ``ShowMoment``); `.later` when nothing was chosen.
    public var showMoment: ShowMoment = .later

    public var campaign: Campaign? { candidate?.campaign }
    public var creative: CreativeFacts? { held?.facts }
}

/// The launch decision: a pure function of the edge's campaigns, the request, the device's history and the time.
public enum DecisionEngine {
    /// At most this many revoked ids are returned per answer.
    public static let revokedLimit = 100

    /// Builds the per-app index from a set of campaigns and the creatives the edge holds, with each creative's
    /// answer parts prepared by `preparer`.
    public static func index(_ campaigns: some Sequence<Campaign>, creatives: [String: CreativeFacts],
                             preparer: AnswerPreparer) -> [String: AppIndex] {
        index(campaigns, creatives: creatives, preparer: preparer, apps: nil, previous: [:], changedCreatives: [])
    }

    /// `index` with the entries of `apps` built again from `campaigns` and every other app's entry kept: for a
    /// change that touches a few apps among many. Within an app, what the change leaves as it was is kept too: a
    /// campaign's prepared candidate unless the campaign or one of its creatives (`changedCreatives`: those whose
    /// facts differ from the ones `index` was built with) changed, and a tier whose members are all kept.
    public static func reindex(_ index: [String: AppIndex], apps: Set<String>, campaigns: some Sequence<Campaign>,
                               creatives: [String: CreativeFacts], changedCreatives: Set<String> = [],
                               preparer: AnswerPreparer) -> [String: AppIndex] {
        var result = index
        for app in apps { result[app] = nil }
        for (app, entry) in Self.index(campaigns, creatives: creatives, preparer: preparer, apps: apps, previous: index,
                                       changedCreatives: changedCreatives) {
            result[app] = entry
        }
        return result
    }

    private static func index(_ campaigns: some Sequence<Campaign>, creatives: [String: CreativeFacts], preparer: AnswerPreparer,
                              apps: Set<String>?, previous: [String: AppIndex], changedCreatives: Set<String>) -> [String: AppIndex] {
        var candidates: [String: [Campaign]] = [:]
        var revoked: [String: [Campaign]] = [:]
        for campaign in campaigns {
            if let apps, !apps.contains(campaign.app) { continue }
            switch campaign.state {
            case .scheduled, .live: candidates[campaign.app, default: []].append(campaign)
            case .paused, .expired, .deleted: revoked[campaign.app, default: []].append(campaign)
            }
            if campaign.share == 0 && !isRevoked(campaign.state) { revoked[campaign.app, default: []].append(campaign) }
        }
        var result: [String: AppIndex] = [:]
        for app in Set(candidates.keys).union(revoked.keys) {
            let sorted = (candidates[app] ?? []).sorted { a, b in
                if a.forced != b.forced { return a.forced }
                if a.priority != b.priority { return a.priority > b.priority }
                return a.id < b.id
            }
            let old = previous[app]
            let prepared = sorted.map { campaign in
                old.flatMap { reusable(campaign, in: $0.candidates, changedCreatives: changedCreatives) }
                    ?? Candidate(campaign, creatives: creatives, preparer: preparer)
            }
            result[app] = AppIndex(ordered: prepared, revoked: revokedIds(revoked[app] ?? []),
                                   byEnd: prepared.sorted { $0.campaign.endsAt < $1.campaign.endsAt }, reusing: old?.tiers ?? [])
        }
        return result
    }

    /// `index` after campaigns changed, each given as it is now (`after`) and as it was before (`before`, none for a
    /// new one): only the apps they belong to are touched, and in those only the changed campaigns are prepared and
    /// placed, the rest kept as they were (see ``AppIndex``), so a change costs little however many campaigns the
    /// app has. The revoked list is made again from `campaigns` (all of them, as they are now) when a changed
    /// campaign is or was paused, expired or deleted. `creatives` must be those `index` was built with.
    public static func reindex(_ index: [String: AppIndex], changed: [(before: Campaign?, after: Campaign)], campaigns: some Sequence<Campaign>,
                               creatives: [String: CreativeFacts], preparer: AnswerPreparer) -> [String: AppIndex] {
        var removed: [String: Set<Int64>] = [:], added: [String: [Candidate]] = [:], revokedChanged = Set<String>()
        for (before, after) in changed {
            if let before {
                removed[before.app, default: []].insert(before.id)
                if isRevoked(before) { revokedChanged.insert(before.app) }
            }
            removed[after.app, default: []].insert(after.id)
            switch after.state {
            case .scheduled, .live: added[after.app, default: []].append(Candidate(after, creatives: creatives, preparer: preparer))
            case .paused, .expired, .deleted: break
            }
            if isRevoked(after) { revokedChanged.insert(after.app) }
        }
        var revoked: [String: [Campaign]] = [:]
        if !revokedChanged.isEmpty {
            for campaign in campaigns where revokedChanged.contains(campaign.app) && isRevoked(campaign) {
                revoked[campaign.app, default: []].append(campaign)
            }
        }
        var result = index
        for (app, ids) in removed {
            let gone = revokedChanged.contains(app) ? revokedIds(revoked[app] ?? []) : index[app]?.revoked ?? []
            let entry = (index[app] ?? AppIndex(candidates: [], revoked: [])).updating(removing: ids, adding: added[app] ?? [], revoked: gone)
            result[app] = entry.candidates.isEmpty && entry.revoked.isEmpty ? nil : entry
        }
        return result
    }

    /// Whether a campaign in `state` is one a client must drop from its cache: expired and deleted ones for good, and a
    /// paused one while it is paused (a device must not show it from its cache; resumed, the prefetch lists it again).
    public static func isRevoked(_ state: CampaignState) -> Bool {
        switch state {
        case .paused, .expired, .deleted: true
        case .scheduled, .live: false
        }
    }

    /// Whether a client must not show `campaign` from its cache now: its state revokes it,
    /// or pacing holds it at a share of 0 (its goal met for the period), so a deferred answer (`showMoment` 1) or a
    /// prefetched creative is not shown past the goal. The next period's share lists it again, as a resumed one is.
    static func isRevoked(_ campaign: Campaign) -> Bool {
        isRevoked(campaign.state) || campaign.share == 0
    }

    /// The ids of an app's revoked campaigns that an answer lists: those pacing holds at a share of 0 first (live, and
    /// shown from a cache past their goal if they fell off the list; their `updatedAt` is their last edit, however
    /// old), then the paused, expired and deleted ones, the most recently changed first.
    private static func revokedIds(_ campaigns: [Campaign]) -> [Int64] {
        let sorted = campaigns.sorted { a, b in
            isRevoked(a.state) != isRevoked(b.state) ? !isRevoked(a.state) : a.updatedAt > b.updatedAt
        }
        return Array(sorted.prefix(revokedLimit).map(\.id))
    }

    /// The candidate prepared for `campaign` among `candidates` (sorted as an index keeps them), if the campaign is
    /// the same and none of its creatives changed.
    private static func reusable(_ campaign: Campaign, in candidates: [Candidate], changedCreatives: Set<String>) -> Candidate? {
        let low = candidates.partitionPoint { other in
            other.campaign.forced != campaign.forced ? other.campaign.forced
                : other.campaign.priority != campaign.priority ? other.campaign.priority > campaign.priority : other.campaign.id < campaign.id
        }
        guard low < candidates.count, candidates[low].campaign == campaign else { return nil }
        if !changedCreatives.isEmpty, campaign.creatives.contains(where: { changedCreatives.contains($0.sha256) }) { return nil }
        return candidates[low]
    }

    /// Decides the answer, without allocating on the way (but for the revoked list, when the clock ends a campaign).
    /// Only the tiers down to the first with an eligible campaign are looked at, and in each only the candidates
    /// that the request's platform, region and version reach (see ``PriorityTier``); the choice among the eligible
    /// is the same as over a scan of every candidate.
    /// - Parameters:
    ///   - now: the edge's clock.
    ///   - serviceNow: the edge's estimate of campaignd's clock; a campaign is over once either clock passed its end.
    public static func decide(_ request: LaunchRequest, index: AppIndex?, device: DeviceView, now: Timestamp,
                              serviceNow: Timestamp? = nil) -> Decision {
        guard let index else { return Decision(candidate: nil, held: nil, revoked: []) }
        let endClock = max(now, serviceNow ?? now)
        let revoked = index.earliestEnd <= endClock ? endedFirst(index, endClock: endClock) : index.revoked
        // The device's hash for the pacing draw: taken once, by the first paced campaign checked (none without one).
        // A plain local of the loop's, not captured by `eligible`: a captured variable cost each candidate a load
        // and a store through the closure's context even where no campaign is paced.
        var drawn: UInt64?
        // The members' facts are read as plain values (see ``MemberFacts``); a member itself only when its targeting
        // goes beyond what the tier's reach says.
        func eligible(_ tier: PriorityTier, _ position: Int) -> Bool {
            let member = tier.facts[position]
            return member.endsAt > endClock && member.startsAt <= now && member.held
                && (member.reachSaysAll || matchesBeyondReach(tier.members[position], request))
                && (!member.testOnly || audienceTakes(tier.members[position], request)) && underCap(member.id, member.cap, device, now)
        }
        let words = MemberBits.words(index.largestTier)
        let chosen = withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 2 * words) { space -> (Candidate, UInt64)? in
            let bits = UnsafeMutableBufferPointer(rebasing: space[0..<words])
            let scratch = UnsafeMutableBufferPointer(rebasing: space[words...])
            return withUnsafeTemporaryAllocation(of: Int32.self, capacity: index.largestTier) { found -> (Candidate, UInt64)? in
                for tier in index.tiers {
                    guard tier.reach(request, into: bits, scratch: scratch) else { continue }
                    var count = 0
                    // The serve share is looked at only in a tier with a paced member (a share below 1).
                    let paced = tier.paced
                    for word in 0..<tier.words {
                        var rest = bits[word]
                        while rest != 0 {
                            let position = word << 6 | rest.trailingZeroBitCount
                            rest &= rest &- 1
                            guard eligible(tier, position) else { continue }
                            if paced {
                                let bound = tier.facts[position].shareBound
                                if bound != .max {
                                    guard bound != 0 else { continue }
                                    let draw = drawn ?? pacingDraw(request, now)
                                    drawn = draw
                                    guard servesShare(tier.facts[position].id, below: bound, device: draw, now) else { continue }
                                }
                            }
                            found[count] = Int32(position)
                            count += 1
                        }
                    }
                    if count > 0 {
                        let seed = stableSeed(request.deviceId, now: now, rotation: device.rotation)
                        return (choose(in: tier, UnsafeMutableBufferPointer(rebasing: found[0..<count]), device: device, seed: seed), seed)
                    }
                }
                return nil
            }
        }
        guard let chosen else { return Decision(candidate: nil, held: nil, revoked: revoked) }
        let (candidate, seed) = chosen
        let creative = chooseCreative(candidate, request: request, device: device, seed: seed)
        return Decision(candidate: candidate, held: creative?.held, revoked: revoked, showMoment: creative?.showMoment ?? .later)
    }

    /// The revoked list when the clock has ended candidates: those first (campaignd has not said so yet, or cannot
    /// reach the edge, and they are the takedowns a client is the likeliest to still hold), in the candidates' order,
    /// then the app's revoked ids; the limit drops the oldest of the rest.
    static func endedFirst(_ index: AppIndex, endClock: Timestamp) -> [Int64] {
        var ended: [Candidate] = []
        for candidate in index.byEnd {
            guard candidate.campaign.endsAt <= endClock else { break }
            ended.append(candidate)
        }
        ended.sort(by: AppIndex.precedes)
        let ids = ended.prefix(revokedLimit).map(\.campaign.id)
        return ids + index.revoked.prefix(revokedLimit - ids.count)
    }

    /// The campaign chosen among a tier's eligible members (their positions, ascending): by weight, stable for a
    /// device until it reports an impression, not repeating what the device saw unless it saw them all.
    static func choose(in tier: PriorityTier, _ eligible: UnsafeMutableBufferPointer<Int32>, device: DeviceView, seed: UInt64) -> Candidate {
        let facts = tier.facts
        let first = Int(eligible[0])
        let seenNone = !device.hasSeenAnyCampaign
        var unseenWeight = 0, allWeight = 0
        for position in eligible {
            let member = facts[Int(position)]
            allWeight += member.weight
            if seenNone || !device.hasSeen(campaign: member.id) { unseenWeight += member.weight }
        }
        // Not repeating what the device saw, unless it saw them all: then the rotation starts over, with any of
        // them but the one shown last (left out by a position of -1).
        let onlyUnseen = unseenWeight > 0
        if !onlyUnseen && eligible.count > 1 {
            func offset(of id: Int64) -> Int? { eligible.indices.first { eligible[$0] >= 0 && facts[Int(eligible[$0])].id == id } }
            if let last = device.lastSeen(campaignWhere: { offset(of: $0) != nil }), let offset = offset(of: last) {
                allWeight -= facts[Int(eligible[offset])].weight
                eligible[offset] = -1
            }
        }
        var point = Int(mix(seed) % UInt64(onlyUnseen ? unseenWeight : allWeight))
        for position in eligible where position >= 0 {
            let member = facts[Int(position)]
            if onlyUnseen && !seenNone && device.hasSeen(campaign: member.id) { continue }
            point -= member.weight
            if point < 0 { return tier.members[Int(position)] }
        }
        return tier.members[first]
    }

    /// Whether the campaign targets this request (platform, version range, region, locale, launch type).
    public static func matches(_ candidate: Candidate, _ request: LaunchRequest) -> Bool {
        targetingMiss(candidate, request) == nil
    }

    /// The first part of the campaign's targeting that leaves this request out, or `nil` when it targets it.
    public static func targetingMiss(_ candidate: Candidate, _ request: LaunchRequest) -> TargetingField? {
        let targeting = candidate.campaign.targeting
        if let platforms = targeting.platforms, !platforms.contains(request.platform) { return .platform }
        if let min = candidate.minVersion, request.appVersion < min { return .appVersion }
        if let max = candidate.maxVersion, !(request.appVersion < max) { return .appVersion }
        if let regions = targeting.regions {
            // Targeted regions are lower case (campaign rules); a request's matches in any case of its ASCII letters.
            guard firstMatch(regions, request.region) != nil else { return .region }
        }
        return beyondReachMiss(candidate, request)
    }

    /// The targeting that a tier's reach (platform, version range, region) leaves: launch type and locale.
    @inline(__always)
    static func matchesBeyondReach(_ candidate: Candidate, _ request: LaunchRequest) -> Bool {
        beyondReachMiss(candidate, request) == nil
    }

    /// What of the launch type and locale leaves this request out, or `nil`.
    @inline(__always)
    static func beyondReachMiss(_ candidate: Candidate, _ request: LaunchRequest) -> TargetingField? {
        let campaign = candidate.campaign
        guard campaign.launchTypes.contains(request.launchType) else { return .launchType }
        if request.launchType == .hot {
            guard let seconds = request.backgroundSeconds, seconds >= (campaign.minBackgroundSeconds ?? 0) else { return .backgroundSeconds }
        }
        if let locales = candidate.locales {
            guard firstMatch(locales, request.locale) != nil else { return .locale }
        }
        return nil
    }

    /// Where in `lowercased` (a campaign's targeted regions, or its locales lowered) the request's `value` is, but
    /// for the case of its ASCII letters; `nil` when it is not (or the request has none). The decision asks whether
    /// there is one; `launch.why` names the one that matched.
    @inline(__always)
    static func firstMatch(_ lowercased: [String], _ value: String?) -> Int? {
        guard let value else { return nil }
        return lowercased.firstIndex(where: { sameIgnoringASCIICase(lowercased: $0, value) })
    }

    /// Whether `text` is `lowercased` (an ASCII language tag in lower case) but for the case of its ASCII letters:
    /// what `lowercased == text.lowercased()` says for such a tag, without making a string. (A character outside
    /// ASCII takes more than one byte, so a text holding one never has as many bytes as an ASCII tag it could
    /// lower-case to.)
    static func sameIgnoringASCIICase(lowercased: String, _ text: String) -> Bool {
        guard lowercased.utf8.count == text.utf8.count else { return false }
        // Over the strings' own bytes where they have them (native strings do), which a loop over two views does
        // not get compiled to.
        let same = lowercased.utf8.withContiguousStorageIfAvailable { expected in
            text.utf8.withContiguousStorageIfAvailable { bytes in sameIgnoringASCIICase(lowercased: expected, bytes) }
        }
        if let same = same ?? nil { return same }
        return sameIgnoringASCIICase(lowercased: Array(lowercased.utf8)[...], Array(text.utf8)[...])
    }

    private static func sameIgnoringASCIICase<Bytes: Collection<UInt8>>(lowercased expected: Bytes, _ bytes: Bytes) -> Bool {
        for (want, byte) in zip(expected, bytes) {
            let lower = byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte
            guard lower == want else { return false }
        }
        return true
    }

    /// Whether the campaign may be answered to the request's device: any device, or one of its test devices.
    public static func audienceTakes(_ candidate: Candidate, _ request: LaunchRequest) -> Bool {
        guard let devices = candidate.testDevices else { return true }
        guard let device = request.deviceId else { return false }
        return devices.contains(device)
    }

    static func underCap(_ campaign: Int64, _ cap: FrequencyCap?, _ device: DeviceView, _ now: Timestamp) -> Bool {
        guard let cap else { return true }
        return device.shows(of: campaign, hours: cap.hours, now: now) < cap.shows
    }

    /// How much farther a creative's aspect ratio may be from the screen's than the nearest one's and still count as
    /// nearest (in log(width / height), about 2%): shapes that differ by a few pixels are the same shape.
    static let aspectTolerance = 0.02
    /// The tolerance as a factor on ``aspectDistance(_:_:)``, e^``aspectTolerance``: a difference of logs is the
    /// log of a ratio, so `|log a − log s| ≤ d + tolerance` is `ratio ≤ e^d · e^tolerance`, and no query takes a
    /// logarithm. A literal, not a `static let`: a query reads it without a lazy global's check.
    static var aspectFactor: Double { 1.0202013400267558 }

    /// The screen's aspect ratio (width / height), what the creatives' are compared with; `nil` without a screen.
    static func aspect(_ screen: (width: Int, height: Int)?) -> Double? {
        guard let screen, screen.width > 0, screen.height > 0 else { return nil }
        return Double(screen.width) / Double(screen.height)
    }

    /// How far aspect ratio `aspect` is from `target`: the larger of their two ratios (1 when equal), in the order
    /// of the distance of their logarithms.
    @inline(__always)
    static func aspectDistance(_ aspect: Double, _ target: Double) -> Double {
        aspect >= target ? aspect / target : target / aspect
    }

    /// How far the nearest of `held` is from `target`.
    static func nearestDistance(_ held: [HeldCreative], to target: Double) -> Double {
        var best = Double.infinity
        for creative in held { best = min(best, aspectDistance(creative.aspect, target)) }
        return best
    }

    /// The creatives of `candidate` that a launch query from `screen` may be answered with: those whose aspect ratio
    /// is nearest the screen's (every one without a screen), in their order. What a client on that screen needs to
    /// download; the others it would never be shown.
    public static func creatives(of candidate: Candidate, for screen: (width: Int, height: Int)?) -> [HeldCreative] {
        var list: [HeldCreative] = []
        appendCreatives(of: candidate, for: screen, to: &list)
        return list
    }

    /// Appends ``creatives(of:for:)`` to `list`: a prefetch's answer gathers them over every campaign ahead into one
    /// list, with no list of its own made per campaign.
    public static func appendCreatives(of candidate: Candidate, for screen: (width: Int, height: Int)?, to list: inout [HeldCreative]) {
        let held = candidate.held
        guard held.count > 1, let target = aspect(screen) else {
            list.append(contentsOf: held)
            return
        }
        let limit = nearestDistance(held, to: target) * aspectFactor
        for creative in held where aspectDistance(creative.aspect, target) <= limit { list.append(creative) }
    }

    /// The creative whose aspect ratio is nearest the screen's; among the nearest, one the client holds, then the
    /// variants not yet seen, by weight; and when the client shows it (what the choice learnt of the client's set
    /// decides it, so that a sha256 is not hashed twice).
    static func chooseCreative(_ candidate: Candidate, request: LaunchRequest, device: DeviceView, seed: UInt64)
        -> (held: HeldCreative, showMoment: ShowMoment)? {
        let held = candidate.held
        guard !held.isEmpty else { return nil }
        let forced = candidate.campaign.forced
        if held.count == 1 { return (held[0], ShowMoment(forced: forced, sha256: held[0].facts.sha256, cached: request.cached)) }
        let target = aspect(request.screen)
        // How far from the screen's shape a creative may be and still count as nearest.
        let limit = target.map { nearestDistance(held, to: $0) * aspectFactor } ?? .infinity
        // Each creative's standing, worked out once (the client's set is asked only when it holds something:
        // hashing a sha256 costs more than the rest of the choice).
        let cached = request.cached, seenNone = !device.hasSeenAnyVariant
        let near: UInt8 = 1, inCache: UInt8 = 2, unseen: UInt8 = 4, pool: UInt8 = 8
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: held.count) { flags -> (held: HeldCreative, showMoment: ShowMoment) in
            var anyCached = false
            // By index, each creative read in place: taken out of the array, each was retained and released.
            for offset in held.indices {
                var flag: UInt8 = 0
                if target.map({ aspectDistance(held[offset].aspect, $0) <= limit }) ?? true {
                    flag = near
                    if !cached.isEmpty && cached.contains(held[offset].facts.sha256) {
                        flag |= inCache
                        anyCached = true
                    }
                }
                flags[offset] = flag
            }
            // The pool: the nearest, and of those the ones the client holds when it holds any.
            var anyUnseen = false, pooled = 0
            for offset in held.indices where flags[offset] & near != 0 && (!anyCached || flags[offset] & inCache != 0) {
                flags[offset] |= pool
                pooled += 1
                if seenNone || !device.hasSeen(variant: held[offset].variantKey) {
                    flags[offset] |= unseen
                    anyUnseen = true
                }
            }
            // All of the pool seen: the variants' rotation starts over, with any of them but the one shown last.
            if !anyUnseen && pooled > 1,
               let last = device.lastSeen(variantWhere: { key in held.indices.contains { flags[$0] & pool != 0 && held[$0].variantKey == key } }),
               held.indices.contains(where: { flags[$0] & pool != 0 && held[$0].variantKey != last }) {
                for offset in held.indices where held[offset].variantKey == last { flags[offset] &= ~pool }
            }
            // Chosen: in the pool, and not yet seen unless all of the pool was.
            let chosen = anyUnseen ? pool | unseen : pool
            var total = 0
            for offset in held.indices where flags[offset] & chosen == chosen { total += max(1, held[offset].weight) }
            var point = Int(mix(seed ^ 0x9E37_79B9_7F4A_7C15) % UInt64(max(1, total)))
            // The pool holds only the nearest, whose flags say whether the client holds them.
            func answer(_ offset: Int) -> (held: HeldCreative, showMoment: ShowMoment) {
                (held[offset], forced || flags[offset] & inCache != 0 ? .now : .later)
            }
            for offset in held.indices where flags[offset] & chosen == chosen {
                point -= max(1, held[offset].weight)
                if point < 0 { return answer(offset) }
            }
            if let offset = held.indices.first(where: { flags[$0] & chosen == chosen }) { return answer(offset) }
            return (held[0], ShowMoment(forced: forced, sha256: held[0].facts.sha256, cached: cached))
        }
    }

    /// The campaigns a launch query chooses `campaign` among: its app's candidates with its forced flag and priority
    /// (the decision's group, before the request's targeting, the clock and caps narrow it). A device's rotation over
    /// them starts over once it has seen them all (see ``DeviceView/rotated(campaigns:variants:after:variant:group:campaignVariants:)``).
    public static func rotationGroup(of campaign: Campaign, in index: AppIndex?) -> [Int64] {
        index?.tier(forced: campaign.forced, priority: campaign.priority)?.members.map(\.campaign.id) ?? []
    }

    /// How long a paced campaign's choice of devices holds (in milliseconds): a device skipped for a campaign over
    /// its pace stays skipped, and one served stays served, until the next interval (or the next share) draws again.
    public static let pacingIntervalMilliseconds: Int64 = 600_000

    /// A serve share as the bound ``servesShare(_:below:_:_:)`` compares a device's 32-bit draw with: `UInt64.max`
    /// without a share or with a share of 1 (every device: the decision compares and draws nothing), 0 for a share of 0
    /// (no device). A share between keeps its precision to 2⁻³² and is never rounded to 0.
    static func shareBound(_ share: Double?) -> UInt64 {
        guard let share, share < 1 else { return .max }
        guard share > 0 else { return 0 }
        return max(1, UInt64((share * 4_294_967_296).rounded()))
    }

    /// Whether a paced campaign is answered to this device now: a draw from the device, the campaign and the pacing
    /// interval, under the share's bound. An anonymous request draws by the millisecond, so anonymous traffic is
    /// still served in proportion.
    @inline(__always)
    static func servesShare(_ campaign: Int64, below bound: UInt64, _ request: LaunchRequest, _ now: Timestamp) -> Bool {
        bound != 0 && servesShare(campaign, below: bound, device: pacingDraw(request, now), now)
    }

    /// The device's part of the pacing draw: the hash of its id, or of the millisecond for an anonymous request.
    @inline(__always)
    static func pacingDraw(_ request: LaunchRequest, _ now: Timestamp) -> UInt64 {
        request.deviceId.map { FNV1a.hash($0) } ?? mix(UInt64(bitPattern: now.milliseconds))
    }

    /// The same draw for a device already hashed (`FNV1a.hash` of its id): what the decision compares, in one place.
    static func servesShare(_ campaign: Int64, below bound: UInt64, device: UInt64, _ now: Timestamp) -> Bool {
        let interval = UInt64(bitPattern: now.milliseconds / pacingIntervalMilliseconds)
        return mix(device ^ mix(UInt64(bitPattern: campaign) ^ mix(interval))) & 0xFFFF_FFFF < bound
    }

    /// A seed stable for a device within a UTC day and a rotation step (anonymous requests share one).
    public static func stableSeed(_ deviceId: String?, now: Timestamp, rotation: Int) -> UInt64 {
        let hash = FNV1a.hash(deviceId ?? "")
        let day = UInt64(bitPattern: now.milliseconds / 86_400_000)
        return mix(hash ^ mix(day) ^ mix(UInt64(rotation) &+ 1))
    }

    static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
