import JSONRPC
import LaunchAdDomain

/// Counts an edge ships to campaignd.
public struct EdgeReport: Codable, Sendable, Equatable {
    public var edgeId: String
    /// Increases by one per report, so a report sent twice is counted once.
    public var reportId: Int64
    /// Counts per campaign since the last report.
    public var counts: [CampaignStats]
    /// The same counts by campaign, hour and creative, for counts over time (absent from older edges: campaignd then
    /// files `counts` under the hour it receives them, with no creative).
    public var hourly: [HourlyCount]?
    /// The launches counted by app and hour for the funnel (`app.stats`), with the impressions of each app's
    /// campaigns as shows (absent when there are none, and from older edges).
    public var apps: [AppHourlyCount]?
    /// The edge's region, under which campaignd files the counts (absent: the region of its acknowledgements).
    public var region: String?
    /// The relays the report came through, the one nearest campaignd first (as ``EdgeAck/via``).
    public var via: [String]?
    /// With CURVE: the edge's seal of its fields (as ``EdgeAck/mac``), passed on untouched by relays.
    public var mac: String?

    public init(edgeId: String, reportId: Int64, counts: [CampaignStats], hourly: [HourlyCount]? = nil, apps: [AppHourlyCount]? = nil,
                region: String? = nil, via: [String]? = nil, mac: String? = nil) {
        self.edgeId = edgeId
        self.reportId = reportId
        self.counts = counts
        self.hourly = hourly
        self.apps = apps
        self.region = region
        self.via = via
        self.mac = mac
    }

    /// The id of the peer that sent it: the nearest relay when it came through relays, else the edge itself.
    public var sender: String { via?.first ?? edgeId }
}

public struct EdgeReportResult: Codable, Sendable {
    /// Whether the counts were added now.
    public var accepted: Bool
    /// The last report id taken from this edge: equal to the report's when it had been taken before (a resend);
    /// greater when the report's id was too low (the edge's clock went back) and its counts were not taken.
    public var lastReportId: Int64
    public init(accepted: Bool, lastReportId: Int64) {
        self.accepted = accepted
        self.lastReportId = lastReportId
    }
}

extension EdgeReport {
    /// The most hourly counts a report may hold.
    public static let maxHourly = 50_000
    /// The most counts by app and hour a report may hold (``PeerNumbers`` checks it).
    public static let maxAppHours = 1_000
    /// The most counts by app and hour an edge puts in one report; the rest wait for the next ones. Apps are whatever
    /// the apps' reports name, so there may be many: at about 240 bytes each at most, 100 leave most of a sync
    /// call's 64 KiB to the campaigns' counts.
    public static let appHoursPerReport = 100
}
