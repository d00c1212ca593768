import JSONRPC
import LaunchAdDomain

/// `creative.upload` params: the bytes, base64, and their declared type (checked against the bytes).
public struct CreativeUploadParams: Codable, Sendable {
    public var contentType: String
    public var data: String
    public init(contentType: String, data: String) {
        self.contentType = contentType
        self.data = data
    }
}

/// A campaign and the sequence number of the change that produced it.
public struct CampaignChangeResult: Codable, Sendable {
    public var campaign: Campaign
    public var seq: Int64
    public init(campaign: Campaign, seq: Int64) {
        self.campaign = campaign
        self.seq = seq
    }
}

/// `campaign.update` params: the id and the fields to change, side by side in one object (`{"id":42,"priority":90}`).
@dynamicMemberLookup
public struct CampaignUpdateParams: Codable, Sendable {
    public var id: Int64
    public var fields: CampaignFields

    /// A field, as `params.priority`.
    public subscript<Value>(dynamicMember path: WritableKeyPath<CampaignFields, Value>) -> Value {
        get { fields[keyPath: path] }
        set { fields[keyPath: path] = newValue }
    }

    public init(id: Int64, fields: CampaignFields) {
        self.id = id
        self.fields = fields
    }

    /// `id`, or one of the fields: the members a strict decoding accepts.
    struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }

        init?(stringValue: String) {
            guard stringValue == "id" || CampaignFields.CodingKeys(stringValue: stringValue) != nil else { return nil }
            self.stringValue = stringValue
        }

        init(_ field: CampaignFields.CodingKeys) { stringValue = field.stringValue }
        static let id = Key(stringValue: "id")!
    }

    public init(from decoder: any Decoder) throws {
        struct Decode: CampaignFieldVisitor {
            let container: KeyedDecodingContainer<Key>
            var fields = CampaignFields()
            mutating func visit<Value>(_ field: CampaignField<Value>) throws(any Error) {
                fields[keyPath: field.patch] = try container.decodeIfPresent(Value.self, forKey: Key(field.key))
            }
        }
        let container = try decoder.container(keyedBy: Key.self)
        id = try container.decode(Int64.self, forKey: .id)
        var decode = Decode(container: container)
        try CampaignFields.CodingKeys.acceptAll(&decode)
        fields = decode.fields
    }

    public func encode(to encoder: any Encoder) throws {
        struct Encode: CampaignFieldVisitor {
            var container: KeyedEncodingContainer<Key>
            let fields: CampaignFields
            mutating func visit<Value>(_ field: CampaignField<Value>) throws(any Error) {
                try container.encodeIfPresent(fields[keyPath: field.patch], forKey: Key(field.key))
            }
        }
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(id, forKey: .id)
        var encode = Encode(container: container, fields: fields)
        try CampaignFields.CodingKeys.acceptAll(&encode)
    }
}

public struct CampaignID: Codable, Sendable {
    public var id: Int64
    public init(id: Int64) { self.id = id }
}

public struct CampaignResult: Codable, Sendable {
    public var campaign: Campaign

    public init(campaign: Campaign) {
        self.campaign = campaign
    }
}

public struct CampaignListParams: Codable, Sendable {
    public var app: String?
    public var state: CampaignState?
    public init(app: String? = nil, state: CampaignState? = nil) {
        self.app = app
        self.state = state
    }
}

public struct CampaignListResult: Codable, Sendable {
    public var campaigns: [Campaign]

    public init(campaigns: [Campaign]) {
        self.campaigns = campaigns
    }
}

/// What campaignd knows of one edge.
public struct EdgeInfo: Codable, Sendable, Hashable {
    public var edgeId: String
    public var region: String
    public var epoch: String
    public var appliedSeq: Int64
    public var lastSeen: Timestamp
    public var stale: Bool
    /// The relays the edge is behind, the one nearest campaignd first; absent for an edge (or relay) that speaks to
    /// campaignd itself.
    public var via: [String]?

    public init(edgeId: String, region: String, epoch: String, appliedSeq: Int64, lastSeen: Timestamp, stale: Bool,
                via: [String]? = nil) {
        self.edgeId = edgeId
        self.region = region
        self.epoch = epoch
        self.appliedSeq = appliedSeq
        self.lastSeen = lastSeen
        self.stale = stale
        self.via = via
    }
}

public struct EdgeListResult: Codable, Sendable {
    public var edges: [EdgeInfo]
    /// The service's own sequence number, to compare with each edge's.
    public var seq: Int64
    /// The service's epoch: an edge's `appliedSeq` in another epoch says nothing of this database's changes.
    public var epoch: String?

    public init(edges: [EdgeInfo], seq: Int64, epoch: String? = nil) {
        self.edges = edges
        self.seq = seq
        self.epoch = epoch
    }
}

/// `campaign.stats` params: totals, and a series over time when any of `from`, `to`, `by` or `split` is given.
public struct CampaignStatsParams: Codable, Sendable, Equatable {
    public var id: Int64?
    /// The series' start (default: `to` less a day by hour, less 30 days by day); taken back to its bucket's start.
    public var from: Timestamp?
    /// The series' end, not included (default: now).
    public var to: Timestamp?
    /// The bucket: an hour (default) or a day (UTC).
    public var by: StatsBucket?
    /// Split each bucket by creative, by region, or both.
    public var split: [StatsSplit]?

    public init(id: Int64? = nil, from: Timestamp? = nil, to: Timestamp? = nil, by: StatsBucket? = nil, split: [StatsSplit]? = nil) {
        self.id = id
        self.from = from
        self.to = to
        self.by = by
        self.split = split
    }

    /// Whether a series is asked for.
    public var wantsSeries: Bool { from != nil || to != nil || by != nil || split != nil }
}

public struct CampaignStatsResult: Codable, Sendable {
    /// Totals since the campaign began, by campaign id.
    public var stats: [CampaignStats]
    /// The counts over time, when asked for: by campaign, bucket, then creative and region when split.
    public var series: [StatsPoint]?
    /// With a series: the time zone its days begin in.
    public var timezone: String?
    /// Each live campaign with a goal (of those asked for): its period so far and where it is heading.
    public var pacing: [PacingStats]?

    public init(stats: [CampaignStats], series: [StatsPoint]? = nil, timezone: String? = nil, pacing: [PacingStats]? = nil) {
        self.stats = stats
        self.series = series
        self.timezone = timezone
        self.pacing = pacing
    }
}

/// A campaign's goal for the current period and the forecast line (DESIGN, "Delivery goals and pacing").
public struct PacingStats: Codable, Sendable, Hashable {
    public var id: Int64
    public var goal: CampaignGoal
    public var pacing: CampaignPacing
    /// The period: the day in the app's time zone, or the flight.
    public var from: Timestamp
    public var to: Timestamp
    /// Impressions the edges reported in the period so far.
    public var delivered: Int
    /// Delivered against an even spread of the goal by now: 1 on pace, below 1 behind, above 1 ahead.
    public var pace: Double
    /// The serve share the edges apply (1: every device).
    public var share: Double
    /// What the period will end at, at the traffic seen: below the goal when traffic is too little.
    public var projected: Int
    /// The goal is met for the period: the campaign is no longer answered until the next one.
    public var completed: Bool

    public init(id: Int64, goal: CampaignGoal, pacing: CampaignPacing, from: Timestamp, to: Timestamp, delivered: Int, pace: Double,
                share: Double, projected: Int, completed: Bool) {
        self.id = id
        self.goal = goal
        self.pacing = pacing
        self.from = from
        self.to = to
        self.delivered = delivered
        self.pace = pace
        self.share = share
        self.projected = projected
        self.completed = completed
    }
}
