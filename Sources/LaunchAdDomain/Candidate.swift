#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A creative of a campaign that the edge holds, with what the choice needs precomputed. A class, so the query
/// path passes one reference instead of copying its strings and prepared bytes.
public final class HeldCreative: Sendable {
    public let facts: CreativeFacts
    public let weight: Int
    /// `/creatives/{sha256}`, the path of its bytes on the edge's HTTP server.
    public let path: String
    /// Its aspect ratio (width / height), compared with a screen's by their ratio (``DecisionEngine/aspectDistance(_:_:)``).
    let aspect: Double
    /// Its sha256 as a device's history keeps it (``DeviceView/variantKey(_:)``).
    public let variantKey: UInt64
    /// The launch answer's members that depend only on the campaign and this creative, as JSON text, written once
    /// when the state changes instead of on every query, in both forms of `showMoment` (see ``LaunchAnswerParts``).
    public let answerParts: LaunchAnswerParts
    /// The same for a `launch.prefetch` answer's item: the creative with its campaign's id and window.
    public let prefetchParts: AnswerParts

    init(facts: CreativeFacts, weight: Int, path: String, aspect: Double, answerParts: LaunchAnswerParts, prefetchParts: AnswerParts) {
        self.facts = facts
        self.weight = weight
        self.path = path
        self.aspect = aspect
        variantKey = DeviceView.variantKey(facts.sha256)
        self.answerParts = answerParts
        self.prefetchParts = prefetchParts
    }
}

/// A campaign prepared for the launch query: its targeting parsed and its held creatives resolved once, when the
/// state changes, instead of on every query. A class, so the query path passes references, not copies.
public final class Candidate: Sendable {
    public let campaign: Campaign
    let minVersion: AppVersion?
    let maxVersion: AppVersion?
    let locales: [String]?
    /// With a test audience, the devices it is answered to (`nil`: every device).
    let testDevices: Set<String>?
    public let held: [HeldCreative]
    /// The campaign's end as the answer writes it, formatted once here rather than per query.
    public let expiresAtText: String

    init(_ campaign: Campaign, creatives: [String: CreativeFacts], preparer: AnswerPreparer) {
        self.campaign = campaign
        expiresAtText = campaign.endsAt.rfc3339
        minVersion = campaign.targeting.appVersions?.min.flatMap(AppVersion.init)
        maxVersion = campaign.targeting.appVersions?.max.flatMap(AppVersion.init)
        locales = campaign.targeting.locales?.map { $0.lowercased() }
        testDevices = campaign.audience == .test ? Set(campaign.testDevices ?? []) : nil
        let expiresAt = self.expiresAtText, startsAt = campaign.startsAt.rfc3339
        held = campaign.creatives.compactMap { ref in
            creatives[ref.sha256].map { facts in
                let path = "/creatives/" + facts.sha256
                return HeldCreative(facts: facts, weight: ref.weight, path: path,
                                    aspect: Double(max(1, facts.width)) / Double(max(1, facts.height)),
                                    answerParts: preparer.answer(campaign, facts, path, expiresAt),
                                    prefetchParts: preparer.prefetchItem(campaign, facts, path, startsAt, expiresAt))
            }
        }
    }
}
