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
        index(campaigns, creatives: creatives, preparer: preparer, apps: nil)
    }

    /// `index` with the entries of `apps` built again from `campaigns` and every other app's entry kept: for a
    /// change that touches a few apps among many.
    public static func reindex(_ index: [String: AppIndex], apps: Set<String>, campaigns: some Sequence<Campaign>,
                               creatives: [String: CreativeFacts], preparer: AnswerPreparer) -> [String: AppIndex] {
        var result = index
        for app in apps { result[app] = nil }
        for (app, entry) in Self.index(campaigns, creatives: creatives, preparer: preparer, apps: apps) { result[app] = entry }
        return result
    }

    private static func index(_ campaigns: some Sequence<Campaign>, creatives: [String: CreativeFacts], preparer: AnswerPreparer,
                              apps: Set<String>?) -> [String: AppIndex] {
        var candidates: [String: [Campaign]] = [:]
        var revoked: [String: [Campaign]] = [:]
        for campaign in campaigns {
            if let apps, !apps.contains(campaign.app) { continue }
            switch campaign.state {
            case .scheduled, .live: candidates[campaign.app, default: []].append(campaign)
            case .expired, .deleted: revoked[campaign.app, default: []].append(campaign)
            case .paused: continue
            }
        }
        var result: [String: AppIndex] = [:]
        for app in Set(candidates.keys).union(revoked.keys) {
            let sorted = (candidates[app] ?? []).sorted { a, b in
                if a.forced != b.forced { return a.forced }
                if a.priority != b.priority { return a.priority > b.priority }
                return a.id < b.id
            }
            let gone = (revoked[app] ?? []).sorted { $0.updatedAt > $1.updatedAt }.prefix(revokedLimit).map(\.id)
            result[app] = AppIndex(candidates: sorted.map { Candidate($0, creatives: creatives, preparer: preparer) }, revoked: Array(gone))
        }
        return result
    }

    /// Decides the answer, without allocating on the way (but for the revoked list, when the clock ends a campaign).
    /// - Parameters:
    ///   - now: the edge's clock.
    ///   - serviceNow: the edge's estimate of campaignd's clock; a campaign is over once either clock passed its end.
    public static func decide(_ request: LaunchRequest, index: AppIndex?, device: DeviceView, now: Timestamp,
                              serviceNow: Timestamp? = nil) -> Decision {
        guard let index else { return Decision(candidate: nil, held: nil, revoked: []) }
        let endClock = max(now, serviceNow ?? now)
        var revoked = index.revoked
        let candidates = index.candidates
        // The campaign's fields are read in place (a copy of the whole campaign costs a reference count per field).
        func eligible(_ candidate: Candidate) -> Bool {
            candidate.campaign.endsAt > endClock && candidate.campaign.startsAt <= now && !candidate.held.isEmpty
                && matches(candidate, request) && underCap(candidate.campaign.id, candidate.campaign.frequencyCap, device, now)
        }
        if index.earliestEnd <= endClock {
            // Campaigns ended by the clock come first: campaignd has not said so yet (or cannot reach the edge), and
            // they are the takedowns a client is the likeliest to still hold. The limit drops the oldest of the rest.
            var ended: [Int64] = []
            for candidate in candidates where candidate.campaign.endsAt <= endClock && ended.count < revokedLimit {
                ended.append(candidate.campaign.id)
            }
            revoked = ended + index.revoked.prefix(revokedLimit - ended.count)
        }
        // Candidates are sorted: the first eligible one leads the best group (same forced flag and priority).
        guard let first = candidates.firstIndex(where: eligible) else {
            return Decision(candidate: nil, held: nil, revoked: revoked)
        }
        let forced = candidates[first].campaign.forced, priority = candidates[first].campaign.priority
        var end = first + 1
        while end < candidates.count, candidates[end].campaign.forced == forced, candidates[end].campaign.priority == priority {
            end += 1
        }
        let seed = stableSeed(request.deviceId, now: now, rotation: device.rotation)
        let seenNone = !device.hasSeenAnyCampaign
        let chosen = withUnsafeTemporaryAllocation(of: Bool.self, capacity: end - first) { inGroup -> Int in
            var unseenWeight = 0, allWeight = 0, eligibleCount = 0
            for offset in 0..<(end - first) {
                let candidate = candidates[first + offset]
                let ok = offset == 0 || eligible(candidate)
                inGroup[offset] = ok
                guard ok else { continue }
                eligibleCount += 1
                allWeight += max(1, candidate.campaign.weight)
                if seenNone || !device.hasSeen(campaign: candidate.campaign.id) { unseenWeight += max(1, candidate.campaign.weight) }
            }
            // Not repeating what the device saw, unless it saw them all: then the rotation starts over, with any of
            // them but the one shown last.
            let onlyUnseen = unseenWeight > 0
            if !onlyUnseen && eligibleCount > 1 {
                func member(_ id: Int64) -> Int? { (0..<(end - first)).first { inGroup[$0] && candidates[first + $0].campaign.id == id } }
                if let last = device.lastSeen(campaignWhere: { member($0) != nil }), let offset = member(last) {
                    inGroup[offset] = false
                    allWeight -= max(1, candidates[first + offset].campaign.weight)
                }
            }
            var point = Int(mix(seed) % UInt64(onlyUnseen ? unseenWeight : allWeight))
            for offset in 0..<(end - first) where inGroup[offset] {
                let candidate = candidates[first + offset]
                if onlyUnseen && !seenNone && device.hasSeen(campaign: candidate.campaign.id) { continue }
                point -= max(1, candidate.campaign.weight)
                if point < 0 { return first + offset }
            }
            return first
        }
        let candidate = candidates[chosen]
        let creative = chooseCreative(candidate, request: request, device: device, seed: seed)
        return Decision(candidate: candidate, held: creative, revoked: revoked)
    }

    /// Whether the campaign targets this request (platform, version range, region, locale, launch type).
    public static func matches(_ candidate: Candidate, _ request: LaunchRequest) -> Bool {
        let campaign = candidate.campaign
        guard campaign.launchTypes.contains(request.launchType) else { return false }
        if request.launchType == .hot {
            guard let seconds = request.backgroundSeconds, seconds >= (campaign.minBackgroundSeconds ?? 0) else { return false }
        }
        let targeting = campaign.targeting
        if let platforms = targeting.platforms, !platforms.contains(request.platform) { return false }
        if let min = candidate.minVersion, request.appVersion < min { return false }
        if let max = candidate.maxVersion, !(request.appVersion < max) { return false }
        if let regions = targeting.regions {
            // Targeted regions are lower case (campaign rules); a request's matches in any case of its ASCII letters.
            guard let region = request.region, regions.contains(where: { sameIgnoringASCIICase(lowercased: $0, region) }) else {
                return false
            }
        }
        if let locales = candidate.locales {
            guard let locale = request.locale, locales.contains(where: { sameIgnoringASCIICase(lowercased: $0, locale) }) else {
                return false
            }
        }
        return true
    }

    /// Whether `text` is `lowercased` (an ASCII language tag in lower case) but for the case of its ASCII letters:
    /// what `lowercased == text.lowercased()` says for such a tag, without making a string. (A character outside
    /// ASCII takes more than one byte, so a text holding one never has as many bytes as an ASCII tag it could
    /// lower-case to.)
    static func sameIgnoringASCIICase(lowercased: String, _ text: String) -> Bool {
        guard lowercased.utf8.count == text.utf8.count else { return false }
        for (expected, byte) in zip(lowercased.utf8, text.utf8) {
            let lower = byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte
            guard lower == expected else { return false }
        }
        return true
    }

    static func underCap(_ campaign: Int64, _ cap: FrequencyCap?, _ device: DeviceView, _ now: Timestamp) -> Bool {
        guard let cap else { return true }
        return device.shows(of: campaign, hours: cap.hours, now: now) < cap.shows
    }

    /// How much farther a creative's aspect ratio may be from the screen's than the nearest one's and still count as
    /// nearest (in log(width / height), about 2%): shapes that differ by a few pixels are the same shape.
    static let aspectTolerance = 0.02

    /// The screen's log(width / height), what the creatives' aspect ratios are compared with; `nil` without a screen.
    static func logAspect(_ screen: (width: Int, height: Int)?) -> Double? {
        guard let screen, screen.width > 0, screen.height > 0 else { return nil }
        return log(Double(screen.width) / Double(screen.height))
    }

    /// How far the nearest of `held` is from `target`.
    static func nearestDistance(_ held: [HeldCreative], to target: Double) -> Double {
        var best = Double.infinity
        for creative in held { best = min(best, abs(creative.logAspect - target)) }
        return best
    }

    /// The creatives of `candidate` that a launch query from `screen` may be answered with: those whose aspect ratio
    /// is nearest the screen's (every one without a screen), in their order. What a client on that screen needs to
    /// download; the others it would never be shown.
    public static func creatives(of candidate: Candidate, for screen: (width: Int, height: Int)?) -> [HeldCreative] {
        let held = candidate.held
        guard held.count > 1, let target = logAspect(screen) else { return held }
        let limit = nearestDistance(held, to: target) + aspectTolerance
        return held.filter { abs($0.logAspect - target) <= limit }
    }

    /// The creative whose aspect ratio is nearest the screen's; among the nearest, one the client holds, then the
    /// variants not yet seen, by weight.
    static func chooseCreative(_ candidate: Candidate, request: LaunchRequest, device: DeviceView, seed: UInt64) -> HeldCreative? {
        let held = candidate.held
        guard !held.isEmpty else { return nil }
        if held.count == 1 { return held[0] }
        let target = logAspect(request.screen)
        let best = target.map { nearestDistance(held, to: $0) } ?? .infinity
        // Each creative's standing, worked out once (the client's set is asked only when it holds something:
        // hashing a sha256 costs more than the rest of the choice).
        let cached = request.cached, seenNone = !device.hasSeenAnyVariant
        let near: UInt8 = 1, inCache: UInt8 = 2, unseen: UInt8 = 4, pool: UInt8 = 8
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: held.count) { flags -> HeldCreative in
            var anyCached = false
            for (offset, creative) in held.enumerated() {
                var flag: UInt8 = 0
                if target.map({ abs(creative.logAspect - $0) <= best + aspectTolerance }) ?? true {
                    flag = near
                    if !cached.isEmpty && cached.contains(creative.facts.sha256) {
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
            for offset in held.indices where flags[offset] & chosen == chosen {
                point -= max(1, held[offset].weight)
                if point < 0 { return held[offset] }
            }
            return held.indices.first { flags[$0] & chosen == chosen }.map { held[$0] } ?? held[0]
        }
    }

    /// The campaigns a launch query chooses `campaign` among: its app's candidates with its forced flag and priority
    /// (the decision's group, before the request's targeting, the clock and caps narrow it). A device's rotation over
    /// them starts over once it has seen them all (see ``DeviceView/rotated(campaigns:variants:after:variant:group:campaignVariants:)``).
    public static func rotationGroup(of campaign: Campaign, in index: AppIndex?) -> [Int64] {
        (index?.candidates ?? []).filter { $0.campaign.forced == campaign.forced && $0.campaign.priority == campaign.priority }
            .map(\.campaign.id)
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
