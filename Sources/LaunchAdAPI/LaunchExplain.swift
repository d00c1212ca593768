import JSONRPC
import LaunchAdDomain

/// One campaign of the app in a `launch.explain` answer: what it is, and why it was served, lost or left out.
public struct ExplainedCampaign: Codable, Sendable, Hashable {
    public var id: Int64
    public var name: String
    public var state: CampaignState
    public var priority: Int
    public var forced: Bool
    public var outcome: CampaignOutcome
    /// For `targeting`: the part of the targeting that leaves the query out.
    public var field: TargetingField?

    public init(_ explanation: CampaignExplanation) {
        let campaign = explanation.campaign
        id = campaign.id
        name = campaign.name
        state = campaign.state
        priority = campaign.priority
        forced = campaign.forced
        outcome = explanation.outcome
        field = explanation.field
    }
}

/// `launch.explain` answer: what an edge holding campaignd's state would answer now, and why for every campaign.
public struct LaunchExplainResult: Codable, Sendable {
    /// Whether an ad would be answered.
    public var hasAd: Bool
    /// The campaign and creative answered.
    public var id: Int64?
    public var sha256: String?
    /// The ids the answer would tell the client to drop.
    public var revoked: [Int64]
    /// Every campaign of the app but deleted ones, by id.
    public var campaigns: [ExplainedCampaign]
    /// campaignd's time the decision was made at.
    public var at: Timestamp

    public init(hasAd: Bool, id: Int64? = nil, sha256: String? = nil, revoked: [Int64], campaigns: [ExplainedCampaign], at: Timestamp) {
        self.hasAd = hasAd
        self.id = id
        self.sha256 = sha256
        self.revoked = revoked
        self.campaigns = campaigns
        self.at = at
    }
}

extension ExplainedCampaign: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object([
            "id": .integer("The campaign's id.", minimum: 1),
            "name": .string(),
            "state": CampaignState.jsonSchema,
            "priority": .integer(minimum: 0, maximum: 100),
            "forced": .boolean(),
            "outcome": JSONSchema.cases(of: CampaignOutcome.self, "served; lost-draw (same tier, another won the weighted draw or the rotation's turn); lower-priority (a higher tier answered); not-live-yet; ended; paused; expired; targeting (see field); test-audience (answered only to its test devices); capped; paced (its goal's serve share skips this device for now, or the goal is met); no-creative (none held)."),
            "field": JSONSchema.cases(of: TargetingField.self, "For targeting: the part that leaves the query out."),
        ], required: ["id", "name", "state", "priority", "forced", "outcome"])
    }
}

extension LaunchExplainResult: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object([
            "hasAd": .boolean("Whether an ad would be answered."),
            "id": .integer("The campaign answered.", minimum: 1),
            "sha256": .sha256("The creative answered."),
            "revoked": .array(of: .integer(), "The ids the answer would tell the client to drop."),
            "campaigns": .array(of: ExplainedCampaign.jsonSchema, "Every campaign of the app but deleted ones, by id."),
            "at": Timestamp.jsonSchema.described("campaignd's time of the decision."),
        ], required: ["hasAd", "revoked", "campaigns", "at"])
    }
}
