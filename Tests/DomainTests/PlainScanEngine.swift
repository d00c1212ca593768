@testable import LaunchAdDomain

/// The launch decision as a plain scan of every candidate of the app, in their order: what the engine did before its
/// index, kept as the reference that the indexed engine must agree with (see ``IndexedDecisionTests``).
enum PlainScanEngine {
    static func decide(_ request: LaunchRequest, index: AppIndex?, device: DeviceView, now: Timestamp,
                       serviceNow: Timestamp? = nil) -> Decision {
        guard let index else { return Decision(candidate: nil, held: nil, revoked: []) }
        let endClock = max(now, serviceNow ?? now)
        var revoked = index.revoked
        let candidates = index.candidates
        func eligible(_ candidate: Candidate) -> Bool {
            candidate.campaign.endsAt > endClock && candidate.campaign.startsAt <= now && !candidate.held.isEmpty
                && DecisionEngine.matches(candidate, request)
                && DecisionEngine.underCap(candidate.campaign.id, candidate.campaign.frequencyCap, device, now)
                && (candidate.campaign.share == nil
                    || DecisionEngine.servesShare(candidate.campaign.id, below: DecisionEngine.shareBound(candidate.campaign.share), request, now))
        }
        if candidates.contains(where: { $0.campaign.endsAt <= endClock }) {
            var ended: [Int64] = []
            for candidate in candidates where candidate.campaign.endsAt <= endClock && ended.count < DecisionEngine.revokedLimit {
                ended.append(candidate.campaign.id)
            }
            revoked = ended + index.revoked.prefix(DecisionEngine.revokedLimit - ended.count)
        }
        guard let first = candidates.firstIndex(where: eligible) else {
            return Decision(candidate: nil, held: nil, revoked: revoked)
        }
        let forced = candidates[first].campaign.forced, priority = candidates[first].campaign.priority
        var end = first + 1
        while end < candidates.count, candidates[end].campaign.forced == forced, candidates[end].campaign.priority == priority {
            end += 1
        }
        let seed = DecisionEngine.stableSeed(request.deviceId, now: now, rotation: device.rotation)
        let seenNone = device.seenCampaigns.isEmpty
        var inGroup = [Bool](repeating: false, count: end - first)
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
        let onlyUnseen = unseenWeight > 0
        if !onlyUnseen && eligibleCount > 1 {
            func member(_ id: Int64) -> Int? { (0..<(end - first)).first { inGroup[$0] && candidates[first + $0].campaign.id == id } }
            if let last = device.seenCampaigns.last(where: { member($0) != nil }), let offset = member(last) {
                inGroup[offset] = false
                allWeight -= max(1, candidates[first + offset].campaign.weight)
            }
        }
        var point = Int(DecisionEngine.mix(seed) % UInt64(onlyUnseen ? unseenWeight : allWeight))
        var chosen = first
        for offset in 0..<(end - first) where inGroup[offset] {
            let candidate = candidates[first + offset]
            if onlyUnseen && !seenNone && device.hasSeen(campaign: candidate.campaign.id) { continue }
            point -= max(1, candidate.campaign.weight)
            if point < 0 { chosen = first + offset; break }
        }
        let candidate = candidates[chosen]
        // showMoment the plain way: a lookup of the chosen creative in the client's set.
        let held = DecisionEngine.chooseCreative(candidate, request: request, device: device, seed: seed)?.held
        return Decision(candidate: candidate, held: held, revoked: revoked,
                        showMoment: held.map { ShowMoment(forced: candidate.campaign.forced, sha256: $0.facts.sha256, cached: request.cached) } ?? .later)
    }

    /// The rotation group as a scan: the app's candidates with the campaign's forced flag and priority.
    static func rotationGroup(of campaign: Campaign, in index: AppIndex?) -> [Int64] {
        (index?.candidates ?? []).filter { $0.campaign.forced == campaign.forced && $0.campaign.priority == campaign.priority }
            .map(\.campaign.id)
    }
}
