import GRDB
import LaunchAdAPI
import LaunchAdDomain

// MARK: Report counts: totals per campaign, and hourly counts by campaign, hour, creative and region

extension SQLiteStore {
    @discardableResult
    public func addReport(edgeId: String, reportId: Int64, counts: [CampaignStats], hourly: [HourlyCount],
                          region: String) async throws -> (taken: Bool, last: Int64) {
        try await pool.write { db in
            let last = try Int64.fetchOne(db, sql: "SELECT last_report_id FROM edge_reports WHERE edge_id = ?", arguments: [edgeId])
            if let last, reportId <= last { return (false, last) }
            try db.execute(sql: "INSERT INTO edge_reports (edge_id, last_report_id) VALUES (?, ?) ON CONFLICT(edge_id) DO UPDATE SET last_report_id = excluded.last_report_id",
                           arguments: [edgeId, reportId])
            for item in counts {
                try db.execute(sql: """
                    INSERT INTO stats (campaign_id, impressions, clicks, skips) VALUES (?, ?, ?, ?)
                    ON CONFLICT(campaign_id) DO UPDATE SET impressions = impressions + excluded.impressions,
                        clicks = clicks + excluded.clicks, skips = skips + excluded.skips
                    """, arguments: [item.id, item.impressions, item.clicks, item.skips])
            }
            for item in hourly {
                try db.execute(sql: """
                    INSERT INTO stats_hourly (campaign_id, hour, creative, region, impressions, clicks, skips) VALUES (?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT(campaign_id, hour, creative, region) DO UPDATE SET impressions = impressions + excluded.impressions,
                        clicks = clicks + excluded.clicks, skips = skips + excluded.skips
                    """, arguments: [item.id, item.hour.milliseconds, item.sha256 ?? "", region, item.impressions, item.clicks, item.skips])
            }
            return (true, reportId)
        }
    }

    public func statsSeries(_ query: StatsQuery) async throws -> [StatsPoint] {
        try await pool.read { db in
            let sql = StatsSeriesSQL.select(query, placeholder: { _ in "?" })
            var arguments: StatementArguments = [query.by.milliseconds, query.by.milliseconds, query.from.milliseconds, query.to.milliseconds]
            if let id = query.id { arguments += [id] }
            return try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
                StatsSeriesSQL.point(query, id: row[0], bucket: row[1], creative: row[2], region: row[3],
                                     impressions: row[4], clicks: row[5], skips: row[6])
            }
        }
    }

    @discardableResult
    public func forgetHourlyStats(before cutoff: Timestamp) async throws -> Int {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM stats_hourly WHERE hour < ?", arguments: [cutoff.milliseconds])
            return db.changesCount
        }
    }

    public func stats(id: Int64?) async throws -> [CampaignStats] {
        try await pool.read { db in
            var sql = "SELECT c.id, COALESCE(s.impressions, 0) AS i, COALESCE(s.clicks, 0) AS c, COALESCE(s.skips, 0) AS s FROM campaigns c LEFT JOIN stats s ON s.campaign_id = c.id"
            var arguments: StatementArguments = []
            if let id { sql += " WHERE c.id = ?"; arguments += [id] } else { sql += " WHERE c.state != 'deleted'" }
            sql += " ORDER BY c.id"
            return try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
                CampaignStats(id: row["id"], impressions: row["i"], clicks: row["c"], skips: row["s"])
            }
        }
    }
}
