import JSONRPC
import LaunchAdDomain

/// `report.list`'s params: reported campaigns, of one app or every app, from an hour on.
public struct ReportListParams: Codable, Sendable, Hashable {
    /// One app's campaigns (default: every app's).
    public var app: String?
    /// Reports of the hours from this time's hour on (default: every hour campaignd keeps, --stats-retention).
    public var since: Timestamp?
    /// The most campaigns listed (default ``defaultLimit``, at most ``maxLimit``).
    public var limit: Int?

    public static let defaultLimit = 100
    public static let maxLimit = 1000

    public init(app: String? = nil, since: Timestamp? = nil, limit: Int? = nil) {
        self.app = app
        self.since = since
        self.limit = limit
    }

    /// The limit asked for, checked: an error names the field.
    public func checkedLimit() throws(JSONRPCError) -> Int {
        guard let limit else { return Self.defaultLimit }
        guard (1...Self.maxLimit).contains(limit) else {
            throw .invalidParams(field: "limit", "must be between 1 and \(Self.maxLimit)")
        }
        return limit
    }

    /// Checks the app's id (the limit is ``checkedLimit()``'s).
    public func check() throws(JSONRPCError) {
        if let app { try AppID.validate(app, field: "app") }
    }
}

/// A campaign's reports as `report.list` lists them.
public struct ReportedCampaign: Codable, Sendable, Hashable {
    public var id: Int64
    public var name: String
    public var app: String
    /// Every reason's reports together.
    public var total: Int64
    public var reasons: ReportReasons
    /// The start of the hour (UTC) of its latest report.
    public var lastAt: Timestamp

    public init(id: Int64, name: String, app: String, total: Int64, reasons: ReportReasons, lastAt: Timestamp) {
        self.id = id
        self.name = name
        self.app = app
        self.total = total
        self.reasons = reasons
        self.lastAt = lastAt
    }
}

/// `report.list`'s answer: the reported campaigns, the most reported first.
public struct ReportListResult: Codable, Sendable, Hashable {
    public var campaigns: [ReportedCampaign]

    public init(campaigns: [ReportedCampaign]) {
        self.campaigns = campaigns
    }
}

extension ReportListParams: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object([
            "app": AppID.schema("One app's campaigns (default: every app's)."),
            "since": Timestamp.jsonSchema.described("Reports of the hours from this time's hour (UTC) on (default: every hour kept, --stats-retention)."),
            "limit": .integer("The most campaigns listed (default \(defaultLimit)).", minimum: 1, maximum: Int64(maxLimit)),
        ])
    }
}

extension ReportedCampaign: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object([
            "id": campaignIDSchema,
            "name": .string(),
            "app": AppID.schema("The campaign's app."),
            "total": .integer("Its reports, every reason.", minimum: 1),
            "reasons": ReportReasons.jsonSchema,
            "lastAt": Timestamp.jsonSchema.described("The start of the hour (UTC) of its latest report."),
        ], required: ["id", "name", "app", "total", "reasons", "lastAt"], description: "A reported campaign.")
    }
}

extension ReportListResult: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object(["campaigns": .array(of: ReportedCampaign.jsonSchema, "The most reported first, then by id.")], required: ["campaigns"])
    }
}
