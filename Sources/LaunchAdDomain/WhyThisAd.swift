/// A main parameter by which a device was chosen for a campaign (DSA Art. 26, Apple's guideline 2.5.18): the name of
/// one of the campaign's targeting facts that the device met.
public enum WhyField: String, Sendable, Codable, CaseIterable {
    /// The platforms the campaign targets; the value is the device's, one of them.
    case platform
    /// The range of app versions the campaign targets, as `>=MIN`, `<MAX` or `>=MIN <MAX`.
    case appVersion
    /// The region the campaign targets that the device's matched.
    case region
    /// The locale the campaign targets that the device's matched.
    case locale
    /// `hot`: the campaign is answered only when the app comes back from the background.
    case launchType
    /// `test`: the campaign is answered only to its test devices, and this device is one of them.
    case audience
    /// `true`: the campaign is forced, answered ahead of every campaign that is not.
    case forced
}

/// One reason in a `launch.why` answer: a targeting fact of the campaign and the value that matched.
public struct WhyReason: Sendable, Hashable, Codable {
    public var field: WhyField
    public var value: String

    public init(field: WhyField, value: String) {
        self.field = field
        self.value = value
    }
}

/// Why a device was answered a campaign: the campaign, and the targeting facts of it that the device met.
public struct WhyThisAd: Sendable {
    public var campaign: Campaign
    /// In the order of ``WhyField``'s cases; empty for a campaign that targets every device of its app.
    public var reasons: [WhyReason]
}

extension DecisionEngine {
    /// Why the device of `request` is answered campaign `id`, by the decision's own code: one decision for
    /// `request`, and the campaign's outcome in it (``explain(_:_:decision:device:now:endClock:)``). It is answered
    /// when the decision chose it; when it is eligible in the tier the decision chose from, where the weighted draw
    /// and the device's rotation take turns (the device saw it at the last launch and was moved on by its
    /// impression); or when only the device's own cap holds it back now (its shows are what filled the cap) and its
    /// tier is at or above the chosen one's, or nothing was chosen. `nil` otherwise: never a reason made up for a
    /// campaign the device was not answered.
    ///
    /// `launch.why` names no launch type: a campaign is explained for a cold launch first and, when that does not
    /// answer it and it is also shown at hot launches, for a hot launch after any time away (one shown behind a
    /// higher cold-only campaign at a cold launch is the answer of a hot one).
    public static func why(_ request: LaunchRequest, id: Int64, index: AppIndex?, device: DeviceView, now: Timestamp,
                           serviceNow: Timestamp? = nil) -> WhyThisAd? {
        guard let candidate = index?.candidates.first(where: { $0.campaign.id == id }) else { return nil }
        let endClock = max(now, serviceNow ?? now)
        for type in [LaunchType.cold, .hot] where candidate.campaign.launchTypes.contains(type) {
            let launch = type == request.launchType ? request : request.launched(as: type)
            let decision = decide(launch, index: index, device: device, now: now, serviceNow: serviceNow)
            let outcome = explain(candidate, launch, decision: decision, device: device, now: now, endClock: endClock).outcome
            if answered(outcome, candidate.campaign, chosen: decision.campaign) {
                return WhyThisAd(campaign: candidate.campaign, reasons: reasons(candidate, launch))
            }
        }
        return nil
    }

    /// Whether a campaign of `outcome` is one the device is answered: see ``why(_:id:index:device:now:serviceNow:)``.
    static func answered(_ outcome: CampaignOutcome, _ campaign: Campaign, chosen: Campaign?) -> Bool {
        switch outcome {
        case .served, .lostDraw: return true
        case .capped:
            // A capped campaign below the chosen tier would not have been answered even without its cap.
            guard let chosen else { return true }
            return (campaign.forced ? 1 : 0, campaign.priority) >= (chosen.forced ? 1 : 0, chosen.priority)
        default: return false
        }
    }

    /// The targeting facts of `candidate` that `request` meets, each with the value that matched, by the matchers
    /// ``targetingMiss(_:_:)`` uses (``firstMatch(_:_:)``): what the campaign leaves untargeted chose no one and is
    /// not a reason.
    static func reasons(_ candidate: Candidate, _ request: LaunchRequest) -> [WhyReason] {
        let campaign = candidate.campaign, targeting = campaign.targeting
        var reasons: [WhyReason] = []
        if targeting.platforms != nil { reasons.append(WhyReason(field: .platform, value: request.platform)) }
        if let range = targeting.appVersions, range.min != nil || range.max != nil {
            let bounds = [range.min.map { ">=" + $0 }, range.max.map { "<" + $0 }].compactMap { $0 }
            reasons.append(WhyReason(field: .appVersion, value: bounds.joined(separator: " ")))
        }
        if let regions = targeting.regions, let matched = firstMatch(regions, request.region) {
            reasons.append(WhyReason(field: .region, value: regions[matched]))
        }
        // The candidate's locales are the campaign's lowered, in its order: the match names the campaign's own spelling.
        if let locales = targeting.locales, let lowered = candidate.locales, let matched = firstMatch(lowered, request.locale) {
            reasons.append(WhyReason(field: .locale, value: locales[matched]))
        }
        if !campaign.launchTypes.contains(.cold) {
            reasons.append(WhyReason(field: .launchType, value: LaunchType.hot.rawValue))
        }
        if candidate.testDevices != nil { reasons.append(WhyReason(field: .audience, value: Audience.test.rawValue)) }
        if campaign.forced { reasons.append(WhyReason(field: .forced, value: "true")) }
        return reasons
    }
}
