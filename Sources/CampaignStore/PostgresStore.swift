import LaunchAdAPI
import LaunchAdDomain
import Locking
import Logging
import NIOCore
import PostgresNIO

/// The shared store: PostgreSQL through `postgres-nio`'s connection pool, for several campaignd over one database.
/// Campaigns, the change log, creatives (their bytes too, so any campaignd serves them), the epoch, edges'
/// acknowledgements and report counts all live in the database. Every write is one transaction that first locks the
/// `counter` row, so writes from every process are serialized as SQLite's are: each change takes the next `seq` in
/// its own transaction (gapless; a refused or failed write rolls back and takes none), commits in `seq` order, and
/// notifies the channel ``notifyChannel`` on commit. A write returns only after COMMIT succeeded.
public final class PostgresStore: Store {
    public let epoch: String
    let client: PostgresClient
    let location: DatabaseURL.PostgresLocation
    let logger: Logger
    private let runner: Task<Void, Never>
    let signal = CommitSignal()
    /// The backend pid of this process's leadership session while it holds the leader's lock (`nil` otherwise): a
    /// leader-only write checks in its own transaction that this session still holds it (``checkLeading(_:)``).
    let leaderSession = Locked<Int32?>(nil)

    /// The channel every commit notifies (its payload: the last `seq` of the transaction).
    static let notifyChannel = "campaignd_changes"

    /// Connects to `location` (one connection first, so an unreachable or refusing server is an error at once, not a
    /// wait), creates the tables if missing, and starts the pool.
    public static func connect(_ location: DatabaseURL.PostgresLocation, logger: Logger,
                               connectTimeout: Duration = .seconds(5)) async throws -> PostgresStore {
        let epoch: String
        do {
            let configuration = connectionConfiguration(location, connectTimeout: connectTimeout, keepalive: false)
            let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
            defer { Task { try? await connection.close() } }
            epoch = try await PostgresSchema.prepare(connection, logger: logger)
        } catch {
            throw DatabaseUnavailable(location: DatabaseURL.postgres(location).description, error: error)
        }
        return PostgresStore(location: location, epoch: epoch, logger: logger)
    }

    private init(location: DatabaseURL.PostgresLocation, epoch: String, logger: Logger) {
        self.location = location
        self.epoch = epoch
        self.logger = logger
        var configuration = PostgresClient.Configuration(host: location.host, port: location.port, username: location.user,
                                                         password: location.password, database: location.database, tls: .disable)
        configuration.options.connectTimeout = .seconds(5)
        configuration.options.maximumConnections = 16
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        runner = Task { await client.run() }
    }

    /// Stops the pool (its connections close).
    public func close() {
        runner.cancel()
        signal.finish()
    }

    deinit { runner.cancel() }

    // MARK: Reading

    public func currentSeq() async throws -> Int64 {
        try await rows("SELECT seq FROM counter WHERE id = 1")[0].decode(Int64.self)
    }

    public func campaign(id: Int64) async throws -> Campaign? {
        try await rows("SELECT body FROM campaigns WHERE id = \(id)").first.map { try CampaignJSON.decode($0.decode(String.self)) }
    }

    public func campaigns(app: String?, state: CampaignState?) async throws -> [Campaign] {
        let query: PostgresQuery = """
            SELECT body FROM campaigns WHERE (\(app)::text IS NULL OR app = \(app))
            AND (CASE WHEN \(state?.rawValue)::text IS NULL THEN state <> 'deleted' ELSE state = \(state?.rawValue) END)
            ORDER BY id
            """
        return try await rows(query).map { try CampaignJSON.decode($0.decode(String.self)) }
    }

    public func snapshot() async throws -> Snapshot {
        try await consistentRead { connection in
            let seq = try await Self.rows(connection, "SELECT seq FROM counter WHERE id = 1", self.logger)[0].decode(Int64.self)
            let campaigns = try await Self.rows(connection, "SELECT body FROM campaigns ORDER BY id", self.logger)
                .map { try CampaignJSON.decode($0.decode(String.self)) }
            return Snapshot(epoch: self.epoch, seq: seq, campaigns: campaigns)
        }
    }

    public func snapshotPage(after: Int64, limit: Int, maxBytes: Int) async throws -> Snapshot {
        try await consistentRead { connection in
            let seq = try await Self.rows(connection, "SELECT seq FROM counter WHERE id = 1", self.logger)[0].decode(Int64.self)
            let rows = try await Self.rows(connection, "SELECT body FROM campaigns WHERE id > \(after) ORDER BY id LIMIT \(limit + 1)",
                                           self.logger)
            var campaigns: [Campaign] = []
            var bound = PageBound(limit: limit, maxBytes: maxBytes), more = false
            for row in rows {
                let body = try row.decode(String.self)
                guard bound.admits(body.utf8.count) else {
                    more = true
                    break
                }
                campaigns.append(try CampaignJSON.decode(body))
            }
            return Snapshot(epoch: self.epoch, seq: seq, campaigns: campaigns, next: more ? campaigns.last?.id : nil)
        }
    }

    public func changes(since seq: Int64, limit: Int, maxBytes: Int) async throws -> [Change]? {
        try await consistentRead { connection in
            let current = try await Self.rows(connection, "SELECT seq FROM counter WHERE id = 1", self.logger)[0].decode(Int64.self)
            guard seq <= current else { return nil }
            if seq == current { return [] }
            let oldest = try await Self.rows(connection, "SELECT MIN(seq) FROM changes", self.logger)[0].decode(Int64?.self) ?? (current + 1)
            guard oldest <= seq + 1 else { return nil }
            let rows = try await Self.rows(connection, """
                SELECT seq, op, campaign_id, at, actor, body FROM changes WHERE seq > \(seq) ORDER BY seq LIMIT \(Int64(limit))
                """, self.logger)
            var changes: [Change] = [], bound = PageBound(limit: limit, maxBytes: maxBytes)
            for row in rows {
                let (record, size) = try Self.recordAndSize(row)
                guard bound.admits(size) else { break }
                changes.append(record.change)
            }
            return changes
        }
    }

    public func changeLog(campaign: Int64?, after seq: Int64, limit: Int) async throws -> [ChangeRecord] {
        try await rows("""
            SELECT c.seq, c.op, c.campaign_id, c.at, c.actor, c.body,
                (SELECT p.body FROM changes p WHERE p.campaign_id = c.campaign_id AND p.seq < c.seq ORDER BY p.seq DESC LIMIT 1)
            FROM changes c WHERE c.seq > \(seq) AND (\(campaign)::BIGINT IS NULL OR c.campaign_id = \(campaign))
            ORDER BY c.seq LIMIT \(Int64(limit))
            """).map { try Self.logRow($0).record() }
    }

    public func campaignHistory(campaign: Int64, before seq: Int64?, limit: Int, maxBytes: Int) async throws -> [ChangeRecord] {
        let query: PostgresQuery = """
            SELECT c.seq, c.op, c.campaign_id, c.at, c.actor, c.body,
                (SELECT p.body FROM changes p WHERE p.campaign_id = c.campaign_id AND p.seq < c.seq ORDER BY p.seq DESC LIMIT 1)
            FROM changes c WHERE c.campaign_id = \(campaign) AND c.seq < \(seq ?? .max)
            ORDER BY c.seq DESC LIMIT \(Int64(limit))
            """
        // Row by row, as SQLite's cursor: the rows past the byte bound are not kept (the stream's own buffer aside).
        return try await pooled { [logger] connection in
            var records: [ChangeRecord] = [], bound = PageBound(limit: limit, maxBytes: maxBytes)
            for try await row in try await connection.query(query, logger: logger) {
                let (size, record) = try Self.logRow(row)
                guard bound.admits(size) else { break }
                records.append(try record())
            }
            return records
        }
    }

    /// A row of the change log with the campaign before it: the size of the two campaigns' JSON, and the record (its
    /// campaigns decoded only when asked for).
    private static func logRow(_ row: PostgresRow) throws -> (size: Int, record: () throws -> ChangeRecord) {
        let (seq, op, id, at, actor, body, before) = try row.decode((Int64, String, Int64, Int64, String, String, String?).self)
        return (body.utf8.count + (before?.utf8.count ?? 0), {
            let change = Change(seq: seq, op: CampaignOperation(rawValue: op) ?? .updated, id: id,
                                campaign: try CampaignJSON.decode(body), at: Timestamp(milliseconds: at))
            return ChangeRecord(change: change, actor: actor, before: try before.map(CampaignJSON.decode))
        })
    }

    public func nextTransitionTime() async throws -> Timestamp? {
        try await rows("SELECT MIN(next_transition) FROM campaigns WHERE next_transition IS NOT NULL")[0]
            .decode(Int64?.self).map(Timestamp.init(milliseconds:))
    }

    public func countsByState() async throws -> [CampaignState: Int] {
        var counts: [CampaignState: Int] = [:]
        for row in try await rows("SELECT state, COUNT(*) FROM campaigns GROUP BY state") {
            let (state, count) = try row.decode((String, Int64).self)
            if let state = CampaignState(rawValue: state) { counts[state] = Int(count) }
        }
        return counts
    }

    // MARK: Writing campaigns

    public func create(_ fields: CampaignFields, actor: String, now: Timestamp) async throws -> Change {
        try await write { connection in
            let stored = try await self.storedCreatives(connection, fields.creatives ?? [])
            var campaign: Campaign
            do throws(FieldError) {
                campaign = try CampaignRules.create(fields, id: 0, now: now, creativeExists: stored.contains)
            } catch {
                throw StoreError.field(error)
            }
            try await self.checkMarket(connection, campaign)
            campaign.id = try await Self.rows(connection, """
                INSERT INTO campaigns (app, state, updated_at, body) VALUES ('', '', 0, '') RETURNING id
                """, self.logger)[0].decode(Int64.self)
            return [try await self.record(connection, .created, campaign, actor: actor, now: now)]
        }[0]
    }

    public func update(id: Int64, fields: CampaignFields, actor: String, now: Timestamp) async throws -> Change {
        try await write { connection in
            guard let campaign = try await self.load(connection, id: id) else { throw StoreError.notFound(id) }
            // The rules check every creative the campaign will name: the new ones, or the ones it keeps.
            let stored = try await self.storedCreatives(connection, fields.creatives ?? campaign.creatives)
            let updated: Campaign
            do throws(CampaignRuleError) {
                updated = try CampaignRules.update(campaign, with: fields, now: now, creativeExists: stored.contains)
            } catch {
                switch error {
                case .field(let field): throw StoreError.field(field)
                case .transition(let transition): throw StoreError.transition(transition)
                }
            }
            try await self.checkMarket(connection, updated)
            return [try await self.record(connection, .updated, updated, actor: actor, now: now)]
        }[0]
    }

    public func apply(_ operation: CampaignOperation, id: Int64, actor: String, now: Timestamp) async throws -> Change {
        try await write { connection in
            guard let campaign = try await self.load(connection, id: id) else { throw StoreError.notFound(id) }
            let next: Campaign
            do throws(TransitionError) {
                next = try CampaignRules.apply(operation, to: campaign, now: now)
            } catch {
                throw StoreError.transition(error)
            }
            if MarketRules.isChecked(operation) { try await self.checkMarket(connection, next) }
            return [try await self.record(connection, operation, next, actor: actor, now: now)]
        }[0]
    }

    public func applyTimeTransitions(now: Timestamp) async throws -> [Change] {
        try await write { connection in
            let due = try await Self.rows(connection, """
                SELECT body FROM campaigns WHERE next_transition <= \(now.milliseconds) ORDER BY next_transition, id
                """, self.logger)
            var changes: [Change] = []
            for row in due {
                let campaign = try CampaignJSON.decode(row.decode(String.self))
                guard let (operation, next) = CampaignRules.timeTransition(of: campaign, now: now) else { continue }
                changes.append(try await self.record(connection, operation, next, actor: "scheduler", now: now))
            }
            return changes
        }
    }

    public func pace(_ shares: [CampaignShare], now: Timestamp) async throws -> [Change] {
        try await write { connection in
            var changes: [Change] = []
            try await self.checkLeading(connection)
            for share in shares {
                guard let campaign = try await self.load(connection, id: share.id),
                      let next = CampaignRules.pace(campaign, share: share.share) else { continue }
                changes.append(try await self.record(connection, .updated, next, actor: pacingActor, now: now))
            }
            return changes
        }
    }

    // MARK: Internals

    /// Refuses (``NotLeading``) a leader-only write unless this process's leadership session still holds the leader's
    /// lock, asked in the write's transaction after it took the counter row: a campaignd whose session ended (another
    /// now leads, its term over) cannot write, however late its duties learn it.
    func checkLeading(_ connection: PostgresConnection) async throws {
        guard let pid = leaderSession.withLock({ $0 }) else { throw NotLeading() }
        let key = Self.leaderLockKey
        let held = try await Self.rows(connection, """
            SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted AND pid = \(pid)
                AND classid::bigint = \(key >> 32) AND objid::bigint = \(key & 0xFFFF_FFFF) AND objsubid = 1)
            """, logger)[0].decode(Bool.self)
        guard held else { throw NotLeading() }
    }

    /// Runs `body` in one transaction that holds the counter row from its first statement, so writers take turns;
    /// rolls back on any error and returns only after COMMIT.
    func write(_ body: @escaping @Sendable (PostgresConnection) async throws -> [Change]) async throws -> [Change] {
        let changes = try await turn { [logger] connection in
            let changes = try await body(connection)
            if let last = changes.last {
                try await connection.query("SELECT pg_notify(\(Self.notifyChannel), \(String(last.seq)))", logger: logger)
            }
            return changes
        }
        if !changes.isEmpty { signal.wake() }
        return changes
    }

    /// Runs `body` in one transaction holding the counter row, as every campaign write does: what it reads of the
    /// campaigns stays true until it commits.
    func turn<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        try await pooled { [logger] connection in
            try await Self.transaction(connection, logger: logger) {
                try await connection.query("SELECT seq FROM counter WHERE id = 1 FOR UPDATE", logger: logger)
                return try await body(connection)
            }
        }
    }

    /// Runs `body` in a read-only transaction that sees one moment of the database.
    func consistentRead<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        try await pooled { [logger] connection in
            try await Self.transaction(connection, begin: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", logger: logger) { try await body(connection) }
        }
    }

    /// Every row of a query on a pooled connection.
    @discardableResult
    func rows(_ query: PostgresQuery) async throws -> [PostgresRow] {
        try await pooled { [logger] connection in try await connection.query(query, logger: logger).collect() }
    }

    /// How long an operation may wait for the database (a connection, then its queries) before it fails with
    /// ``DatabaseUnavailable``: an admin call is answered with an error, never left hanging, while PostgreSQL is away.
    static let operationTimeout: Duration = .seconds(10)

    /// Runs `body` on a pooled connection within ``operationTimeout``. The answer never waits for the pool beyond
    /// that: when the time passes or the caller is cancelled, the work is cancelled and the caller answered at once,
    /// even where the pool keeps waiting for a connection (the work then ends in the background, without running
    /// `body`). So the leader's duties end with its session, in the middle of a read too, rather than when the pool
    /// gives up on a database that went away.
    func pooled<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        let client = client
        let place = DatabaseURL.postgres(location).description
        do {
            return try await FirstOutcome.run(timeout: Self.operationTimeout,
                                              timedOut: DatabaseUnavailable(location: place, reason: "no answer in \(Self.operationTimeout)")) {
                // A connection given after the caller was answered runs nothing: a write the caller was told failed
                // must not be made later.
                try await client.withConnection { connection in
                    try Task.checkCancellation()
                    return try await body(connection)
                }
            }
        } catch let error as DatabaseUnavailable {
            throw error
        } catch is CancellationError {
            throw CancellationError()
        } catch let error as StoreError {
            throw error
        } catch let error as NotLeading {
            throw error
        } catch {
            throw DatabaseUnavailable(location: place, error: error)
        }
    }

    /// Runs `body` between `begin` and COMMIT on `connection`; on any error, ends the transaction with ``rollBack(_:_:)``
    /// and throws the error.
    static func transaction<T>(_ connection: PostgresConnection, begin: PostgresQuery = "BEGIN", logger: Logger,
                               _ body: () async throws -> T) async throws -> T {
        try await connection.query(begin, logger: logger)
        do {
            let value = try await body()
            try await connection.query("COMMIT", logger: logger)
            return value
        } catch {
            try? await rollBack(connection, logger)
            throw error
        }
    }

    /// Ends the transaction a failure left open, unless the connection has closed (the server then rolled it back):
    /// PostgresNIO (1.33.2) never answers a query written to a closed connection, and the wait (a pool's lease, or the
    /// start of campaignd) would never end. A connection that closes between this look and the write still can; a
    /// failure is most often the connection's end, which comes before the look.
    private static func rollBack(_ connection: PostgresConnection, _ logger: Logger) async throws {
        guard !connection.isClosed else { return }
        try await connection.query("ROLLBACK", logger: logger)
    }

    @discardableResult
    static func rows(_ connection: PostgresConnection, _ query: PostgresQuery, _ logger: Logger) async throws -> [PostgresRow] {
        try await connection.query(query, logger: logger).collect()
    }

    func load(_ connection: PostgresConnection, id: Int64) async throws -> Campaign? {
        try await Self.rows(connection, "SELECT body FROM campaigns WHERE id = \(id)", logger).first
            .map { try CampaignJSON.decode($0.decode(String.self)) }
    }

    /// Which of the creatives a campaign names are stored.
    private func storedCreatives(_ connection: PostgresConnection, _ refs: [CreativeRef]) async throws -> Set<String> {
        guard !refs.isEmpty else { return [] }
        let names = refs.map(\.sha256)
        return Set(try await Self.rows(connection, "SELECT sha256 FROM creatives WHERE sha256 = ANY(\(names))", logger)
            .map { try $0.decode(String.self) })
    }

    /// Stores the campaign, takes the next `seq` and appends the change (the counter row is already locked).
    func record(_ connection: PostgresConnection, _ operation: CampaignOperation, _ campaign: Campaign, actor: String,
                        now: Timestamp) async throws -> Change {
        let seq = try await Self.rows(connection, "UPDATE counter SET seq = seq + 1 WHERE id = 1 RETURNING seq", logger)[0]
            .decode(Int64.self)
        let body = try CampaignJSON.encode(campaign)
        let next = CampaignRules.nextTransition(of: campaign)?.milliseconds
        try await connection.query("""
            UPDATE campaigns SET app = \(campaign.app), state = \(campaign.state.rawValue), next_transition = \(next),
                updated_at = \(now.milliseconds), body = \(body) WHERE id = \(campaign.id)
            """, logger: logger)
        try await connection.query("""
            INSERT INTO changes (seq, op, campaign_id, at, actor, body)
            VALUES (\(seq), \(operation.rawValue), \(campaign.id), \(now.milliseconds), \(actor), \(body))
            """, logger: logger)
        return Change(seq: seq, op: operation, id: campaign.id, campaign: campaign, at: now)
    }

    /// A change log row, and the size of its campaign's JSON.
    private static func recordAndSize(_ row: PostgresRow) throws -> (ChangeRecord, Int) {
        let (seq, op, id, at, actor, body) = try row.decode((Int64, String, Int64, Int64, String, String).self)
        let change = Change(seq: seq, op: CampaignOperation(rawValue: op) ?? .updated, id: id, campaign: try CampaignJSON.decode(body),
                            at: Timestamp(milliseconds: at))
        return (ChangeRecord(change: change, actor: actor), body.utf8.count)
    }
}

/// The database could not be reached or refused us: said with where and why (postgres-nio's own description hides
/// the server's message, its reflection tells it).
public struct DatabaseUnavailable: Error, Sendable, CustomStringConvertible {
    public let location: String
    public let reason: String

    init(location: String, reason: String) {
        self.location = location
        self.reason = reason
    }

    init(location: String, error: any Error) {
        self.location = location
        if let error = error as? PSQLError {
            let message = error.serverInfo?[.message]
            reason = message ?? "\(error.code)" + (error.underlying.map { ": \($0)" } ?? "")
        } else {
            reason = String(describing: error)
        }
    }

    public var description: String { "cannot use the database \(location): \(reason)" }
}
