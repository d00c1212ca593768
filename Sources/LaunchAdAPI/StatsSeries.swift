import JSONRPC
import LaunchAdDomain

/// The length of a bucket of a stats series.
public enum StatsBucket: String, Codable, Sendable, CaseIterable {
    case hour, day

    public var milliseconds: Int64 { self == .hour ? HourlyCount.hourMilliseconds : 24 * HourlyCount.hourMilliseconds }

    /// The longest series asked at once: a month of hours, a year of days.
    public var maxSpanMilliseconds: Int64 { self == .hour ? 31 * 24 * HourlyCount.hourMilliseconds : 366 * 24 * HourlyCount.hourMilliseconds }

    /// The span of a series when `from` is not given.
    public var defaultSpanMilliseconds: Int64 { self == .hour ? 24 * HourlyCount.hourMilliseconds : 30 * 24 * HourlyCount.hourMilliseconds }

    /// The span a series of these buckets covers, checked: `from` (default: `to` less ``defaultSpanMilliseconds``)
    /// taken back to its bucket's start (a day's in `zone`), `to` (default: `now`) after it, and no longer than
    /// ``maxSpanMilliseconds``; an error names the param.
    public func span(from: Timestamp?, to: Timestamp?, now: Timestamp, zone: DayZone = .utc) throws(JSONRPCError) -> (from: Timestamp, to: Timestamp) {
        let to = to ?? now
        let from = start(of: from ?? to.adding(seconds: -Double(defaultSpanMilliseconds) / 1000), zone: zone)
        guard from < to else { throw .invalidParams(field: "to", "must be after from") }
        guard to.milliseconds - from.milliseconds <= maxSpanMilliseconds else {
            throw .invalidParams(field: "from", "the series may span at most \(maxSpanMilliseconds / (24 * HourlyCount.hourMilliseconds)) days by \(rawValue)")
        }
        return (from, to)
    }

    /// The start of the bucket `time` falls in: its UTC hour, or its day in `zone`.
    public func start(of time: Timestamp, zone: DayZone = .utc) -> Timestamp {
        switch self {
        case .hour: Timestamp(milliseconds: HourlyCount.floorDiv(time.milliseconds, milliseconds) * milliseconds)
        case .day: zone.startOfDay(containing: time)
        }
    }
}

/// What a stats series' buckets may be split by.
public enum StatsSplit: String, Codable, Sendable, CaseIterable {
    case creative, region
}

/// One bucket of a stats series.
public struct StatsPoint: Codable, Sendable, Hashable {
    /// The campaign's id.
    public var id: Int64
    /// The bucket's start.
    public var at: Timestamp
    /// The creative, when split by creative (empty: the app did not say which, or an older edge).
    public var creative: String?
    /// The edge's region, when split by region.
    public var region: String?
    public var impressions: Int64
    public var clicks: Int64
    public var skips: Int64
    /// Reports of the ad (launch.report kind reported), every reason.
    public var reports: Int64?

    public init(id: Int64, at: Timestamp, creative: String? = nil, region: String? = nil, impressions: Int64, clicks: Int64, skips: Int64,
                reports: Int64? = nil) {
        self.reports = reports
        self.id = id
        self.at = at
        self.creative = creative
        self.region = region
        self.impressions = impressions
        self.clicks = clicks
        self.skips = skips
    }
}

/// A checked series query: what the store answers.
public struct StatsQuery: Sendable, Hashable {
    public var id: Int64?
    public var from: Timestamp
    public var to: Timestamp
    public var by: StatsBucket
    public var byCreative: Bool
    public var byRegion: Bool
    /// Where days begin, by day.
    public var zone: DayZone

    public init(id: Int64?, from: Timestamp, to: Timestamp, by: StatsBucket, byCreative: Bool, byRegion: Bool, zone: DayZone = .utc) {
        self.id = id
        self.from = from
        self.to = to
        self.by = by
        self.byCreative = byCreative
        self.byRegion = byRegion
        self.zone = zone
    }
}

extension CampaignStatsParams {
    /// The series query these params ask for at `now`, checked: `from` before `to`, within the longest span, no split
    /// named twice; an error names the param. Days begin in `zone`.
    public func seriesQuery(now: Timestamp, zone: DayZone = .utc) throws(JSONRPCError) -> StatsQuery {
        let by = by ?? .hour
        let (from, to) = try by.span(from: from, to: to, now: now, zone: zone)
        let split = split ?? []
        guard Set(split).count == split.count else { throw .invalidParams(field: "split", "must not name a split twice") }
        return StatsQuery(id: id, from: from, to: to, by: by, byCreative: split.contains(.creative), byRegion: split.contains(.region),
                          zone: zone)
    }
}

extension StatsPoint: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object([
            "id": .integer("The campaign's id.", minimum: 1),
            "at": Timestamp.jsonSchema.described("The bucket's start: an hour's, or a day's in the zone the answer names."),
            "creative": .string("The creative's sha256, when split by creative (empty: not said by the app, or counted by an older edge)."),
            "region": .string("The edge's region, when split by region."),
            "impressions": .integer(minimum: 0),
            "clicks": .integer(minimum: 0),
            "skips": .integer(minimum: 0),
            "reports": .integer("Reports of the ad (launch.report kind reported), every reason.", minimum: 0),
        ], required: ["id", "at", "impressions", "clicks", "skips"], description: "One bucket of a stats series.")
    }
}
