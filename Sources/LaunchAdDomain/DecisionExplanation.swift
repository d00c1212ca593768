/// The part of a campaign's targeting that leaves a launch query out.
public enum TargetingField: String, Sendable, Codable, CaseIterable {
    case platform, appVersion, region, locale, launchType, backgroundSeconds
}

/// Why a campaign of the app was, or was not, the answer to a launch query.
public enum CampaignOutcome: String, Sendable, Codable, CaseIterable {
    /// The answer.
    case served
    /// Eligible, in the tier that answered, and another won the weighted draw (or the rotation's turn).
    case lostDraw = "lost-draw"
    /// Eligible, in a tier below the one that answered (not forced, or a lower priority).
    case lowerPriority = "lower-priority"
    /// Its start has not come.
    case notLiveYet = "not-live-yet"
    /// Its end has passed (by the edge's clock or campaignd's).
    case ended
    case paused, expired, deleted
    /// Its targeting leaves the query out (``CampaignExplanation/field`` says which part).
    case targeting
    /// A test audience's campaign, and the device is not one of its test devices.
    case testAudience = "test-audience"
    /// The device reached its frequency cap.
    case capped
    /// Its goal's pacing skips this device for now (its serve share), or its goal is met for the period.
    case paced
    /// None of its creatives is held.
    case noCreative = "no-creative"
}

/// One campaign's outcome for a launch query.
public struct CampaignExplanation: Sendable, Hashable {
    public var campaign: Campaign
    public var outcome: CampaignOutcome
    /// For ``CampaignOutcome/targeting``: which part.
    public var field: TargetingField?

    public init(campaign: Campaign, outcome: CampaignOutcome, field: TargetingField? = nil) {
        self.campaign = campaign
        self.outcome = outcome
        self.field = field
    }
}

extension DecisionEngine {
    /// The decision ``decide(_:index:device:now:serviceNow:)`` makes, and why each of the app's campaigns (`campaigns`:
    /// those the index was built from, any state) was served, lost or left out, by the engine's own tests: its clock
    /// rule, ``targetingMiss(_:_:)``, ``audienceTakes(_:_:)``, ``underCap(_:_:_:_:)``, ``servesShare(_:below:_:_:)``, the creatives it holds and its tiers. A separate entry
    /// point: the query path does not pay for it.
    public static func explain(_ request: LaunchRequest, campaigns: [Campaign], index: AppIndex?, device: DeviceView, now: Timestamp,
                               serviceNow: Timestamp? = nil) -> (decision: Decision, campaigns: [CampaignExplanation]) {
        let decision = decide(request, index: index, device: device, now: now, serviceNow: serviceNow)
        let endClock = max(now, serviceNow ?? now)
        var candidates: [Int64: Candidate] = [:]
        for candidate in index?.candidates ?? [] { candidates[candidate.campaign.id] = candidate }
        let explained = campaigns.sorted { $0.id < $1.id }.map { campaign -> CampaignExplanation in
            guard let candidate = candidates[campaign.id] else {
                switch campaign.state {
                case .paused: return CampaignExplanation(campaign: campaign, outcome: .paused)
                case .deleted: return CampaignExplanation(campaign: campaign, outcome: .deleted)
                case .expired, .scheduled, .live: return CampaignExplanation(campaign: campaign, outcome: .expired)
                }
            }
            return explain(candidate, request, decision: decision, device: device, now: now, endClock: endClock)
        }
        return (decision, explained)
    }

    /// The outcome of one of the index's candidates for `request`, given the `decision` made for it.
    static func explain(_ candidate: Candidate, _ request: LaunchRequest, decision: Decision, device: DeviceView, now: Timestamp,
                        endClock: Timestamp) -> CampaignExplanation {
        let campaign = candidate.campaign, chosen = decision.campaign
        if campaign.id == chosen?.id { return CampaignExplanation(campaign: campaign, outcome: .served) }
        if campaign.startsAt > now { return CampaignExplanation(campaign: campaign, outcome: .notLiveYet) }
        if campaign.endsAt <= endClock { return CampaignExplanation(campaign: campaign, outcome: .ended) }
        if candidate.held.isEmpty { return CampaignExplanation(campaign: campaign, outcome: .noCreative) }
        if let field = targetingMiss(candidate, request) { return CampaignExplanation(campaign: campaign, outcome: .targeting, field: field) }
        if !audienceTakes(candidate, request) { return CampaignExplanation(campaign: campaign, outcome: .testAudience) }
        if !underCap(campaign.id, campaign.frequencyCap, device, now) { return CampaignExplanation(campaign: campaign, outcome: .capped) }
        if case let bound = shareBound(campaign.share), bound != .max && !servesShare(campaign.id, below: bound, request, now) {
            return CampaignExplanation(campaign: campaign, outcome: .paced)
        }
        if let chosen, chosen.forced == campaign.forced && chosen.priority == campaign.priority {
            return CampaignExplanation(campaign: campaign, outcome: .lostDraw)
        }
        return CampaignExplanation(campaign: campaign, outcome: .lowerPriority)
    }
}
