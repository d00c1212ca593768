import Foundation
import Logging
import PostgresNIO

/// The PostgreSQL tables, made by whichever campaignd opens an empty database first (under an advisory lock held for
/// the transaction, so two starting at once do not race), and the epoch, drawn once with them.
enum PostgresSchema {
    /// The advisory lock key of the schema's creation; the leader's is ``PostgresLeadership/lockKey``.
    static let migrationLockKey: Int64 = 0x6361_6d70_6d69_6772 // "campmigr"

    static let statements: [PostgresQuery] = [
        "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
        // One row: the seq of the last committed change (every write locks it first).
        "CREATE TABLE IF NOT EXISTS counter (id INTEGER PRIMARY KEY CHECK (id = 1), seq BIGINT NOT NULL)",
        // One row: the seq of the last change the leader published (apart, so marking it never waits for a writer).
        "CREATE TABLE IF NOT EXISTS published (id INTEGER PRIMARY KEY CHECK (id = 1), seq BIGINT NOT NULL)",
        """
        CREATE TABLE IF NOT EXISTS campaigns (
            id BIGSERIAL PRIMARY KEY,
            app TEXT NOT NULL,
            state TEXT NOT NULL,
            next_transition BIGINT,
            updated_at BIGINT NOT NULL,
            body TEXT NOT NULL)
        """,
        "CREATE INDEX IF NOT EXISTS campaigns_next_transition ON campaigns(next_transition) WHERE next_transition IS NOT NULL",
        """
        CREATE TABLE IF NOT EXISTS changes (
            seq BIGINT PRIMARY KEY,
            op TEXT NOT NULL,
            campaign_id BIGINT NOT NULL,
            at BIGINT NOT NULL,
            actor TEXT NOT NULL,
            body TEXT NOT NULL)
        """,
        "CREATE INDEX IF NOT EXISTS changes_campaign ON changes(campaign_id, seq)",
        """
        CREATE TABLE IF NOT EXISTS creatives (
            sha256 TEXT PRIMARY KEY,
            content_type TEXT NOT NULL,
            size BIGINT NOT NULL,
            width BIGINT NOT NULL,
            height BIGINT NOT NULL,
            created_at BIGINT NOT NULL,
            actor TEXT NOT NULL,
            bytes BYTEA NOT NULL)
        """,
        """
        CREATE TABLE IF NOT EXISTS stats (
            campaign_id BIGINT PRIMARY KEY,
            impressions BIGINT NOT NULL DEFAULT 0,
            clicks BIGINT NOT NULL DEFAULT 0,
            skips BIGINT NOT NULL DEFAULT 0)
        """,
        """
        CREATE TABLE IF NOT EXISTS stats_hourly (
            campaign_id BIGINT NOT NULL,
            hour BIGINT NOT NULL,
            creative TEXT NOT NULL,
            region TEXT NOT NULL,
            impressions BIGINT NOT NULL,
            clicks BIGINT NOT NULL,
            skips BIGINT NOT NULL,
            PRIMARY KEY (campaign_id, hour, creative, region))
        """,
        "CREATE INDEX IF NOT EXISTS stats_hourly_hour ON stats_hourly(hour)",
        """
        CREATE TABLE IF NOT EXISTS app_hourly (
            app TEXT NOT NULL,
            hour BIGINT NOT NULL,
            requests BIGINT NOT NULL,
            no_ads BIGINT NOT NULL,
            timeouts BIGINT NOT NULL,
            failures BIGINT NOT NULL,
            shows BIGINT NOT NULL,
            PRIMARY KEY (app, hour))
        """,
        "CREATE INDEX IF NOT EXISTS app_hourly_hour ON app_hourly(hour)",
        "CREATE TABLE IF NOT EXISTS edge_reports (edge_id TEXT PRIMARY KEY, last_report_id BIGINT NOT NULL)",
        """
        CREATE TABLE IF NOT EXISTS edge_acks (
            edge_id TEXT PRIMARY KEY,
            region TEXT NOT NULL,
            epoch TEXT NOT NULL,
            applied_seq BIGINT NOT NULL,
            last_seen BIGINT NOT NULL)
        """,
        // The relay path (JSON), added after the table: a database made before it gets the column, its rows NULL.
        "ALTER TABLE edge_acks ADD COLUMN IF NOT EXISTS via TEXT",
        // Creatives' durations, added after the table: NULL until PostgresStore.fillCreativeDurations reads their bytes.
        "ALTER TABLE creatives ADD COLUMN IF NOT EXISTS duration_ms BIGINT",
        // Apps as operators set them, and their log: who changed which app, when, and the app before and after.
        "CREATE TABLE IF NOT EXISTS apps (app TEXT PRIMARY KEY, market TEXT NOT NULL, body TEXT NOT NULL)",
        """
        CREATE TABLE IF NOT EXISTS app_changes (
            id BIGSERIAL PRIMARY KEY,
            app TEXT NOT NULL,
            at BIGINT NOT NULL,
            actor TEXT NOT NULL,
            before TEXT,
            after TEXT NOT NULL)
        """,
        "CREATE INDEX IF NOT EXISTS app_changes_app ON app_changes(app, id)",
        // Reports of ads, added after the tables: every reason's in the totals and the hourly counts, by reason in
        // their own hourly table.
        "ALTER TABLE stats ADD COLUMN IF NOT EXISTS reports BIGINT NOT NULL DEFAULT 0",
        "ALTER TABLE stats_hourly ADD COLUMN IF NOT EXISTS reports BIGINT NOT NULL DEFAULT 0",
        PostgresQuery(unsafeSQL: StatsSeriesSQL.createReportHourly),
        "CREATE INDEX IF NOT EXISTS report_hourly_hour ON report_hourly(hour)",
        "INSERT INTO counter (id, seq) VALUES (1, 0) ON CONFLICT (id) DO NOTHING",
        "INSERT INTO published (id, seq) VALUES (1, 0) ON CONFLICT (id) DO NOTHING",
    ]

    /// Creates what is missing and answers the database's epoch.
    static func prepare(_ connection: PostgresConnection, logger: Logger) async throws -> String {
        try await PostgresStore.transaction(connection, logger: logger) {
            try await connection.query("SELECT pg_advisory_xact_lock(\(migrationLockKey))", logger: logger)
            for statement in statements { try await connection.query(statement, logger: logger) }
            for repair in PeerNumberRepair.statements(now: .now()) {
                try await connection.query(PostgresQuery(unsafeSQL: repair), logger: logger)
            }
            var random = SystemRandomNumberGenerator()
            let fresh = (0..<4).map { _ in String(format: "%08x", UInt32.random(in: .min ... .max, using: &random)) }.joined()
            try await connection.query("INSERT INTO meta (key, value) VALUES ('epoch', \(fresh)) ON CONFLICT (key) DO NOTHING",
                                       logger: logger)
            let rows = try await connection.query("SELECT value FROM meta WHERE key = 'epoch'", logger: logger).collect()
            return try rows[0].decode(String.self)
        }
    }
}
