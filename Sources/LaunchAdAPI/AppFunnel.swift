import JSONRPC
import LaunchAdDomain

/// The launches of one app counted in one hour by an edge: its apps' reports of the funnel (`request`, `noAd`,
/// `timeout`, `failed`) and the impressions of the app's campaigns, shipped with the hourly counts
/// (``EdgeReport/apps``) so that campaignd can answer `app.stats`.
public struct AppHourlyCount: Sendable, Codable, Hashable {
    /// The app's id (as `launch.query`'s `app`).
    public var app: String
    /// The start of the hour (UTC) the launches happened in; in a store's series, the start of the bucket.
    public var hour: Timestamp
    /// `request` reports: the app asked for an ad.
    public var requests: Int64
    /// `noAd` reports: there was nothing to show.
    public var noAds: Int64
    /// `timeout` reports: the budget passed and nothing was shown.
    public var timeouts: Int64
    /// `failed` reports: the media could not be shown.
    public var failures: Int64
    /// Impressions of the app's campaigns.
    public var shows: Int64

    public init(app: String, hour: Timestamp, requests: Int64 = 0, noAds: Int64 = 0, timeouts: Int64 = 0, failures: Int64 = 0, shows: Int64 = 0) {
        self.app = app
        self.hour = hour
        self.requests = requests
        self.noAds = noAds
        self.timeouts = timeouts
        self.failures = failures
        self.shows = shows
    }

    /// Where a count goes: its app and hour.
    public struct Key: Sendable, Hashable {
        public var app: String
        public var hour: Int64

        public init(app: String, hour: Int64) {
            self.app = app
            self.hour = hour
        }
    }

    public var key: Key { Key(app: app, hour: hour.milliseconds) }

    /// The five counts, in the order of the fields (the order the seal and the bounds take them in).
    public var numbers: [Int64] { [requests, noAds, timeouts, failures, shows] }

    /// Adds `other`'s counts to these, stopping at `Int64.max` (counts restored after a refusal add to counts since).
    public mutating func add(_ other: AppHourlyCount) {
        requests = requests.addingSaturated(other.requests)
        noAds = noAds.addingSaturated(other.noAds)
        timeouts = timeouts.addingSaturated(other.timeouts)
        failures = failures.addingSaturated(other.failures)
        shows = shows.addingSaturated(other.shows)
    }

    /// Counts one event of `kind`: a funnel report, or an impression as a show (clicks, skips and reports are not the app's).
    public mutating func count(_ kind: LaunchEvent.Kind) {
        switch kind {
        case .request: requests = requests.addingSaturated(1)
        case .noAd: noAds = noAds.addingSaturated(1)
        case .timeout: timeouts = timeouts.addingSaturated(1)
        case .failed: failures = failures.addingSaturated(1)
        case .impression: shows = shows.addingSaturated(1)
        case .click, .skip, .reported: break
        }
    }

    /// The counts merged by key, in order of app and hour.
    public static func merged(_ counts: [AppHourlyCount]) -> [AppHourlyCount] {
        var byKey: [Key: AppHourlyCount] = [:]
        for count in counts { byKey[count.key, default: AppHourlyCount(app: count.app, hour: count.hour)].add(count) }
        return byKey.values.sorted { ($0.app, $0.hour.milliseconds) < ($1.app, $1.hour.milliseconds) }
    }
}

extension AppHourlyCount: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        let count = JSONSchema.integer(minimum: 0, maximum: PeerNumbers.maxCount)
        return .object([
            "app": AppID.schema("The app's id."),
            "hour": Timestamp.jsonSchema.described("The start of the hour (UTC) the launches happened in, bounded as hourly's."),
            "requests": count.described("request reports."),
            "noAds": count.described("noAd reports."),
            "timeouts": count.described("timeout reports."),
            "failures": count.described("failed reports."),
            "shows": count.described("Impressions of the app's campaigns."),
        ], required: ["app", "hour", "requests", "noAds", "timeouts", "failures", "shows"],
           description: "The launches of one app counted in one hour.")
    }
}

/// An app's funnel over a span: what `app.stats` answers, in total and for each bucket of its series.
/// `fills` = `requests` − `noAd` − `timeouts` (never below 0); `fillRate` = fills / requests; `showRate` = shows / fills;
/// a rate is `null` when its denominator is 0.
public struct AppFunnel: Codable, Sendable, Hashable {
    /// The bucket's start, in a series (absent in the totals).
    public var at: Timestamp?
    public var requests: Int64
    public var fills: Int64
    public var shows: Int64
    public var timeouts: Int64
    public var failures: Int64
    public var fillRate: Double?
    public var showRate: Double?

    public init(at: Timestamp? = nil, requests: Int64, fills: Int64, shows: Int64, timeouts: Int64, failures: Int64,
                fillRate: Double?, showRate: Double?) {
        self.at = at
        self.requests = requests
        self.fills = fills
        self.shows = shows
        self.timeouts = timeouts
        self.failures = failures
        self.fillRate = fillRate
        self.showRate = showRate
    }

    /// The funnel of `counts` (summed, stopping at `Int64.max`), at `at`.
    public init(_ counts: [AppHourlyCount], at: Timestamp? = nil) {
        var sum = AppHourlyCount(app: "", hour: Timestamp(milliseconds: 0))
        for count in counts { sum.add(count) }
        let fills = max(0, sum.requests - sum.noAds.addingSaturated(sum.timeouts))
        self.init(at: at, requests: sum.requests, fills: fills, shows: sum.shows, timeouts: sum.timeouts, failures: sum.failures,
                  fillRate: Self.rate(fills, of: sum.requests), showRate: Self.rate(sum.shows, of: fills))
    }

    static func rate(_ part: Int64, of whole: Int64) -> Double? {
        whole > 0 ? Double(part) / Double(whole) : nil
    }

    enum CodingKeys: String, CodingKey {
        case at, requests, fills, shows, timeouts, failures, fillRate, showRate
    }

    /// The rates are written as `null` when there is none, never left out: a reader sees that nothing was asked or filled.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(at, forKey: .at)
        try container.encode(requests, forKey: .requests)
        try container.encode(fills, forKey: .fills)
        try container.encode(shows, forKey: .shows)
        try container.encode(timeouts, forKey: .timeouts)
        try container.encode(failures, forKey: .failures)
        try container.encode(fillRate, forKey: .fillRate)
        try container.encode(showRate, forKey: .showRate)
    }
}

extension AppFunnel: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        func rate(_ text: String) -> JSONSchema {
            JSONSchema(["type": ["number", "null"], "minimum": .number(JSONNumber(0)), "description": .string(text)])
        }
        return .object([
            "at": Timestamp.jsonSchema.described("The bucket's start (UTC), in a series; absent in the totals."),
            "requests": .integer("request reports: the app asked.", minimum: 0),
            "fills": .integer("requests less noAd and timeout reports, never below 0.", minimum: 0),
            "shows": .integer("Impressions of the app's campaigns.", minimum: 0),
            "timeouts": .integer("timeout reports: the budget passed and nothing was shown.", minimum: 0),
            "failures": .integer("failed reports: the media could not be shown.", minimum: 0),
            "fillRate": rate("fills / requests; null when requests is 0."),
            "showRate": rate("shows / fills; null when fills is 0."),
        ], required: ["requests", "fills", "shows", "timeouts", "failures", "fillRate", "showRate"],
           description: "An app's funnel over a span.")
    }
}

/// `app.stats`'s params: one app's funnel over a span, by hour or day.
public struct AppStatsParams: Codable, Sendable, Equatable {
    /// The app's id (as `launch.query`'s `app`).
    public var app: String
    /// The span's start (default: `to` less a day by hour, less 30 days by day); taken back to its bucket's start.
    public var from: Timestamp?
    /// The span's end, not included (default: now).
    public var to: Timestamp?
    /// The bucket: an hour (default) or a day (in the app's timezone).
    public var by: StatsBucket?

    public init(app: String, from: Timestamp? = nil, to: Timestamp? = nil, by: StatsBucket? = nil) {
        self.app = app
        self.from = from
        self.to = to
        self.by = by
    }

    /// The query these params ask for at `now`, checked: the app's id as `launch.query` takes it, `from` before
    /// `to`, within the longest span; an error names the param. Days begin in `zone`.
    public func query(now: Timestamp, zone: DayZone = .utc) throws(JSONRPCError) -> AppStatsQuery {
        try AppID.validate(app, field: "app")
        let by = by ?? .hour
        let (from, to) = try by.span(from: from, to: to, now: now, zone: zone)
        return AppStatsQuery(app: app, from: from, to: to, by: by, zone: zone)
    }
}

/// A checked `app.stats` query: what the store answers.
public struct AppStatsQuery: Sendable, Hashable {
    public var app: String
    public var from: Timestamp
    public var to: Timestamp
    public var by: StatsBucket
    /// Where days begin, by day.
    public var zone: DayZone

    public init(app: String, from: Timestamp, to: Timestamp, by: StatsBucket, zone: DayZone = .utc) {
        self.app = app
        self.from = from
        self.to = to
        self.by = by
        self.zone = zone
    }
}

/// `app.stats`'s answer.
public struct AppStatsResult: Codable, Sendable, Equatable {
    public var app: String
    /// The span counted: its start (a bucket's), its end (not included) and its bucket.
    public var from: Timestamp
    public var to: Timestamp
    public var by: StatsBucket
    /// The time zone days begin in (the app's `timezone`).
    public var timezone: String
    /// The whole span.
    public var totals: AppFunnel
    /// Each bucket with a count, in order; buckets with none are left out.
    public var series: [AppFunnel]

    public init(app: String, from: Timestamp, to: Timestamp, by: StatsBucket, timezone: String = "UTC", totals: AppFunnel,
                series: [AppFunnel]) {
        self.app = app
        self.from = from
        self.to = to
        self.by = by
        self.timezone = timezone
        self.totals = totals
        self.series = series
    }
}

extension AppStatsParams: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object([
            "app": AppID.schema("The app's id, as launch.query's app."),
            "from": Timestamp.jsonSchema.described("The span's start, taken back to its bucket's start (default: to less a day by hour, 30 days by day)."),
            "to": Timestamp.jsonSchema.described("The span's end, not included (default: now). At most 31 days after from by hour, 366 by day."),
            "by": JSONSchema.cases(of: StatsBucket.self, "The bucket (default hour): a UTC hour, or a day in the app's timezone."),
        ], required: ["app"], description: "One app's funnel over a span, by hour or day.")
    }
}

extension AppStatsResult: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object([
            "app": .string("The app's id."),
            "from": Timestamp.jsonSchema.described("The span's start (a bucket's start)."),
            "to": Timestamp.jsonSchema.described("The span's end, not included."),
            "by": JSONSchema.cases(of: StatsBucket.self, "The bucket."),
            "timezone": .string("The time zone days begin in: the app's timezone (app.set)."),
            "totals": AppFunnel.jsonSchema.described("The whole span."),
            "series": .array(of: AppFunnel.jsonSchema, "Each bucket with a count, in order; buckets with none are left out. Hourly counts are kept for campaignd's --stats-retention (90 days by default)."),
        ], required: ["app", "from", "to", "by", "timezone", "totals", "series"])
    }
}
