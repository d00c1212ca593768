import JSONRPC
import LaunchAdDomain

/// One committed change as edges receive it: the next gapless sequence number, what happened, and the campaign
/// after it. (Who made it stays in campaignd's change log: an edge has no use for an operator's key.)
public struct Change: Sendable, Codable, Hashable {
    public var seq: Int64
    public var op: CampaignOperation
    public var id: Int64
    public var campaign: Campaign
    public var at: Timestamp

    public init(seq: Int64, op: CampaignOperation, id: Int64, campaign: Campaign, at: Timestamp) {
        self.seq = seq
        self.op = op
        self.id = id
        self.campaign = campaign
        self.at = at
    }
}

extension Change: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object([
            "seq": .integer("The change's sequence number: the next after the one before, without gaps.", minimum: 1),
            "op": CampaignOperation.jsonSchema,
            "id": .integer("The campaign's id.", minimum: 1),
            "campaign": .of(Campaign.self).described("The campaign after the change."),
            "at": Timestamp.jsonSchema.described("When it was committed."),
        ], required: ["seq", "op", "id", "campaign", "at"], description: "One committed change.")
    }
}
