import JSONRPC
import LaunchAdDomain

/// Impressions, clicks, skips and reports counted by edges for one campaign.
public struct CampaignStats: Sendable, Codable, Hashable {
    public var id: Int64
    public var impressions: Int64
    public var clicks: Int64
    public var skips: Int64
    /// Reports of the ad (every reason): campaignd answers it; an edge's report leaves it out (its ``reasons`` say).
    public var reports: Int64?
    /// Reports of the ad by reason; absent when none.
    public var reasons: ReportReasons?

    public init(id: Int64, impressions: Int64, clicks: Int64, skips: Int64, reports: Int64? = nil, reasons: ReportReasons? = nil) {
        self.id = id
        self.impressions = impressions
        self.clicks = clicks
        self.skips = skips
        self.reports = reports
        self.reasons = reasons
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
            "reports": .integer("Reports of the ad (launch.report kind reported), every reason: in campaign.stats; an edge's report leaves it out.", minimum: 0),
            "reasons": ReportReasons.jsonSchema(maxCount: maxCount).described("Reports of the ad by reason; absent when none."),
        ], required: ["id", "impressions", "clicks", "skips"], description: "Events counted for one campaign.")
    }
}
