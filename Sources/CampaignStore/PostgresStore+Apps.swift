import LaunchAdDomain
import PostgresNIO

// Apps and their log, on PostgreSQL.
extension PostgresStore {
    public func app(_ app: String) async throws -> AppSettings? {
        try await rows("SELECT body FROM apps WHERE app = \(app)").first.map { try AppJSON.decode($0.decode(String.self)) }
    }

    public func apps() async throws -> [AppSettings] {
        try await rows("SELECT body FROM apps ORDER BY app COLLATE \"C\"").map { try AppJSON.decode($0.decode(String.self)) }
    }

    public func setApp(_ patch: AppPatch, actor: String, now: Timestamp) async throws -> (app: AppSettings, breaking: [BreakingCampaign]) {
        try await turn { [logger] connection in
            let stored = try await Self.rows(connection, "SELECT body FROM apps WHERE app = \(patch.app) FOR UPDATE", logger).first
                .map { try AppJSON.decode($0.decode(String.self)) }
            let (next, newLogo) = try AppJSON.merge(stored, patch, now: now)
            if let newLogo, try await Self.rows(connection, "SELECT 1 FROM creatives WHERE sha256 = \(newLogo)", logger).isEmpty {
                throw AppJSON.logoNotUploaded
            }
            if next != stored {
                let body = try AppJSON.encode(next)
                try await connection.query("""
                    INSERT INTO apps (app, market, body) VALUES (\(next.app), \(next.market.rawValue), \(body))
                    ON CONFLICT (app) DO UPDATE SET market = excluded.market, body = excluded.body
                    """, logger: logger)
                try await connection.query("""
                    INSERT INTO app_changes (app, at, actor, before, after)
                    VALUES (\(next.app), \(now.milliseconds), \(actor), \(try AppJSON.encode(stored)), \(body))
                    """, logger: logger)
            }
            let campaigns = try await Self.rows(connection, """
                SELECT body FROM campaigns WHERE app = \(next.app) AND state IN ('live', 'scheduled', 'paused')
                """, logger).map { try CampaignJSON.decode($0.decode(String.self)) }
            return (next, BreakingCampaign.among(campaigns, in: next.market))
        }
    }

    public func appHistory(_ app: String, limit: Int) async throws -> [AppChange] {
        try await rows("SELECT at, actor, before, after FROM app_changes WHERE app = \(app) ORDER BY id DESC LIMIT \(Int64(limit))").map { row in
            let (at, actor, before, after) = try row.decode((Int64, String, String?, String).self)
            return AppChange(at: Timestamp(milliseconds: at), actor: actor, before: try before.map(AppJSON.decode), after: try AppJSON.decode(after))
        }
    }

    /// Refuses a campaign that breaks rules of its app's market (an app never set is `global`; one whose stored market
    /// is unknown is refused).
    func checkMarket(_ connection: PostgresConnection, _ campaign: Campaign) async throws {
        let market = try AppJSON.market(stored: try await Self.rows(connection, "SELECT market FROM apps WHERE app = \(campaign.app)", logger).first?
            .decode(String.self), app: campaign.app)
        do throws(MarketRefusal) { try MarketRules.check(campaign, in: market) } catch { throw StoreError.market(error) }
    }
}
