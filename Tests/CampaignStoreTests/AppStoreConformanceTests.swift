import CampaignStore
import DurableFiles
import Foundation
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdTesting
import Logging
import Testing

/// Apps in the store, alike on both engines (in the store's suite, on its cluster).
extension StoreConformanceTests {
    @Test("apps and their log outlive a reopen and take no seq; a database from before apps gains their tables at start", arguments: StoreEngine.allCases)
    func apps(engine: StoreEngine) async throws {
        /// Sets an app on `store`, checks it and its log there and after a reopen.
        func check(_ store: any Store, _ reopen: () async throws -> any Store) async throws {
            let seq = try await store.currentSeq()
            #expect(try await store.app("shop") == nil)
            #expect(try await store.apps().isEmpty)
            let (first, none) = try await store.setApp(AppPatch(app: "shop", market: .cn), actor: "alice", now: Self.now)
            #expect(first == AppSettings(app: "shop", market: .cn, updatedAt: Self.now) && none.isEmpty)
            let later = Self.now.adding(seconds: 60)
            let (second, _) = try await store.setApp(AppPatch(app: "shop", timezone: "Asia/Shanghai"), actor: "bob", now: later)
            await #expect { try await store.setApp(AppPatch(app: "shop", logo: String(repeating: "0", count: 64)), actor: "bob", now: later) }
                throws: { ($0 as? StoreError) == .field(FieldError("logo", "is not an uploaded creative")) }
            for opened in [store, try await reopen()] {
                #expect(try await opened.app("shop") == second)
                #expect(try await opened.apps() == [second])
                #expect(try await opened.appHistory("shop", limit: 10) == [
                    AppChange(at: later, actor: "bob", before: first, after: second), AppChange(at: Self.now, actor: "alice", before: nil, after: first),
                ])
                #expect(try await opened.appHistory("shop", limit: 1).count == 1)
                // Apps are not campaigns: no change of the campaigns' log, no seq.
                #expect(try await opened.currentSeq() == seq)
            }
        }
        // A store as a campaignd from before apps left it.
        let older = "DROP TABLE app_changes; DROP TABLE apps;"
        switch engine {
        case .sqlite:
            let folder = try makeTemporaryDirectory("store")
            defer { removeTemporaryDirectory(folder) }
            let creative = try await Self.storeCreative(try SQLiteStore(directory: folder.path))
            try runSQLiteShell(folder.appendingPathComponent(SQLiteStore.fileName).path, older + "DELETE FROM grdb_migrations WHERE identifier = 'v9 apps';")
            let store = try SQLiteStore(directory: folder.path)
            _ = try await store.create(Self.fields("kept", creative: creative.sha256), actor: "local", now: Self.now)
            try await check(store) { try SQLiteStore(directory: folder.path) }
        case .postgres:
            try await withPostgresDatabase { url, cluster in
                guard case .postgres(let location) = try DatabaseURL(parsing: url) else { throw PostgresCluster.Failure(description: url) }
                let logger = Logger(label: "store-test")
                let first = try await PostgresStore.connect(location, logger: logger)
                let creative = try await Self.storeCreative(first)
                first.close()
                try cluster.execute(older, database: url)
                var opened: [PostgresStore] = []
                defer { opened.forEach { $0.close() } }
                func open() async throws -> any Store {
                    let store = try await PostgresStore.connect(location, logger: logger)
                    opened.append(store)
                    return store
                }
                let store = try await open()
                _ = try await store.create(Self.fields("kept", creative: creative.sha256), actor: "local", now: Self.now)
                try await check(store, open)
            }
        }
    }
}

extension StoreConformanceTests {
    @Test("a market this campaignd does not know refuses the app's campaign writes (never read as global); apps are listed in byte order; an app's first set needs its market", arguments: StoreEngine.allCases)
    func appsFailClosed(engine: StoreEngine) async throws {
        // Rows as a newer campaignd (a market added since) or a hand at the database could leave them.
        let unknown = #"INSERT INTO apps (app, market, body) VALUES ('future', 'us', '{"app":"future","market":"us","timezone":"UTC"}');"#
        /// `collate` gives the apps' ids a language's collation where the engine has one, as a database made with such
        /// a locale has by default.
        func check(_ store: any Store, collate: String? = nil, _ runSQL: (String) throws -> Void) async throws {
            let creative = try await Self.storeCreative(store)
            var fields = Self.fields("future's", creative: creative.sha256)
            fields.app = "future"
            let live = try await store.create(fields, actor: "local", now: Self.now).campaign
            try runSQL(unknown)
            let refusal = StoreError.field(FieldError("app", #"is in the market "us", which this campaignd does not know; its campaigns cannot be written until app.set gives it cn, eu or global"#))
            await #expect { try await store.create(fields, actor: "local", now: Self.now) } throws: { ($0 as? StoreError) == refusal }
            await #expect { try await store.update(id: live.id, fields: CampaignFields(priority: 60), actor: "local", now: Self.now) } throws: {
                ($0 as? StoreError) == refusal
            }
            // Taking it off the air is no write its market's rules refuse.
            #expect(try await store.apply(.paused, id: live.id, actor: "local", now: Self.now).campaign.state == .paused)
            await #expect { try await store.apply(.resumed, id: live.id, actor: "local", now: Self.now) } throws: { ($0 as? StoreError) == refusal }

            // Byte order on both engines, whatever the PostgreSQL database's collation.
            await #expect { try await store.setApp(AppPatch(app: "a.b", timezone: "Asia/Kolkata"), actor: "local", now: Self.now) } throws: {
                ($0 as? StoreError) == .field(FieldError("market", "is required when an app is first set (cn, eu or global)"))
            }
            for app in ["ab", "a_b", "a0", "a.b", "a-b", "B"] {
                _ = try await store.setApp(AppPatch(app: app, market: .global), actor: "local", now: Self.now)
            }
            try runSQL("DELETE FROM apps WHERE app = 'future';")
            if let collate { try runSQL(collate) }
            #expect(try await store.apps().map(\.app) == ["B", "a-b", "a.b", "a0", "a_b", "ab"])
        }
        switch engine {
        case .sqlite:
            let folder = try makeTemporaryDirectory("store")
            defer { removeTemporaryDirectory(folder) }
            try await check(try SQLiteStore(directory: folder.path)) { try runSQLiteShell(folder.appendingPathComponent(SQLiteStore.fileName).path, $0) }
        case .postgres:
            try await withPostgresDatabase { url, cluster in
                guard case .postgres(let location) = try DatabaseURL(parsing: url) else { throw PostgresCluster.Failure(description: url) }
                let store = try await PostgresStore.connect(location, logger: Logger(label: "store-test"))
                defer { store.close() }
                try await check(store, collate: #"ALTER TABLE apps ALTER COLUMN app TYPE TEXT COLLATE "und-x-icu";"#) {
                    try cluster.execute($0, database: url)
                }
            }
        }
    }
}
