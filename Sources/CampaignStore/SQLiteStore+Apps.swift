import GRDB
import LaunchAdDomain

// Apps, their log and the rules of their markets, on SQLite.
extension SQLiteStore {
    public func app(_ app: String) async throws -> AppSettings? {
        try await pool.read { db in try Self.app(db, app) }
    }

    public func apps() async throws -> [AppSettings] {
        try await pool.read { db in try String.fetchAll(db, sql: "SELECT body FROM apps ORDER BY app").map(AppJSON.decode) }
    }

    public func setApp(_ patch: AppPatch, actor: String, now: Timestamp) async throws -> (app: AppSettings, breaking: [BreakingCampaign]) {
        try await pool.write { db in
            let stored = try Self.app(db, patch.app)
            let (next, newLogo) = try AppJSON.merge(stored, patch, now: now)
            if let newLogo, try Self.creative(db, sha256: newLogo) == nil { throw AppJSON.logoNotUploaded }
            if next != stored {
                let body = try AppJSON.encode(next)
                try db.execute(sql: """
                    INSERT INTO apps (app, market, body) VALUES (?, ?, ?)
                    ON CONFLICT(app) DO UPDATE SET market = excluded.market, body = excluded.body
                    """, arguments: [next.app, next.market.rawValue, body])
                try db.execute(sql: "INSERT INTO app_changes (app, at, actor, before, after) VALUES (?, ?, ?, ?, ?)",
                               arguments: [next.app, now.milliseconds, actor, try AppJSON.encode(stored), body])
            }
            let campaigns = try String.fetchAll(db, sql: "SELECT body FROM campaigns WHERE app = ? AND state IN ('live', 'scheduled', 'paused')",
                                                arguments: [next.app]).map(Self.decode)
            return (next, BreakingCampaign.among(campaigns, in: next.market))
        }
    }

    public func appHistory(_ app: String, limit: Int) async throws -> [AppChange] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT at, actor, before, after FROM app_changes WHERE app = ? ORDER BY id DESC LIMIT ?",
                             arguments: [app, limit]).map { row in
                AppChange(at: Timestamp(milliseconds: row["at"]), actor: row["actor"], before: try (row["before"] as String?).map(AppJSON.decode),
                          after: try AppJSON.decode(row["after"]))
            }
        }
    }

    static func app(_ db: Database, _ app: String) throws -> AppSettings? {
        try String.fetchOne(db, sql: "SELECT body FROM apps WHERE app = ?", arguments: [app]).map(AppJSON.decode)
    }

    /// Refuses a campaign that breaks rules of its app's market (an app never set is `global`; one whose stored market
    /// is unknown is refused).
    static func checkMarket(_ db: Database, _ campaign: Campaign) throws {
        let market = try AppJSON.market(stored: String.fetchOne(db, sql: "SELECT market FROM apps WHERE app = ?", arguments: [campaign.app]),
                                        app: campaign.app)
        do throws(MarketRefusal) { try MarketRules.check(campaign, in: market) } catch { throw StoreError.market(error) }
    }
}
