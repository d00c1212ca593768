import LaunchAdAPI
import LaunchAdDomain

/// The one query both engines answer a stats series with (their placeholders differ), and the point of each row.
enum StatsSeriesSQL {
    /// Selects campaign, bucket (as ``bucketSQL(_:zone:from:to:)`` numbers it), creative, region and the three sums
    /// from `stats_hourly`; the arguments are `from`, `to`, and the campaign's id when the query names one.
    /// `placeholder(n)` is the n-th (from 1); `sum(column)` is the engine's sum of a column that stops at `Int64.max`
    /// ("saturates") instead of overflowing.
    static func select(_ query: StatsQuery, placeholder: (Int) -> String, sum: (String) -> String) -> String {
        let creative = query.byCreative ? "creative" : "''"
        let region = query.byRegion ? "region" : "''"
        let campaign = query.id == nil
            ? "campaign_id IN (SELECT id FROM campaigns WHERE state != 'deleted')"
            : "campaign_id = \(placeholder(3))"
        return """
            SELECT campaign_id, \(bucketSQL(query.by, zone: query.zone, from: query.from, to: query.to)) AS bucket, \(creative) AS c,
                \(region) AS r, \(sum("impressions")), \(sum("clicks")), \(sum("skips")), \(sum("reports"))
            FROM stats_hourly WHERE hour >= \(placeholder(1)) AND hour < \(placeholder(2)) AND \(campaign)
            GROUP BY campaign_id, bucket, c, r ORDER BY campaign_id, bucket, c, r
            """
    }

    /// The columns of `app_hourly`'s counts, in the order of ``AppHourlyCount/numbers``.
    static let appColumns = ["requests", "no_ads", "timeouts", "failures", "shows"]

    /// The insert of one app's counts of an hour (the arguments: app, hour, then the five counts), added to the row
    /// already there, saturating.
    static func addApp(placeholder: (Int) -> String) -> String {
        let values = (1...7).map(placeholder).joined(separator: ", ")
        return """
            INSERT INTO app_hourly (app, hour, \(appColumns.joined(separator: ", "))) VALUES (\(values))
            ON CONFLICT (app, hour) DO UPDATE SET \(addCounts(of: "app_hourly", columns: appColumns))
            """
    }

    /// Selects the bucket (as ``bucketSQL(_:zone:from:to:)`` numbers it) and the five sums of one app's counts from
    /// `app_hourly`; the arguments are the app, `from` and `to` (as ``select(_:placeholder:sum:)``).
    static func selectApp(_ query: AppStatsQuery, placeholder: (Int) -> String, sum: (String) -> String) -> String {
        """
        SELECT \(bucketSQL(query.by, zone: query.zone, from: query.from, to: query.to)) AS bucket, \(appColumns.map(sum).joined(separator: ", "))
        FROM app_hourly WHERE app = \(placeholder(1)) AND hour >= \(placeholder(2)) AND hour < \(placeholder(3))
        GROUP BY bucket ORDER BY bucket
        """
    }

    /// The expression of an `hour` row's bucket: its UTC hour's start, or the number of its day in `zone` (which
    /// ``bucketStart(_:by:zone:)`` turns into the day's start). Integer literals computed here, never a caller's text.
    static func bucketSQL(_ by: StatsBucket, zone: DayZone, from: Timestamp, to: Timestamp) -> String {
        switch by {
        case .hour: "(hour / \(by.milliseconds)) * \(by.milliseconds)"
        case .day: zone.dayNumberSQL(of: "hour", from: from, to: to)
        }
    }

    /// The start of the bucket a row's `bucket` column (``bucketSQL(_:zone:from:to:)``) stands for.
    static func bucketStart(_ bucket: Int64, by: StatsBucket, zone: DayZone) -> Timestamp {
        switch by {
        case .hour: Timestamp(milliseconds: bucket)
        case .day: zone.startOfDay(number: bucket)
        }
    }

    /// The column-by-column update of a count row of `table` on conflict: the stored counts plus the new ones
    /// (`excluded`, never negative), stopping at `Int64.max` instead of overflowing (which SQLite turns into a
    /// floating-point value, and PostgreSQL into an error), in either engine.
    static func addCounts(of table: String, columns: [String] = ["impressions", "clicks", "skips", "reports"]) -> String {
        columns.map { column in
            "\(column) = CASE WHEN \(table).\(column) > \(Int64.max) - excluded.\(column) THEN \(Int64.max) ELSE \(table).\(column) + excluded.\(column) END"
        }.joined(separator: ", ")
    }

    static func point(_ query: StatsQuery, id: Int64, bucket: Int64, creative: String, region: String,
                      impressions: Int64, clicks: Int64, skips: Int64, reports: Int64) -> StatsPoint {
        StatsPoint(id: id, at: bucketStart(bucket, by: query.by, zone: query.zone), creative: query.byCreative ? creative : nil,
                   region: query.byRegion ? region : nil, impressions: impressions, clicks: clicks, skips: skips, reports: reports)
    }

    /// The table of reports by campaign, hour (UTC, in milliseconds) and reason, alike in both engines (whose
    /// `INTEGER` and `BIGINT` both hold 64 bits).
    static let createReportHourly = """
        CREATE TABLE IF NOT EXISTS report_hourly (
            campaign_id BIGINT NOT NULL,
            hour BIGINT NOT NULL,
            reason TEXT NOT NULL,
            count BIGINT NOT NULL,
            PRIMARY KEY (campaign_id, hour, reason))
        """

    /// The insert of one reason's reports of a campaign's hour (the arguments: campaign, hour, reason, count), added
    /// to the row already there, saturating.
    static func addReports(placeholder: (Int) -> String) -> String {
        """
        INSERT INTO report_hourly (campaign_id, hour, reason, count) VALUES (\((1...4).map(placeholder).joined(separator: ", ")))
        ON CONFLICT (campaign_id, hour, reason) DO UPDATE SET \(addCounts(of: "report_hourly", columns: ["count"]))
        """
    }

    /// The sum of a campaign's reports in one hour (the arguments: campaign, hour), every creative and region.
    static func hourReports(placeholder: (Int) -> String, sum: (String) -> String) -> String {
        "SELECT COALESCE(\(sum("reports")), 0) FROM stats_hourly WHERE campaign_id = \(placeholder(1)) AND hour = \(placeholder(2))"
    }

    /// Selects campaign, reason, the sum of its reports and the latest hour from `report_hourly`, from the hour
    /// `since` (the first argument), of the campaigns of one app when the second argument is not null (and never of
    /// a deleted one), in order of campaign and reason; with `one`, of the campaign the second argument names alone
    /// (deleted or not, and no third argument).
    static func selectReported(placeholder: (Int) -> String, sum: (String) -> String, one: Bool = false) -> String {
        let campaigns = one ? "campaign_id = \(placeholder(2))" : """
            campaign_id IN (SELECT id FROM campaigns WHERE state != 'deleted' AND (\(placeholder(2)) IS NULL OR app = \(placeholder(3))))
            """
        return """
            SELECT campaign_id, reason, \(sum("count")), MAX(hour) FROM report_hourly
            WHERE hour >= \(placeholder(1)) AND \(campaigns)
            GROUP BY campaign_id, reason ORDER BY campaign_id, reason
            """
    }

    /// One row of ``selectReported(placeholder:sum:one:)``: a campaign, a reason, its sum and its latest hour.
    typealias ReportedRow = (id: Int64, reason: String, count: Int64, last: Int64)

    /// The rows of ``selectReported(placeholder:sum:one:)`` by campaign: its reports by reason and its latest hour.
    static func reasons(_ rows: [ReportedRow]) -> [Int64: (reasons: ReportReasons, last: Int64)] {
        var byId: [Int64: (reasons: ReportReasons, last: Int64)] = [:]
        for row in rows {
            // A reason this campaignd does not know (written by a newer one) still counts, as other.
            let reason = ReportReason(rawValue: row.reason) ?? .other
            var entry = byId[row.id] ?? (ReportReasons(), row.last)
            entry.reasons[reason] = entry.reasons[reason].addingSaturated(row.count)
            entry.last = max(entry.last, row.last)
            byId[row.id] = entry
        }
        return byId
    }

    /// The ids of the campaigns of ``reasons(_:)``, the most reported first (then by id), at most `limit`.
    static func mostReported(_ byId: [Int64: (reasons: ReportReasons, last: Int64)], limit: Int) -> [Int64] {
        byId.sorted { ($1.value.reasons.total, $0.key) < ($0.value.reasons.total, $1.key) }.prefix(limit).map(\.key)
    }

    /// The campaigns of ``reasons(_:)``, the most reported first (then by id), at most `limit`, named from
    /// `campaign(id)` (those it does not find left out).
    static func ranked(_ byId: [Int64: (reasons: ReportReasons, last: Int64)], limit: Int,
                       campaign: (Int64) throws -> Campaign?) throws -> [ReportedCampaign] {
        try mostReported(byId, limit: limit).compactMap { id in
            guard let entry = byId[id], let stored = try campaign(id) else { return nil }
            return ReportedCampaign(id: id, name: stored.name, app: stored.app, total: entry.reasons.total, reasons: entry.reasons,
                                    lastAt: Timestamp(milliseconds: entry.last))
        }
    }
}
