import GRDB
import LaunchAdAPI
import LaunchAdDomain

// MARK: Report counts: totals per campaign, and hourly counts by campaign, hour, creative and region

extension SQLiteStore {
    @discardableResult
    public func addReport(edgeId: String, reportId: Int64, counts: [CampaignStats], hourly: [HourlyCount], apps: [AppHourlyCount],
                          region: String, now: Timestamp) async throws -> (taken: Bool, last: Int64) {
        let (answer, paused) = try await pool.write { db -> ((taken: Bool, last: Int64), Bool) in
            let last = try Int64.fetchOne(db, sql: "SELECT last_report_id FROM edge_reports WHERE edge_id = ?", arguments: [edgeId])
            if let last, reportId <= last { return ((false, last), false) }
            try db.execute(sql: "INSERT INTO edge_reports (edge_id, last_report_id) VALUES (?, ?) ON CONFLICT(edge_id) DO UPDATE SET last_report_id = excluded.last_report_id",
                           arguments: [edgeId, reportId])
            for item in counts {
                try db.execute(sql: """
                    INSERT INTO stats (campaign_id, impressions, clicks, skips, reports) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT(campaign_id) DO UPDATE SET \(StatsSeriesSQL.addCounts(of: "stats"))
                    """, arguments: [item.id, item.impressions, item.clicks, item.skips, item.reasons?.total ?? 0])
            }
            let addReports = StatsSeriesSQL.addReports(placeholder: { _ in "?" })
            for item in hourly {
                try db.execute(sql: """
                    INSERT INTO stats_hourly (campaign_id, hour, creative, region, impressions, clicks, skips, reports) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT(campaign_id, hour, creative, region) DO UPDATE SET \(StatsSeriesSQL.addCounts(of: "stats_hourly"))
                    """, arguments: [item.id, item.hour.milliseconds, item.sha256 ?? "", region, item.impressions, item.clicks, item.skips,
                                     item.reasons?.total ?? 0])
                for reason in ReportReason.allCases where (item.reasons?[reason] ?? 0) > 0 {
                    try db.execute(sql: addReports, arguments: [item.id, item.hour.milliseconds, reason.rawValue, item.reasons?[reason] ?? 0])
                }
            }
            let insertApp = StatsSeriesSQL.addApp(placeholder: { _ in "?" })
            for item in apps {
                try db.execute(sql: insertApp, arguments: StatementArguments([item.app, item.hour.milliseconds] + item.numbers.map { $0 as any DatabaseValueConvertible }))
            }
            return ((true, reportId), try Self.pauseReported(db, hourly: hourly, now: now))
        }
        if paused { signal.wake() }
        return answer
    }

    /// Pauses the live campaigns whose reports of an hour this report made cross their app's threshold
    /// (``ReportPause``); answers whether it paused any. In the report's transaction: SQLite's one writer sees every
    /// count and state as they stand, so no campaign is paused twice.
    private static func pauseReported(_ db: Database, hourly: [HourlyCount], now: Timestamp) throws -> Bool {
        var paused = false
        let sumSQL = StatsSeriesSQL.hourReports(placeholder: { _ in "?" }, sum: { "\(SaturatingSum.name)(\($0))" })
        for (id, hour, added) in ReportPause.reportedHours(hourly) where ReportPause.counts(hour: hour, now: now) {
            guard let campaign = try load(db, id: id), campaign.state == .live,
                  let threshold = try app(db, campaign.app)?.reportPause else { continue }
            let reports = try Int64.fetchOne(db, sql: sumSQL, arguments: [id, hour]) ?? 0
            let resumed = try Int64.fetchOne(db, sql: ReportPause.lastResume(placeholder: { _ in "?" }), arguments: [id]).map(Timestamp.init(milliseconds:))
            guard let next = ReportPause.paused(campaign, hour: hour, added: added, reports: reports, threshold: threshold,
                                                lastResume: resumed, now: now) else { continue }
            _ = try record(db, .paused, next, actor: ReportPause.actor, now: now)
            paused = true
        }
        return paused
    }

    public func statsSeries(_ query: StatsQuery) async throws -> [StatsPoint] {
        try await pool.read { db in
            let sql = StatsSeriesSQL.select(query, placeholder: { _ in "?" }, sum: { "\(SaturatingSum.name)(\($0))" })
            var arguments: StatementArguments = [query.from.milliseconds, query.to.milliseconds]
            if let id = query.id { arguments += [id] }
            // Decoded with errors, not GRDB's subscripts (which stop the process on a value of another type): a bad row
            // fails this call alone.
            return try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
                StatsSeriesSQL.point(query, id: try row.decode(atIndex: 0), bucket: try row.decode(atIndex: 1),
                                     creative: try row.decode(atIndex: 2), region: try row.decode(atIndex: 3),
                                     impressions: try row.decode(atIndex: 4), clicks: try row.decode(atIndex: 5),
                                     skips: try row.decode(atIndex: 6), reports: try row.decode(atIndex: 7))
            }
        }
    }

    public func appSeries(_ query: AppStatsQuery) async throws -> [AppHourlyCount] {
        try await pool.read { db in
            let sql = StatsSeriesSQL.selectApp(query, placeholder: { _ in "?" }, sum: { "\(SaturatingSum.name)(\($0))" })
            let arguments: StatementArguments = [query.app, query.from.milliseconds, query.to.milliseconds]
            return try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
                AppHourlyCount(app: query.app, hour: StatsSeriesSQL.bucketStart(try row.decode(atIndex: 0), by: query.by, zone: query.zone), requests: try row.decode(atIndex: 1),
                               noAds: try row.decode(atIndex: 2), timeouts: try row.decode(atIndex: 3), failures: try row.decode(atIndex: 4),
                               shows: try row.decode(atIndex: 5))
            }
        }
    }

    @discardableResult
    public func forgetHourlyStats(before cutoff: Timestamp) async throws -> Int {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM stats_hourly WHERE hour < ?", arguments: [cutoff.milliseconds])
            var rows = db.changesCount
            try db.execute(sql: "DELETE FROM report_hourly WHERE hour < ?", arguments: [cutoff.milliseconds])
            rows += db.changesCount
            try db.execute(sql: "DELETE FROM app_hourly WHERE hour < ?", arguments: [cutoff.milliseconds])
            return rows + db.changesCount
        }
    }

    public func stats(id: Int64?) async throws -> [CampaignStats] {
        try await pool.read { db in
            var sql = "SELECT c.id, COALESCE(s.impressions, 0) AS i, COALESCE(s.clicks, 0) AS c, COALESCE(s.skips, 0) AS s, COALESCE(s.reports, 0) AS r FROM campaigns c LEFT JOIN stats s ON s.campaign_id = c.id"
            var arguments: StatementArguments = []
            if let id { sql += " WHERE c.id = ?"; arguments += [id] } else { sql += " WHERE c.state != 'deleted'" }
            sql += " ORDER BY c.id"
            // As above: a stored count that is not a 64-bit integer (from a campaignd before sums saturated) fails
            // this call, not the process.
            let reasons = StatsSeriesSQL.reasons(try Self.reportedRows(db, app: nil, since: nil, id: id))
            return try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
                let id: Int64 = try row.decode(forColumn: "id")
                return CampaignStats(id: id, impressions: try row.decode(forColumn: "i"), clicks: try row.decode(forColumn: "c"),
                                     skips: try row.decode(forColumn: "s"), reports: try row.decode(forColumn: "r"), reasons: reasons[id]?.reasons)
            }
        }
    }

    public func reportedCampaigns(app: String?, since: Timestamp?, limit: Int) async throws -> [ReportedCampaign] {
        try await pool.read { db in
            let byId = StatsSeriesSQL.reasons(try Self.reportedRows(db, app: app, since: since, id: nil))
            return try StatsSeriesSQL.ranked(byId, limit: limit) { try Self.load(db, id: $0) }
        }
    }

    /// The rows of ``StatsSeriesSQL/selectReported(placeholder:sum:one:)``: of one campaign when `id` is given.
    private static func reportedRows(_ db: Database, app: String?, since: Timestamp?, id: Int64?) throws -> [StatsSeriesSQL.ReportedRow] {
        let sql = StatsSeriesSQL.selectReported(placeholder: { _ in "?" }, sum: { "\(SaturatingSum.name)(\($0))" }, one: id != nil)
        let from = since.map { HourlyCount.hour(of: $0).milliseconds } ?? Int64.min
        let arguments: StatementArguments = id.map { [from, $0] } ?? [from, app, app]
        return try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
            (id: try row.decode(atIndex: 0), reason: try row.decode(atIndex: 1), count: try row.decode(atIndex: 2), last: try row.decode(atIndex: 3))
        }
    }
}

/// SQLite's `SUM` of 64-bit integers fails the whole query past `Int64.max`; this one stops there, as PostgreSQL's
/// `LEAST(SUM(...), max)` does, so that both engines answer the same series.
struct SaturatingSum: DatabaseAggregate {
    static let name = "saturating_sum"
    static var function: DatabaseFunction { DatabaseFunction(name, argumentCount: 1, pure: true, aggregate: Self.self) }

    private var sum: Int64 = 0

    init() {}

    mutating func step(_ values: [DatabaseValue]) throws {
        let value: Int64
        switch values[0].storage {
        case .int64(let integer): value = integer
        // Only a sum that overflowed before sums stopped at the end is stored as one: past `Int64.max`.
        case .double(let real): value = real >= 0 ? Int64.max : Int64.min
        default: return
        }
        sum = sum.addingSaturated(value)
    }

    func finalize() throws -> (any DatabaseValueConvertible)? { sum }
}
