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
    public static var jsonSchema: JSONSchema { jsonSchema(maxCount: nil) }

    /// The schema with each count at most `maxCount` (an edge's report: ``PeerNumbers/maxCount``).
    static func jsonSchema(maxCount: Int64?) -> JSONSchema {
        .object([
            "id": .integer("The campaign's id.", minimum: 1),
            "impressions": .integer(minimum: 0, maximum: maxCount),
            "clicks": .integer(minimum: 0, maximum: maxCount),
            "skips": .integer(minimum: 0, maximum: maxCount),
        ], required: ["id", "impressions", "clicks", "skips"], description: "Events counted for one campaign.")
    }
}
