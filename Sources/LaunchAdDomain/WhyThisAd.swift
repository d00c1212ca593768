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
    /// The outcomes of ``explain(_:campaigns:index:device:now:serviceNow:)`` by which a device is answered a campaign:
    /// the decision chose it; or it is eligible in the tier the decision chose from, where the weighted draw and the
    /// device's rotation take turns (the device saw it at the last launch and was moved on by its impression); or it
    /// is held back only by the device's cap, which counts the device's own shows of it.
    static let answeredOutcomes: Set<CampaignOutcome> = [.served, .lostDraw, .capped]

    /// Why the device of `request` is answered campaign `id`, by the decision's own code: the campaign is explained
    /// (``explain(_:campaigns:index:device:now:serviceNow:)``) for `request` (`launch.why` names no launch type: a
    /// campaign answered only when the app comes back from the background is explained for a hot launch after any
    /// time away); `nil` when neither answers it to
    /// the device (never a reason made up for a campaign the device was not answered).
    public static func why(_ request: LaunchRequest, id: Int64, index: AppIndex?, device: DeviceView, now: Timestamp,
                           serviceNow: Timestamp? = nil) -> WhyThisAd? {
        guard let candidate = index?.candidates.first(where: { $0.campaign.id == id }) else { return nil }
        let campaign = candidate.campaign
        var launch = request
        if request.launchType == .cold && !campaign.launchTypes.contains(.cold) && campaign.launchTypes.contains(.hot) {
            launch.launchType = .hot
            launch.backgroundSeconds = Int.max
        }
        let (_, explained) = explain(launch, campaigns: [campaign], index: index, device: device, now: now, serviceNow: serviceNow)
        guard let outcome = explained.first?.outcome, answeredOutcomes.contains(outcome) else { return nil }
        return WhyThisAd(campaign: campaign, reasons: reasons(candidate, launch))
    }

    /// The targeting facts of `candidate` that `request` meets (which ``targetingMiss(_:_:)`` and
    /// ``audienceTakes(_:_:)`` found it to), each with the value that matched: what the campaign leaves untargeted
    /// chose no one and is not a reason.
    static func reasons(_ candidate: Candidate, _ request: LaunchRequest) -> [WhyReason] {
        let campaign = candidate.campaign, targeting = campaign.targeting
        var reasons: [WhyReason] = []
        if targeting.platforms != nil { reasons.append(WhyReason(field: .platform, value: request.platform)) }
        if let range = targeting.appVersions, range.min != nil || range.max != nil {
            let bounds = [range.min.map { ">=" + $0 }, range.max.map { "<" + $0 }].compactMap { $0 }
            reasons.append(WhyReason(field: .appVersion, value: bounds.joined(separator: " ")))
        }
        if let region = request.region, let matched = targeting.regions?.first(where: { sameIgnoringASCIICase(lowercased: $0, region) }) {
            reasons.append(WhyReason(field: .region, value: matched))
        }
        if let locale = request.locale, let locales = targeting.locales,
           let matched = locales.first(where: { sameIgnoringASCIICase(lowercased: $0.lowercased(), locale) }) {
            reasons.append(WhyReason(field: .locale, value: matched))
        }
        if request.launchType == .hot && !campaign.launchTypes.contains(.cold) {
            reasons.append(WhyReason(field: .launchType, value: LaunchType.hot.rawValue))
        }
        if candidate.testDevices != nil { reasons.append(WhyReason(field: .audience, value: Audience.test.rawValue)) }
        if campaign.forced { reasons.append(WhyReason(field: .forced, value: "true")) }
        return reasons
    }
}
