import LaunchAdAPI
import LaunchAdDomain

/// The one query both engines answer a stats series with (their placeholders differ), and the point of each row.
enum StatsSeriesSQL {
    /// Selects campaign, bucket, creative, region and the three sums from `stats_hourly`; the arguments are the bucket
    /// length twice, `from`, `to`, and the campaign's id when the query names one. `placeholder(n)` is the n-th (from 1).
    static func select(_ query: StatsQuery, placeholder: (Int) -> String) -> String {
        let creative = query.byCreative ? "creative" : "''"
        let region = query.byRegion ? "region" : "''"
        let campaign = query.id == nil
            ? "campaign_id IN (SELECT id FROM campaigns WHERE state != 'deleted')"
            : "campaign_id = \(placeholder(5))"
        return """
            SELECT campaign_id, (hour / \(placeholder(1))) * \(placeholder(2)) AS bucket, \(creative) AS c, \(region) AS r,
                CAST(SUM(impressions) AS BIGINT), CAST(SUM(clicks) AS BIGINT), CAST(SUM(skips) AS BIGINT)
            FROM stats_hourly WHERE hour >= \(placeholder(3)) AND hour < \(placeholder(4)) AND \(campaign)
            GROUP BY campaign_id, bucket, c, r ORDER BY campaign_id, bucket, c, r
            """
    }

    static func point(_ query: StatsQuery, id: Int64, bucket: Int64, creative: String, region: String,
                      impressions: Int64, clicks: Int64, skips: Int64) -> StatsPoint {
        StatsPoint(id: id, at: Timestamp(milliseconds: bucket), creative: query.byCreative ? creative : nil,
                   region: query.byRegion ? region : nil, impressions: impressions, clicks: clicks, skips: skips)
    }
}
