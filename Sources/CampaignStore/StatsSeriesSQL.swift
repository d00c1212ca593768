import LaunchAdAPI
import LaunchAdDomain

/// The one query both engines answer a stats series with (their placeholders differ), and the point of each row.
enum StatsSeriesSQL {
    /// Selects campaign, bucket, creative, region and the three sums from `stats_hourly`; the arguments are the bucket
    /// length twice, `from`, `to`, and the campaign's id when the query names one. `placeholder(n)` is the n-th (from 1);
    /// `sum(column)` is the engine's sum of a column that stops at `Int64.max` ("saturates") instead of overflowing.
    static func select(_ query: StatsQuery, placeholder: (Int) -> String, sum: (String) -> String) -> String {
        let creative = query.byCreative ? "creative" : "''"
        let region = query.byRegion ? "region" : "''"
        let campaign = query.id == nil
            ? "campaign_id IN (SELECT id FROM campaigns WHERE state != 'deleted')"
            : "campaign_id = \(placeholder(5))"
        return """
            SELECT campaign_id, (hour / \(placeholder(1))) * \(placeholder(2)) AS bucket, \(creative) AS c, \(region) AS r,
                \(sum("impressions")), \(sum("clicks")), \(sum("skips"))
            FROM stats_hourly WHERE hour >= \(placeholder(3)) AND hour < \(placeholder(4)) AND \(campaign)
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

    /// Selects the bucket and the five sums of one app's counts from `app_hourly`; the arguments are the bucket
    /// length twice, the app, `from` and `to` (as ``select(_:placeholder:sum:)``).
    static func selectApp(placeholder: (Int) -> String, sum: (String) -> String) -> String {
        """
        SELECT (hour / \(placeholder(1))) * \(placeholder(2)) AS bucket, \(appColumns.map(sum).joined(separator: ", "))
        FROM app_hourly WHERE app = \(placeholder(3)) AND hour >= \(placeholder(4)) AND hour < \(placeholder(5))
        GROUP BY bucket ORDER BY bucket
        """
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
        StatsPoint(id: id, at: Timestamp(milliseconds: bucket), creative: query.byCreative ? creative : nil,
                   region: query.byRegion ? region : nil, impressions: impressions, clicks: clicks, skips: skips)
    }
}
