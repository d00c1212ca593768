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
                \(region) AS r, \(sum("impressions")), \(sum("clicks")), \(sum("skips"))
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
    static func addCounts(of table: String, columns: [String] = ["impressions", "clicks", "skips"]) -> String {
        columns.map { column in
            "\(column) = CASE WHEN \(table).\(column) > \(Int64.max) - excluded.\(column) THEN \(Int64.max) ELSE \(table).\(column) + excluded.\(column) END"
        }.joined(separator: ", ")
    }

    static func point(_ query: StatsQuery, id: Int64, bucket: Int64, creative: String, region: String,
                      impressions: Int64, clicks: Int64, skips: Int64) -> StatsPoint {
        StatsPoint(id: id, at: bucketStart(bucket, by: query.by, zone: query.zone), creative: query.byCreative ? creative : nil,
                   region: query.byRegion ? region : nil, impressions: impressions, clicks: clicks, skips: skips)
    }
}
