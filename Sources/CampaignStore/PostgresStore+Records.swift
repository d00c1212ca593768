import LaunchAdAPI
import LaunchAdDomain
import NIOCore
import PostgresNIO

// Creatives (bytes in the database, so any campaignd serves them), edges' reports and acknowledgements, and the
// publisher's mark, on PostgreSQL.
extension PostgresStore {
    public func creative(sha256: String) async throws -> CreativeFacts? {
        try await rows("SELECT sha256, content_type, size, width, height, duration_ms FROM creatives WHERE sha256 = \(sha256)").first
            .map(Self.facts)
    }

    public func addCreative(_ info: CreativeFacts, bytes: [UInt8], actor: String, now: Timestamp) async throws {
        try await rows("""
            INSERT INTO creatives (sha256, content_type, size, width, height, duration_ms, created_at, actor, bytes)
            VALUES (\(info.sha256), \(info.contentType), \(Int64(info.size)), \(Int64(info.width)), \(Int64(info.height)),
                    \(Int64(info.durationMs)), \(now.milliseconds), \(actor), \(ByteBuffer(bytes: bytes)))
            ON CONFLICT (sha256) DO NOTHING
            """)
    }

    public func fillCreativeDurations() async throws -> Int {
        let stills = try await rows(PostgresQuery(unsafeSQL: """
            UPDATE creatives SET duration_ms = 0 WHERE duration_ms IS NULL AND \(CreativeDurations.stillCondition) RETURNING sha256
            """)).count
        let timed = try await rows("SELECT sha256, content_type FROM creatives WHERE duration_ms IS NULL").map { try $0.decode((String, String).self) }
        // One creative's bytes at a time: those of thousands of videos are never all in memory. Several campaignd
        // starting at once give each the same duration; the first write stands.
        for (sha256, contentType) in timed {
            guard let row = try await rows("SELECT bytes FROM creatives WHERE sha256 = \(sha256)").first else { continue }
            var buffer = try row.decode(ByteBuffer.self)
            let duration = CreativeInspector.durationMs(of: buffer.readBytes(length: buffer.readableBytes) ?? [], contentType: contentType)
            try await rows("UPDATE creatives SET duration_ms = \(Int64(duration)) WHERE sha256 = \(sha256) AND duration_ms IS NULL")
        }
        return stills + timed.count
    }

    public func creativeChunk(sha256: String, offset: Int, length: Int) async throws -> CreativeChunkRead {
        guard let facts = try await creative(sha256: sha256) else { return .notFound }
        guard offset <= facts.size else { return .pastEnd(facts) }
        guard let row = try await rows("""
            SELECT substring(bytes FROM \(Int32(offset + 1)) FOR \(Int32(length))) FROM creatives WHERE sha256 = \(sha256)
            """).first else { return .notFound }
        var buffer = try row.decode(ByteBuffer.self)
        return .bytes(facts, buffer.readBytes(length: buffer.readableBytes) ?? [])
    }

    @discardableResult
    public func addReport(edgeId: String, reportId: Int64, counts: [CampaignStats], hourly: [HourlyCount], apps: [AppHourlyCount],
                          region: String, now: Timestamp) async throws -> (taken: Bool, last: Int64) {
        let (answer, paused) = try await pooled { [logger] connection -> ((taken: Bool, last: Int64), [Change]) in
            try await Self.transaction(connection, logger: logger) {
                // The edge's row, locked: two campaignd taking the same resent report count it once.
                try await connection.query("""
                    INSERT INTO edge_reports (edge_id, last_report_id) VALUES (\(edgeId), \(Int64.min)) ON CONFLICT (edge_id) DO NOTHING
                    """, logger: logger)
                let last = try await Self.rows(connection, "SELECT last_report_id FROM edge_reports WHERE edge_id = \(edgeId) FOR UPDATE",
                                               logger)[0].decode(Int64.self)
                // Taken before: nothing was written (the row was there), and the commit only lets the row go.
                if last != Int64.min && reportId <= last { return ((false, last), []) }
                try await connection.query("UPDATE edge_reports SET last_report_id = \(reportId) WHERE edge_id = \(edgeId)", logger: logger)
                for item in counts {
                    try await connection.query("""
                        INSERT INTO stats (campaign_id, impressions, clicks, skips, reports)
                        VALUES (\(item.id), \(item.impressions), \(item.clicks), \(item.skips), \(item.reasons?.total ?? 0))
                        ON CONFLICT (campaign_id) DO UPDATE SET \(unescaped: StatsSeriesSQL.addCounts(of: "stats"))
                        """, logger: logger)
                }
                let addReports = StatsSeriesSQL.addReports(placeholder: { $0 == 3 ? "$3" : "$\($0)::BIGINT" })
                for item in hourly {
                    try await connection.query("""
                        INSERT INTO stats_hourly (campaign_id, hour, creative, region, impressions, clicks, skips, reports)
                        VALUES (\(item.id), \(item.hour.milliseconds), \(item.sha256 ?? ""), \(region), \(item.impressions), \(item.clicks), \(item.skips),
                                \(item.reasons?.total ?? 0))
                        ON CONFLICT (campaign_id, hour, creative, region) DO UPDATE SET \(unescaped: StatsSeriesSQL.addCounts(of: "stats_hourly"))
                        """, logger: logger)
                    for reason in ReportReason.allCases where (item.reasons?[reason] ?? 0) > 0 {
                        var binds = PostgresBindings()
                        binds.append(item.id)
                        binds.append(item.hour.milliseconds)
                        binds.append(reason.rawValue)
                        binds.append(item.reasons?[reason] ?? 0)
                        try await connection.query(PostgresQuery(unsafeSQL: addReports, binds: binds), logger: logger)
                    }
                }
                let insertApp = StatsSeriesSQL.addApp(placeholder: { $0 == 1 ? "$1" : "$\($0)::BIGINT" })
                for item in apps {
                    var binds = PostgresBindings()
                    binds.append(item.app)
                    binds.append(item.hour.milliseconds)
                    for number in item.numbers { binds.append(number) }
                    try await connection.query(PostgresQuery(unsafeSQL: insertApp, binds: binds), logger: logger)
                }
                return ((true, reportId), try await self.pauseReported(connection, hourly: hourly, now: now))
            }
        }
        if !paused.isEmpty { signal.wake() }
        return answer
    }

    /// Pauses the live campaigns whose reports of an hour this report made cross their app's threshold
    /// (``ReportPause``); answers the changes. One query finds the live campaigns concerned whose app has a
    /// threshold; only then does it take the counter row (as every campaign write does, after the report's own rows)
    /// and read each campaign, its count and its last resume again under it: then they are those every other
    /// campaignd's committed report left, and a second report crossing the threshold at once finds the campaign
    /// paused, so none is paused twice.
    private func pauseReported(_ connection: PostgresConnection, hourly: [HourlyCount], now: Timestamp) async throws -> [Change] {
        let hours = ReportPause.reportedHours(hourly).filter { ReportPause.counts(hour: $0.hour, now: now) }
        guard !hours.isEmpty else { return [] }
        let ids = Array(Set(hours.map(\.id)))
        var thresholds: [Int64: Int] = [:]
        for row in try await Self.rows(connection, """
            SELECT c.id, a.body FROM campaigns c JOIN apps a ON a.app = c.app WHERE c.id = ANY(\(ids)) AND c.state = 'live'
            """, logger) {
            let (id, body) = try row.decode((Int64, String).self)
            thresholds[id] = try AppJSON.decode(body).reportPause
        }
        guard !thresholds.isEmpty else { return [] }
        try await connection.query("SELECT seq FROM counter WHERE id = 1 FOR UPDATE", logger: logger)
        let sumSQL = StatsSeriesSQL.hourReports(placeholder: { "$\($0)::BIGINT" }, sum: { "LEAST(SUM(\($0)), \(Int64.max))::BIGINT" })
        let resumeSQL = ReportPause.lastResume(placeholder: { "$\($0)::BIGINT" })
        var changes: [Change] = []
        for (id, hour, added) in hours {
            guard let threshold = thresholds[id], let campaign = try await load(connection, id: id), campaign.state == .live else { continue }
            var binds = PostgresBindings()
            binds.append(id)
            binds.append(hour)
            let reports = try await Self.rows(connection, PostgresQuery(unsafeSQL: sumSQL, binds: binds), logger).first?.decode(Int64.self) ?? 0
            var resumeBinds = PostgresBindings()
            resumeBinds.append(id)
            let resumed = try await Self.rows(connection, PostgresQuery(unsafeSQL: resumeSQL, binds: resumeBinds), logger).first?
                .decode(Int64?.self).map(Timestamp.init(milliseconds:))
            guard let next = ReportPause.paused(campaign, hour: hour, added: added, reports: reports, threshold: threshold,
                                                lastResume: resumed, now: now) else { continue }
            changes.append(try await record(connection, .paused, next, actor: ReportPause.actor, now: now))
        }
        if let last = changes.last {
            try await connection.query("SELECT pg_notify(\(Self.notifyChannel), \(String(last.seq)))", logger: logger)
        }
        return changes
    }

    public func stats(id: Int64?) async throws -> [CampaignStats] {
        // The totals and the reasons from one moment: a report committed between two reads would not show in one alone.
        try await consistentRead { [logger] connection in
            let reasons = StatsSeriesSQL.reasons(try await Self.reportedRows(connection, app: nil, since: nil, id: id, logger))
            return try await Self.rows(connection, """
                SELECT c.id, COALESCE(s.impressions, 0), COALESCE(s.clicks, 0), COALESCE(s.skips, 0), COALESCE(s.reports, 0)
                FROM campaigns c LEFT JOIN stats s ON s.campaign_id = c.id
                WHERE (CASE WHEN \(id)::bigint IS NULL THEN c.state <> 'deleted' ELSE c.id = \(id) END)
                ORDER BY c.id
                """, logger).map { row in
                let (id, impressions, clicks, skips, reports) = try row.decode((Int64, Int64, Int64, Int64, Int64).self)
                return CampaignStats(id: id, impressions: impressions, clicks: clicks, skips: skips, reports: reports, reasons: reasons[id]?.reasons)
            }
        }
    }

    public func reportedCampaigns(app: String?, since: Timestamp?, limit: Int) async throws -> [ReportedCampaign] {
        try await consistentRead { [logger] connection in
            let byId = StatsSeriesSQL.reasons(try await Self.reportedRows(connection, app: app, since: since, id: nil, logger))
            // Only the campaigns listed are read, to name them, in one query.
            let ids = StatsSeriesSQL.mostReported(byId, limit: limit)
            var campaigns: [Int64: Campaign] = [:]
            for row in try await Self.rows(connection, "SELECT body FROM campaigns WHERE id = ANY(\(ids))", logger) {
                let campaign = try CampaignJSON.decode(row.decode(String.self))
                campaigns[campaign.id] = campaign
            }
            return try StatsSeriesSQL.ranked(byId, limit: limit) { campaigns[$0] }
        }
    }

    /// The rows of ``StatsSeriesSQL/selectReported(placeholder:sum:one:)``: of one campaign when `id` is given.
    private static func reportedRows(_ connection: PostgresConnection, app: String?, since: Timestamp?, id: Int64?,
                                     _ logger: Logger) async throws -> [StatsSeriesSQL.ReportedRow] {
        var binds = PostgresBindings()
        binds.append(since.map { HourlyCount.hour(of: $0).milliseconds } ?? Int64.min)
        if let id {
            binds.append(id)
        } else {
            binds.append(app)
            binds.append(app)
        }
        let sql = StatsSeriesSQL.selectReported(placeholder: { $0 == 1 || id != nil ? "$\($0)::BIGINT" : "$\($0)::TEXT" },
                                                sum: { "LEAST(SUM(\($0)), \(Int64.max))::BIGINT" }, one: id != nil)
        return try await rows(connection, PostgresQuery(unsafeSQL: sql, binds: binds), logger).map { row in
            let (id, reason, count, last) = try row.decode((Int64, String, Int64, Int64).self)
            return (id: id, reason: reason, count: count, last: last)
        }
    }

    public func statsSeries(_ query: StatsQuery) async throws -> [StatsPoint] {
        var binds = PostgresBindings()
        binds.append(query.from.milliseconds)
        binds.append(query.to.milliseconds)
        if let id = query.id { binds.append(id) }
        let sql = StatsSeriesSQL.select(query, placeholder: { "$\($0)::BIGINT" }, sum: { "LEAST(SUM(\($0)), \(Int64.max))::BIGINT" })
        return try await rows(PostgresQuery(unsafeSQL: sql, binds: binds)).map { row in
            let (id, bucket, creative, region, impressions, clicks, skips, reports)
                = try row.decode((Int64, Int64, String, String, Int64, Int64, Int64, Int64).self)
            return StatsSeriesSQL.point(query, id: id, bucket: bucket, creative: creative, region: region,
                                        impressions: impressions, clicks: clicks, skips: skips, reports: reports)
        }
    }

    public func appSeries(_ query: AppStatsQuery) async throws -> [AppHourlyCount] {
        var binds = PostgresBindings()
        binds.append(query.app)
        binds.append(query.from.milliseconds)
        binds.append(query.to.milliseconds)
        let sql = StatsSeriesSQL.selectApp(query, placeholder: { $0 == 1 ? "$1" : "$\($0)::BIGINT" }, sum: { "LEAST(SUM(\($0)), \(Int64.max))::BIGINT" })
        return try await rows(PostgresQuery(unsafeSQL: sql, binds: binds)).map { row in
            let (bucket, requests, noAds, timeouts, failures, shows) = try row.decode((Int64, Int64, Int64, Int64, Int64, Int64).self)
            return AppHourlyCount(app: query.app, hour: StatsSeriesSQL.bucketStart(bucket, by: query.by, zone: query.zone), requests: requests, noAds: noAds,
                                  timeouts: timeouts, failures: failures, shows: shows)
        }
    }

    @discardableResult
    public func forgetHourlyStats(before cutoff: Timestamp) async throws -> Int {
        let forgotten = try await rows("DELETE FROM stats_hourly WHERE hour < \(cutoff.milliseconds) RETURNING 1").count
            + (try await rows("DELETE FROM report_hourly WHERE hour < \(cutoff.milliseconds) RETURNING 1").count)
        return forgotten + (try await rows("DELETE FROM app_hourly WHERE hour < \(cutoff.milliseconds) RETURNING 1").count)
    }

    public func saveAcknowledgements(_ edges: [EdgeInfo]) async throws {
        for edge in edges {
            let via = try RelayPathJSON.encode(edge.via)
            try await rows("""
                INSERT INTO edge_acks (edge_id, region, epoch, applied_seq, last_seen, via)
                VALUES (\(edge.edgeId), \(edge.region), \(edge.epoch), \(edge.appliedSeq), \(edge.lastSeen.milliseconds), \(via))
                ON CONFLICT (edge_id) DO UPDATE SET region = excluded.region, epoch = excluded.epoch,
                    applied_seq = excluded.applied_seq, last_seen = excluded.last_seen, via = excluded.via
                WHERE excluded.last_seen >= edge_acks.last_seen
                """)
        }
    }

    public func acknowledgements() async throws -> [EdgeInfo] {
        try await rows("SELECT edge_id, region, epoch, applied_seq, last_seen, via FROM edge_acks ORDER BY edge_id").map { row in
            let (edgeId, region, epoch, applied, seen, via) = try row.decode((String, String, String, Int64, Int64, String?).self)
            return EdgeInfo(edgeId: edgeId, region: region, epoch: epoch, appliedSeq: applied, lastSeen: Timestamp(milliseconds: seen),
                            stale: false, via: try RelayPathJSON.decode(via))
        }
    }

    public func forgetAcknowledgements(lastSeenBefore cutoff: Timestamp) async throws -> [String] {
        try await rows("DELETE FROM edge_acks WHERE last_seen < \(cutoff.milliseconds) RETURNING edge_id")
            .map { try $0.decode(String.self) }.sorted()
    }

    public func publishedSeq() async throws -> Int64 {
        try await rows("SELECT seq FROM published WHERE id = 1")[0].decode(Int64.self)
    }

    /// Only ever moves forward: a deposed leader's late mark cannot pull it back.
    public func setPublishedSeq(_ seq: Int64) async throws {
        try await rows("UPDATE published SET seq = \(seq) WHERE id = 1 AND seq < \(seq)")
    }

    public func commitWakeups() -> AsyncStream<Void> { signal.stream() }

    public func backup(to path: String) async throws -> (seq: Int64, epoch: String) { throw BackupUnsupported() }

    private static func facts(_ row: PostgresRow) throws -> CreativeFacts {
        let (sha256, contentType, size, width, height, duration) = try row.decode((String, String, Int64, Int64, Int64, Int64?).self)
        return CreativeFacts(sha256: sha256, contentType: contentType, width: Int(width), height: Int(height), size: Int(size),
                             durationMs: Int(duration ?? 0))
    }
}
