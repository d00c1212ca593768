import JSONRPC
import LaunchAdDomain

/// Impressions, clicks and skips reported by edges for one campaign.
public struct CampaignStats: Sendable, Codable, Hashable {
    public var id: Int64
    public var impressions: Int64
    public var clicks: Int64
    public var skips: Int64

    public init(id: Int64, impressions: Int64, clicks: Int64, skips: Int64) {
        self.id = id
        self.impressions = impressions
        self.clicks = clicks
        self.skips = skips
    }
}

extension CampaignStats: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object([
            "id": .integer("The campaign's id.", minimum: 1),
            "impressions": .integer(minimum: 0),
            "clicks": .integer(minimum: 0),
            "skips": .integer(minimum: 0),
        ], required: ["id", "impressions", "clicks", "skips"], description: "Events counted for one campaign.")
    }
}
