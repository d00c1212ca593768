import DurableFiles
import Foundation
import GRDB
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain

/// The embedded store: SQLite through GRDB, in WAL mode with `synchronous = FULL`, so a write acknowledged is on
/// disk, and creatives' bytes as files beside it. Each committed change takes the next `seq` in the same
/// transaction as the change itself (kept in a change log), so any snapshot is consistent with a `seq` and `seq`
/// has no gaps; each commit that made changes wakes ``commitWakeups()``. One process owns the file, so it always
/// leads. Every read and write runs on GRDB's own queues, off Swift's cooperative threads.
public final class SQLiteStore: Store {
    /// Reached by the extensions in other files (stats, apps).
    let pool: DatabasePool
    private let files: CreativeFiles
    /// The random id of this database, made when it was created.
    public let epoch: String
    let signal = CommitSignal()

    /// The database file's name in the data folder.
    public static let fileName = "campaigns.sqlite"

    /// Opens (or creates) the store in `directory`: the database file and the creatives' folder. The change log is
    /// kept whole: it is also the audit trail of who changed what and when.
    public convenience init(directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try self.init(path: URL(fileURLWithPath: directory).appendingPathComponent(Self.fileName).path,
                      files: CreativeFiles(directory: directory))
    }

    /// Opens (or creates) the database at `path`, with creatives' bytes in `files`.
    public init(path: String, files: CreativeFiles) throws {
        self.files = files
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
            db.add(function: SaturatingSum.function)
        }
        pool = try DatabasePool(path: path, configuration: configuration)
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE meta (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);
                CREATE TABLE campaigns (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    app TEXT NOT NULL,
                    state TEXT NOT NULL,
                    next_transition INTEGER,
                    updated_at INTEGER NOT NULL,
                    body TEXT NOT NULL);
                CREATE INDEX campaigns_next_transition ON campaigns(next_transition) WHERE next_transition IS NOT NULL;
                CREATE TABLE changes (
                    seq INTEGER PRIMARY KEY NOT NULL,
                    op TEXT NOT NULL,
                    campaign_id INTEGER NOT NULL,
                    at INTEGER NOT NULL,
                    actor TEXT NOT NULL,
                    body TEXT NOT NULL);
                CREATE TABLE creatives (
                    sha256 TEXT PRIMARY KEY NOT NULL,
                    content_type TEXT NOT NULL,
                    size INTEGER NOT NULL,
                    width INTEGER NOT NULL,
                    height INTEGER NOT NULL,
                    created_at INTEGER NOT NULL,
                    actor TEXT NOT NULL);
                CREATE TABLE stats (
                    campaign_id INTEGER PRIMARY KEY NOT NULL,
                    impressions INTEGER NOT NULL DEFAULT 0,
                    clicks INTEGER NOT NULL DEFAULT 0,
                    skips INTEGER NOT NULL DEFAULT 0);
                """)
            try db.execute(sql: "INSERT INTO meta (key, value) VALUES ('epoch', ?), ('seq', '0')", arguments: [Self.newEpoch()])
        }
        migrator.registerMigration("v2 edge reports") { db in
            try db.execute(sql: "CREATE TABLE edge_reports (edge_id TEXT PRIMARY KEY NOT NULL, last_report_id INTEGER NOT NULL)")
        }
        migrator.registerMigration("v3 edge acknowledgements") { db in
            try db.execute(sql: """
                CREATE TABLE edge_acks (
                    edge_id TEXT PRIMARY KEY NOT NULL,
                    region TEXT NOT NULL,
                    epoch TEXT NOT NULL,
                    applied_seq INTEGER NOT NULL,
                    last_seen INTEGER NOT NULL);
                INSERT INTO meta (key, value) SELECT 'published', value FROM meta WHERE key = 'seq';
                """)
        }
        migrator.registerMigration("v4 change log by campaign") { db in
            try db.execute(sql: "CREATE INDEX changes_campaign ON changes(campaign_id, seq)")
        }
        migrator.registerMigration("v5 hourly stats") { db in
            try db.execute(sql: """
                CREATE TABLE stats_hourly (
                    campaign_id INTEGER NOT NULL,
                    hour INTEGER NOT NULL,
                    creative TEXT NOT NULL,
                    region TEXT NOT NULL,
                    impressions INTEGER NOT NULL,
                    clicks INTEGER NOT NULL,
                    skips INTEGER NOT NULL,
                    PRIMARY KEY (campaign_id, hour, creative, region)) WITHOUT ROWID;
                CREATE INDEX stats_hourly_hour ON stats_hourly(hour);
                """)
        }
        migrator.registerMigration("v6 relay path of acknowledgements") { db in
            try db.execute(sql: "ALTER TABLE edge_acks ADD COLUMN via TEXT")
        }
        migrator.registerMigration("v7 app funnel") { db in
            // Launches by app and hour (app.stats), pruned with the campaigns' hours; by hour for the pruning.
            try db.execute(sql: """
                CREATE TABLE app_hourly (
                    app TEXT NOT NULL,
                    hour INTEGER NOT NULL,
                    requests INTEGER NOT NULL,
                    no_ads INTEGER NOT NULL,
                    timeouts INTEGER NOT NULL,
                    failures INTEGER NOT NULL,
                    shows INTEGER NOT NULL,
                    PRIMARY KEY (app, hour)) WITHOUT ROWID;
                CREATE INDEX app_hourly_hour ON app_hourly(hour);
                """)
        }
        // NULL until ``fillCreativeDurations()`` reads the bytes of the creatives stored before it.
        migrator.registerMigration("v8 creative durations") { db in
            try db.execute(sql: "ALTER TABLE creatives ADD COLUMN duration_ms INTEGER")
        }
        // Apps as operators set them, and their log: who changed which app, when, and the app before and after.
        migrator.registerMigration("v9 apps") { db in
            try db.execute(sql: """
                CREATE TABLE apps (
                    app TEXT PRIMARY KEY NOT NULL,
                    market TEXT NOT NULL,
                    body TEXT NOT NULL);
                CREATE TABLE app_changes (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    app TEXT NOT NULL,
                    at INTEGER NOT NULL,
                    actor TEXT NOT NULL,
                    before TEXT,
                    after TEXT NOT NULL);
                CREATE INDEX app_changes_app ON app_changes(app, id);
                """)
        }
        // Reports of ads: every reason's in the totals and the hourly counts, by reason in their own hourly table.
        migrator.registerMigration("v10 reports") { db in
            try db.execute(sql: """
                ALTER TABLE stats ADD COLUMN reports INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE stats_hourly ADD COLUMN reports INTEGER NOT NULL DEFAULT 0;
                \(StatsSeriesSQL.createReportHourly);
                CREATE INDEX report_hourly_hour ON report_hourly(hour);
                """)
        }
        try migrator.migrate(pool)
        try pool.write { db in
            let repairs = PeerNumberRepair.statements(now: .now())
            for statement in repairs + PeerNumberRepair.sqliteStats { try db.execute(sql: statement) }
        }
        epoch = try pool.read { db in try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'epoch'")! }
    }

    // MARK: Reading

    /// SQLite's online backup, in one step inside a read transaction: the copy is the database as of one `seq`,
    /// while writers go on in WAL mode. The copy gets an epoch of its own: restored, it answers from its `seq` while
    /// edges may have applied later changes of this database, and only a new epoch makes them take a snapshot
    /// instead of taking the restored database's next changes for ones they already hold.
    public func backup(to path: String) async throws -> (seq: Int64, epoch: String) {
        let destination = try DatabaseQueue(path: path)
        let seq = try await pool.read { db in
            let seq = try Self.seq(db)
            try destination.writeWithoutTransaction { try db.backup(to: $0) }
            return seq
        }
        let epoch = Self.newEpoch()
        try await destination.write { db in
            try db.execute(sql: "UPDATE meta SET value = ? WHERE key = 'epoch'", arguments: [epoch])
        }
        try destination.close()
        return (seq, epoch)
    }

    /// A random epoch: 32 hexadecimal digits.
    static func newEpoch() -> String {
        var random = SystemRandomNumberGenerator()
        return (0..<4).map { _ in String(format: "%08x", UInt32.random(in: .min ... .max, using: &random)) }.joined()
    }

    public func currentSeq() async throws -> Int64 {
        try await pool.read { db in try Self.seq(db) }
    }

    public func campaign(id: Int64) async throws -> Campaign? {
        try await pool.read { db in try Self.load(db, id: id) }
    }

    public func campaigns(app: String?, state: CampaignState?) async throws -> [Campaign] {
        try await pool.read { db in
            var sql = "SELECT body FROM campaigns WHERE 1"
            var arguments: StatementArguments = []
            if let app { sql += " AND app = ?"; arguments += [app] }
            if let state { sql += " AND state = ?"; arguments += [state.rawValue] } else { sql += " AND state != 'deleted'" }
            sql += " ORDER BY id"
            return try String.fetchAll(db, sql: sql, arguments: arguments).map(Self.decode)
        }
    }

    public func snapshot() async throws -> Snapshot {
        try await pool.read { [epoch] db in
            let seq = try Self.seq(db)
            let campaigns = try String.fetchAll(db, sql: "SELECT body FROM campaigns ORDER BY id").map(Self.decode)
            return Snapshot(epoch: epoch, seq: seq, campaigns: campaigns)
        }
    }

    public func snapshotPage(after: Int64, limit: Int, maxBytes: Int) async throws -> Snapshot {
        try await pool.read { [epoch] db in
            let seq = try Self.seq(db)
            var campaigns: [Campaign] = []
            var bound = PageBound(limit: limit, maxBytes: maxBytes), more = false
            let rows = try Row.fetchCursor(db, sql: "SELECT body FROM campaigns WHERE id > ? ORDER BY id", arguments: [after])
            while let row = try rows.next() {
                let body: String = row[0]
                guard bound.admits(body.utf8.count) else {
                    more = true
                    break
                }
                campaigns.append(try Self.decode(body))
            }
            return Snapshot(epoch: epoch, seq: seq, campaigns: campaigns, next: more ? campaigns.last?.id : nil)
        }
    }

    public func changes(since seq: Int64, limit: Int, maxBytes: Int) async throws -> [Change]? {
        try await pool.read { db in
            let current = try Self.seq(db)
            guard seq <= current else { return nil }
            if seq == current { return [] }
            let oldest = try Int64.fetchOne(db, sql: "SELECT MIN(seq) FROM changes") ?? (current + 1)
            guard oldest <= seq + 1 else { return nil }
            let rows = try Row.fetchCursor(db, sql: "SELECT seq, op, campaign_id, at, body FROM changes WHERE seq > ? ORDER BY seq LIMIT ?",
                                           arguments: [seq, limit])
            var changes: [Change] = [], bound = PageBound(limit: limit, maxBytes: maxBytes)
            while let row = try rows.next(), bound.admits((row["body"] as String).utf8.count) {
                changes.append(try Self.change(row))
            }
            return changes
        }
    }

    public func changeLog(campaign: Int64?, after seq: Int64, limit: Int) async throws -> [ChangeRecord] {
        try await pool.read { db in
            var sql = Self.changeLogRows + " WHERE c.seq > ?"
            var arguments: StatementArguments = [seq]
            if let campaign { sql += " AND c.campaign_id = ?"; arguments += [campaign] }
            sql += " ORDER BY c.seq LIMIT ?"
            arguments += [limit]
            return try Row.fetchAll(db, sql: sql, arguments: arguments).map(Self.changeRecord)
        }
    }

    public func campaignHistory(campaign: Int64, before seq: Int64?, limit: Int, maxBytes: Int) async throws -> [ChangeRecord] {
        try await pool.read { db in
            // A cursor: rows past the bound are never read.
            let rows = try Row.fetchCursor(db, sql: Self.changeLogRows + " WHERE c.campaign_id = ? AND c.seq < ? ORDER BY c.seq DESC LIMIT ?",
                                           arguments: [campaign, seq ?? .max, limit])
            var records: [ChangeRecord] = [], bound = PageBound(limit: limit, maxBytes: maxBytes)
            while let row = try rows.next(),
                  bound.admits((row["body"] as String).utf8.count + ((row["before"] as String?)?.utf8.count ?? 0)) {
                records.append(try Self.changeRecord(row))
            }
            return records
        }
    }

    /// The change log's rows with who made each change and the campaign before it (`before`), from `changes c`.
    private static let changeLogRows = """
        SELECT c.seq, c.op, c.campaign_id, c.at, c.actor, c.body,
            (SELECT p.body FROM changes p WHERE p.campaign_id = c.campaign_id AND p.seq < c.seq ORDER BY p.seq DESC LIMIT 1) AS before
        FROM changes c
        """

    private static func changeRecord(_ row: Row) throws -> ChangeRecord {
        ChangeRecord(change: try change(row), actor: row["actor"], before: try (row["before"] as String?).map(decode))
    }

    public func nextTransitionTime() async throws -> Timestamp? {
        try await pool.read { db in
            try Int64.fetchOne(db, sql: "SELECT MIN(next_transition) FROM campaigns WHERE next_transition IS NOT NULL")
                .map(Timestamp.init(milliseconds:))
        }
    }

    public func countsByState() async throws -> [CampaignState: Int] {
        try await pool.read { db in
            var counts: [CampaignState: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT state, COUNT(*) AS n FROM campaigns GROUP BY state") {
                if let state = CampaignState(rawValue: row["state"]) { counts[state] = row["n"] }
            }
            return counts
        }
    }

    // MARK: Writing campaigns

    public func create(_ fields: CampaignFields, actor: String, now: Timestamp) async throws -> Change {
        try await write { db in
            let exists = try Self.creativeChecker(db)
            var campaign: Campaign
            do throws(FieldError) {
                campaign = try CampaignRules.create(fields, id: 0, now: now, creativeExists: exists)
            } catch {
                throw StoreError.field(error)
            }
            try Self.checkMarket(db, campaign)
            try db.execute(sql: "INSERT INTO campaigns (app, state, updated_at, body) VALUES ('', '', 0, '')")
            campaign.id = db.lastInsertedRowID
            return try Self.record(db, .created, campaign, actor: actor, now: now)
        }
    }

    public func update(id: Int64, fields: CampaignFields, actor: String, now: Timestamp) async throws -> Change {
        try await write { db in
            guard let campaign = try Self.load(db, id: id) else { throw StoreError.notFound(id) }
            let exists = try Self.creativeChecker(db)
            let updated: Campaign
            do throws(CampaignRuleError) {
                updated = try CampaignRules.update(campaign, with: fields, now: now, creativeExists: exists)
            } catch {
                switch error {
                case .field(let field): throw StoreError.field(field)
                case .transition(let transition): throw StoreError.transition(transition)
                }
            }
            try Self.checkMarket(db, updated)
            return try Self.record(db, .updated, updated, actor: actor, now: now)
        }
    }

    public func apply(_ operation: CampaignOperation, id: Int64, actor: String, now: Timestamp) async throws -> Change {
        try await write { db in
            guard let campaign = try Self.load(db, id: id) else { throw StoreError.notFound(id) }
            let next: Campaign
            do throws(TransitionError) {
                next = try CampaignRules.apply(operation, to: campaign, now: now)
            } catch {
                throw StoreError.transition(error)
            }
            if MarketRules.isChecked(operation) { try Self.checkMarket(db, next) }
            return try Self.record(db, operation, next, actor: actor, now: now)
        }
    }

    public func applyTimeTransitions(now: Timestamp) async throws -> [Change] {
        try await writeMany { db in
            let bodies = try String.fetchAll(db, sql: "SELECT body FROM campaigns WHERE next_transition <= ? ORDER BY next_transition, id",
                                             arguments: [now.milliseconds])
            var changes: [Change] = []
            for campaign in try bodies.map(Self.decode) {
                guard let (operation, next) = CampaignRules.timeTransition(of: campaign, now: now) else { continue }
                changes.append(try Self.record(db, operation, next, actor: "scheduler", now: now))
            }
            return changes
        }
    }

    public func pace(_ shares: [CampaignShare], now: Timestamp) async throws -> [Change] {
        try await writeMany { db in
            var changes: [Change] = []
            for share in shares {
                guard let campaign = try Self.load(db, id: share.id),
                      let next = CampaignRules.pace(campaign, share: share.share) else { continue }
                changes.append(try Self.record(db, .updated, next, actor: pacingActor, now: now))
            }
            return changes
        }
    }

    // MARK: Creatives

    public func creative(sha256: String) async throws -> CreativeFacts? {
        try await pool.read { db in try Self.creative(db, sha256: sha256) }
    }

    static func creative(_ db: Database, sha256: String) throws -> CreativeFacts? {
        try Row.fetchOne(db, sql: "SELECT sha256, content_type, size, width, height, duration_ms FROM creatives WHERE sha256 = ?",
                         arguments: [sha256])
            .map { row in
                CreativeFacts(sha256: row["sha256"], contentType: row["content_type"], width: row["width"], height: row["height"], size: row["size"],
                              durationMs: row["duration_ms"] ?? 0)
            }
    }

    /// Writes the bytes as a file (on the writer's queue, before the row that names them commits), then the row.
    public func addCreative(_ info: CreativeFacts, bytes: [UInt8], actor: String, now: Timestamp) async throws {
        try await pool.write { [files] db in
            try files.store(bytes, sha256: info.sha256)
            try db.execute(sql: """
                INSERT INTO creatives (sha256, content_type, size, width, height, duration_ms, created_at, actor) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(sha256) DO NOTHING
                """, arguments: [info.sha256, info.contentType, info.size, info.width, info.height, info.durationMs, now.milliseconds, actor])
        }
    }

    public func fillCreativeDurations() async throws -> Int {
        let stills = try await pool.write { db in
            try db.execute(sql: "UPDATE creatives SET duration_ms = 0 WHERE duration_ms IS NULL AND \(CreativeDurations.stillCondition)")
            return db.changesCount
        }
        let timed = try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT sha256, content_type, size FROM creatives WHERE duration_ms IS NULL")
                .map { (sha256: $0["sha256"] as String, contentType: $0["content_type"] as String, size: $0["size"] as Int) }
        }
        // One creative at a time, its file read outside any transaction: the bytes of thousands of videos are never
        // all in memory, and writers wait for no file.
        var filled = 0
        for creative in timed {
            // Bytes that are not there read as 0 for good; a file that cannot be read now is left for the next start.
            let bytes: [UInt8]?
            do { bytes = try files.read(sha256: creative.sha256, offset: 0, length: creative.size) } catch { continue }
            let duration = bytes.map { CreativeInspector.durationMs(of: $0, contentType: creative.contentType) } ?? 0
            try await pool.write { db in
                try db.execute(sql: "UPDATE creatives SET duration_ms = ? WHERE sha256 = ? AND duration_ms IS NULL",
                               arguments: [duration, creative.sha256])
            }
            filled += 1
        }
        return stills + filled
    }

    public func creativeChunk(sha256: String, offset: Int, length: Int) async throws -> CreativeChunkRead {
        try await pool.read { [files] db in
            guard let facts = try Self.creative(db, sha256: sha256) else { return .notFound }
            // The offset is checked against the stored size before the file is touched: seeking far past the end fails.
            guard offset <= facts.size else { return .pastEnd(facts) }
            guard let bytes = try files.read(sha256: sha256, offset: offset, length: length) else { return .notFound }
            return .bytes(facts, bytes)
        }
    }

    // MARK: Edges' acknowledgements

    public func saveAcknowledgements(_ edges: [EdgeInfo]) async throws {
        guard !edges.isEmpty else { return }
        try await pool.write { db in
            for edge in edges {
                let via = try RelayPathJSON.encode(edge.via)
                try db.execute(sql: """
                    INSERT INTO edge_acks (edge_id, region, epoch, applied_seq, last_seen, via) VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT(edge_id) DO UPDATE SET region = excluded.region, epoch = excluded.epoch,
                        applied_seq = excluded.applied_seq, last_seen = excluded.last_seen, via = excluded.via
                    WHERE excluded.last_seen >= edge_acks.last_seen
                    """, arguments: [edge.edgeId, edge.region, edge.epoch, edge.appliedSeq, edge.lastSeen.milliseconds, via])
            }
        }
    }

    public func acknowledgements() async throws -> [EdgeInfo] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT edge_id, region, epoch, applied_seq, last_seen, via FROM edge_acks ORDER BY edge_id").map { row in
                EdgeInfo(edgeId: row["edge_id"], region: row["region"], epoch: row["epoch"], appliedSeq: row["applied_seq"],
                         lastSeen: Timestamp(milliseconds: row["last_seen"]), stale: false, via: try RelayPathJSON.decode(row["via"]))
            }
        }
    }

    @discardableResult
    public func forgetAcknowledgements(lastSeenBefore cutoff: Timestamp) async throws -> [String] {
        try await pool.write { db in
            let gone = try String.fetchAll(db, sql: "SELECT edge_id FROM edge_acks WHERE last_seen < ? ORDER BY edge_id",
                                           arguments: [cutoff.milliseconds])
            if !gone.isEmpty { try db.execute(sql: "DELETE FROM edge_acks WHERE last_seen < ?", arguments: [cutoff.milliseconds]) }
            return gone
        }
    }

    // MARK: Publishing

    public func publishedSeq() async throws -> Int64 {
        try await pool.read { db in
            Int64(try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'published'") ?? "0") ?? 0
        }
    }

    public func setPublishedSeq(_ seq: Int64) async throws {
        try await pool.write { db in
            try db.execute(sql: "UPDATE meta SET value = ? WHERE key = 'published'", arguments: [String(seq)])
        }
    }

    public func commitWakeups() -> AsyncStream<Void> { signal.stream() }

    /// One process owns the file: it leads from the start until cancelled.
    public func whileLeading(_ lead: @escaping @Sendable () async throws -> Void) async throws {
        try await lead()
    }

    // MARK: Internals

    private func write(_ body: @escaping @Sendable (Database) throws -> Change) async throws -> Change {
        try await writeMany { db in [try body(db)] }[0]
    }

    /// Runs `body` in one transaction; once it committed changes, wakes the listeners.
    private func writeMany(_ body: @escaping @Sendable (Database) throws -> [Change]) async throws -> [Change] {
        try await pool.writeWithoutTransaction { [signal] db in
            var changes: [Change] = []
            try db.inTransaction {
                changes = try body(db)
                return .commit
            }
            if !changes.isEmpty { signal.wake() }
            return changes
        }
    }

    private static func seq(_ db: Database) throws -> Int64 {
        Int64(try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'seq'") ?? "0") ?? 0
    }

    static func load(_ db: Database, id: Int64) throws -> Campaign? {
        try String.fetchOne(db, sql: "SELECT body FROM campaigns WHERE id = ?", arguments: [id]).map(decode)
    }

    /// Whether a creative is stored, asked of the database one sha256 at a time (a campaign names a few).
    private static func creativeChecker(_ db: Database) throws -> (String) -> Bool {
        { sha256 in (try? Bool.fetchOne(db, sql: "SELECT 1 FROM creatives WHERE sha256 = ?", arguments: [sha256])) == true }
    }

    /// Stores the campaign, takes the next `seq`, appends the change, and trims the log.
    static func record(_ db: Database, _ operation: CampaignOperation, _ campaign: Campaign, actor: String,
                               now: Timestamp) throws -> Change {
        let seq = try Self.seq(db) + 1
        let body = try CampaignJSON.encode(campaign)
        try db.execute(sql: "UPDATE meta SET value = ? WHERE key = 'seq'", arguments: [String(seq)])
        try db.execute(sql: "UPDATE campaigns SET app = ?, state = ?, next_transition = ?, updated_at = ?, body = ? WHERE id = ?",
                       arguments: [campaign.app, campaign.state.rawValue, CampaignRules.nextTransition(of: campaign)?.milliseconds,
                                   now.milliseconds, body, campaign.id])
        try db.execute(sql: "INSERT INTO changes (seq, op, campaign_id, at, actor, body) VALUES (?, ?, ?, ?, ?, ?)",
                       arguments: [seq, operation.rawValue, campaign.id, now.milliseconds, actor, body])
        return Change(seq: seq, op: operation, id: campaign.id, campaign: campaign, at: now)
    }

    static func decode(_ body: String) throws -> Campaign {
        try CampaignJSON.decode(body)
    }

    private static func change(_ row: Row) throws -> Change {
        Change(seq: row["seq"], op: CampaignOperation(rawValue: row["op"]) ?? .updated, id: row["campaign_id"],
               campaign: try decode(row["body"]), at: Timestamp(milliseconds: row["at"]))
    }
}
