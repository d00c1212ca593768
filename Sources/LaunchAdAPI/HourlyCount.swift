import JSONRPC
import LaunchAdDomain

/// Events counted for one campaign, in one hour, of one creative: what an edge ships so that campaignd can keep
/// counts over time (``EdgeReport/hourly``).
public struct HourlyCount: Sendable, Codable, Hashable {
    /// The campaign's id.
    public var id: Int64
    /// The start of the hour (UTC) the events happened in.
    public var hour: Timestamp
    /// The creative shown, when the app said which.
    public var sha256: String?
    public var impressions: Int64
    public var clicks: Int64
    public var skips: Int64
    /// Reports of the ad by reason; absent when none (and from an edge older than reports).
    public var reasons: ReportReasons?

    public init(id: Int64, hour: Timestamp, sha256: String? = nil, impressions: Int64 = 0, clicks: Int64 = 0, skips: Int64 = 0,
                reasons: ReportReasons? = nil) {
        self.id = id
        self.hour = hour
        self.sha256 = sha256
        self.impressions = impressions
        self.clicks = clicks
        self.skips = skips
        self.reasons = reasons
    }

    /// Where a count goes: its campaign, hour and creative.
    public struct Key: Sendable, Hashable {
        public var id: Int64
        public var hour: Int64
        public var sha256: String?

        public init(id: Int64, hour: Int64, sha256: String?) {
            self.id = id
            self.hour = hour
            self.sha256 = sha256
        }
    }

    public var key: Key { Key(id: id, hour: hour.milliseconds, sha256: sha256) }

    public static let hourMilliseconds: Int64 = 3_600_000

    /// The start of the hour `time` falls in.
    public static func hour(of time: Timestamp) -> Timestamp {
        Timestamp(milliseconds: floorDiv(time.milliseconds, hourMilliseconds) * hourMilliseconds)
    }

    /// `value` divided by `step`, rounded down (before 1970 too).
    public static func floorDiv(_ value: Int64, _ step: Int64) -> Int64 {
        value >= 0 ? value / step : -((-value + step - 1) / step)
    }

    /// Adds `other`'s counts to these.
    public mutating func add(_ other: HourlyCount) {
        impressions += other.impressions
        clicks += other.clicks
        skips += other.skips
        reasons = ReportReasons.merged(reasons, other.reasons)
    }

    /// The counts merged by key, in order of campaign, hour and creative.
    public static func merged(_ counts: [HourlyCount]) -> [HourlyCount] {
        var byKey: [Key: HourlyCount] = [:]
        for count in counts { byKey[count.key, default: HourlyCount(id: count.id, hour: count.hour, sha256: count.sha256)].add(count) }
        return byKey.values.sorted { ($0.id, $0.hour.milliseconds, $0.sha256 ?? "") < ($1.id, $1.hour.milliseconds, $1.sha256 ?? "") }
    }

    /// The totals per campaign, by campaign id.
    public static func totals(_ counts: [HourlyCount]) -> [CampaignStats] {
        var byId: [Int64: CampaignStats] = [:]
        for count in counts {
            var entry = byId[count.id] ?? CampaignStats(id: count.id, impressions: 0, clicks: 0, skips: 0)
            entry.impressions += count.impressions
            entry.clicks += count.clicks
            entry.skips += count.skips
            entry.reasons = ReportReasons.merged(entry.reasons, count.reasons)
            byId[count.id] = entry
        }
        return byId.values.sorted { $0.id < $1.id }
    }
}

extension HourlyCount: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object([
            "id": .integer("The campaign's id.", minimum: 1),
            "hour": Timestamp.jsonSchema.described("The start of the hour (UTC) the events happened in: within the receiver's stats retention (campaignd's --stats-retention; the longest, 3660 days, at a relay), and no more than 10 minutes ahead of its clock."),
            "sha256": .sha256("The creative shown, when the app said which."),
            "impressions": .integer(minimum: 0, maximum: PeerNumbers.maxCount),
            "clicks": .integer(minimum: 0, maximum: PeerNumbers.maxCount),
            "skips": .integer(minimum: 0, maximum: PeerNumbers.maxCount),
            "reasons": ReportReasons.jsonSchema(maxCount: PeerNumbers.maxCount).described("Reports of the ad by reason; absent when none."),
        ], required: ["id", "hour", "impressions", "clicks", "skips"], description: "Events counted for one campaign, hour and creative.")
    }
}
