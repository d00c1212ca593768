@testable import CampaignStore
import DurableFiles
import Foundation
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdTesting
import Logging
import Testing

/// The store's promises, on both engines, called directly (the service's tests reach them over the wire): the
/// embedded SQLite file and a real PostgreSQL cluster (one for the suite, a database for each test).
@Suite("Store conformance", .timeLimit(.minutes(3)), .sharedPostgresCluster)
struct StoreConformanceTests {
    static let now = Timestamp(rfc3339: "2026-11-25T12:00:00Z")!

    /// Runs `body` with a new, empty store of `engine`, and a way to open the same database again.
    static func withStore(_ engine: StoreEngine, _ body: (any Store, _ reopen: () async throws -> any Store) async throws -> Void) async throws {
        switch engine {
        case .sqlite:
            let folder = try makeTemporaryDirectory("store")
            defer { removeTemporaryDirectory(folder) }
            try await body(try SQLiteStore(directory: folder.path), { try SQLiteStore(directory: folder.path) })
        case .postgres:
            try await withPostgresDatabase { url, _ in
                guard case .postgres(let location) = try DatabaseURL(parsing: url) else { throw PostgresCluster.Failure(description: url) }
                let logger = Logger(label: "store-test")
                let store = try await PostgresStore.connect(location, logger: logger)
                defer { store.close() }
                var reopened: [PostgresStore] = []
                defer { reopened.forEach { $0.close() } }
                try await body(store, {
                    let again = try await PostgresStore.connect(location, logger: logger)
                    reopened.append(again)
                    return again
                })
            }
        }
    }

    static func fields(_ name: String, creative: String) -> CampaignFields {
        CampaignFields(name: name, app: "shop", startsAt: now.adding(seconds: -60), endsAt: now.adding(seconds: 3600),
                       creatives: [CreativeRef(sha256: creative)])
    }

    static func storeCreative(_ store: any Store, seed: Int = 0) async throws -> CreativeFacts {
        let bytes = CampaignFixture.png(width: 1080, height: 1920, seed: seed)
        let facts = CreativeFacts(sha256: CreativeFiles.name(of: bytes), contentType: "image/png", width: 1080, height: 1920,
                                  size: bytes.count)
        try await store.addCreative(facts, bytes: bytes, actor: "local", now: now)
        return facts
    }

    @Test("seq is gapless across writes of every kind, commits wake listeners, and the epoch outlives a reopen", arguments: StoreEngine.allCases)
    func gaplessSeq(engine: StoreEngine) async throws {
      try await Self.withStore(engine) { store, reopen in
        var wakeups = store.commitWakeups().makeAsyncIterator()
        #expect(try await store.currentSeq() == 0)
        let creative = try await Self.storeCreative(store)
        var seqs: [Int64] = []
        let a = try await store.create(Self.fields("a", creative: creative.sha256), actor: "local", now: Self.now)
        let b = try await store.create(Self.fields("b", creative: creative.sha256), actor: "local", now: Self.now)
        seqs += [a.seq, b.seq]
        seqs.append(try await store.apply(.forced, id: a.id, actor: "k1", now: Self.now).seq)
        var update = CampaignFields()
        update.priority = 70
        seqs.append(try await store.update(id: b.id, fields: update, actor: "k2", now: Self.now).seq)
        // A refused write takes no seq.
        await #expect(throws: StoreError.self) { try await store.apply(.resumed, id: a.id, actor: "k1", now: Self.now) }
        await #expect(throws: StoreError.notFound(99)) { try await store.apply(.expired, id: 99, actor: "k1", now: Self.now) }
        seqs += try await store.applyTimeTransitions(now: Self.now.adding(seconds: 7200)).map(\.seq)
        #expect(seqs == Array(1...Int64(seqs.count)), "\(seqs)")
        #expect(try await store.changeLog(after: 0, limit: 100).map(\.change.seq) == seqs)
        let woke: Void? = await wakeups.next()
        #expect(woke != nil)
        #expect(try await store.currentSeq() == Int64(seqs.count))
        let epoch = store.epoch
        let reopened = try await reopen()
        let reopenedSeq = try await reopened.currentSeq()
        #expect(reopened.epoch == epoch && reopenedSeq == Int64(seqs.count))
      }
    }

    @Test("pacing's shares are ordinary updates (by pacing, with a seq, the version kept), one per campaign that moves, in one write; the rest passed over; only the leader may write them",
          arguments: StoreEngine.allCases)
    func pacedShares(engine: StoreEngine) async throws {
        try await Self.withStore(engine) { store, _ in
            let creative = try await Self.storeCreative(store)
            var goal = Self.fields("goal", creative: creative.sha256)
            goal.goal = CampaignGoal(impressions: 1000, per: .day)
            let paced = try await store.create(goal, actor: "local", now: Self.now)
            let plain = try await store.create(Self.fields("plain", creative: creative.sha256), actor: "local", now: Self.now)
            let later = Self.now.adding(seconds: 10)
            let shares = [CampaignShare(id: paced.id, share: 0.375), CampaignShare(id: plain.id, share: 0.5), CampaignShare(id: 99, share: 0)]
            var leading: Task<Void, any Error>?
            defer { leading?.cancel() }
            if let postgres = store as? PostgresStore {
                // Not leading: refused, nothing written. Then while it leads.
                await #expect(throws: NotLeading.self) { try await store.pace(shares, now: later) }
                #expect(try await store.currentSeq() == 2)
                leading = Task { try await postgres.whileLeading { try await Task.sleep(for: .seconds(3600)) } }
                #expect(await eventually(timeout: .seconds(10)) { postgres.leaderSession.withLock { $0 } != nil })
            }
            let changes = try await store.pace(shares, now: later)
            #expect(changes.map(\.op) == [.updated] && changes.map(\.seq) == [3] && changes[0].campaign.share == 0.375)
            // The operator's version and time stay: the SDK keys what it learned of a campaign on its version.
            #expect(changes[0].campaign.version == paced.campaign.version && changes[0].campaign.updatedAt == paced.campaign.updatedAt)
            #expect(changes[0].at == later)
            // The same share again changes nothing; none takes it away.
            #expect(try await store.pace([CampaignShare(id: paced.id, share: 0.375)], now: later).isEmpty)
            let stored = try #require(try await store.campaign(id: paced.id))
            #expect(stored.share == 0.375 && stored.goal == goal.goal)
            // An operator's update keeps the share.
            var rename = CampaignFields()
            rename.name = "renamed"
            #expect(try await store.update(id: paced.id, fields: rename, actor: "alice", now: later).campaign.share == 0.375)
            let log = try await store.changeLog(campaign: paced.id, after: 0, limit: 10)
            #expect(log.map(\.actor) == ["local", pacingActor, "alice"] && log.map(\.change.op) == [.created, .updated, .updated])
            #expect(log[1].before?.share == nil)
            let cleared = try await store.pace([CampaignShare(id: paced.id, share: nil)], now: later)
            #expect(cleared.count == 1 && cleared[0].campaign.share == nil && cleared[0].seq == 5)
        }
    }

    @Test("concurrent writers take every seq once, in commit order", arguments: StoreEngine.allCases)
    func concurrentWrites(engine: StoreEngine) async throws {
        try await Self.withStore(engine) { store, _ in
            let creative = try await Self.storeCreative(store)
            let seqs = try await withThrowingTaskGroup(of: Int64.self) { group in
                for index in 0..<40 {
                    group.addTask { try await store.create(Self.fields("c\(index)", creative: creative.sha256), actor: "local", now: Self.now).seq }
                }
                return try await group.reduce(into: [Int64]()) { $0.append($1) }
            }
            #expect(seqs.sorted() == Array(1...40))
            let log = try await store.changes(since: 0, limit: 100, maxBytes: .max) ?? []
            #expect(log.map(\.seq) == Array(1...40))
            #expect(try await store.campaigns(app: "shop", state: nil).count == 40)
        }
    }

    @Test("edges' acknowledgements are kept, the newest of each edge with its relay path; the published mark only moves forward", arguments: StoreEngine.allCases)
    func acknowledgementsAndMark(engine: StoreEngine) async throws {
        try await Self.withStore(engine) { store, reopen in
            let old = EdgeInfo(edgeId: "edge-1", region: "eu", epoch: store.epoch, appliedSeq: 3, lastSeen: Self.now, stale: false)
            var new = old
            new.appliedSeq = 5
            new.lastSeen = Self.now.adding(seconds: 1)
            let other = EdgeInfo(edgeId: "edge-2", region: "us", epoch: store.epoch, appliedSeq: 1, lastSeen: Self.now, stale: false,
                                 via: ["relay-eu", "relay-fra"])
            try await store.saveAcknowledgements([new, other])
            try await store.saveAcknowledgements([old])
            #expect(try await reopen().acknowledgements() == [new, other])
            // An edge that moves from behind relays to campaignd itself is listed direct.
            var moved = other
            moved.via = nil
            moved.lastSeen = Self.now.adding(seconds: 2)
            try await store.saveAcknowledgements([moved])
            #expect(try await reopen().acknowledgements() == [new, moved])
            #expect(try await store.publishedSeq() == 0)
            try await store.setPublishedSeq(7)
            #expect(try await store.publishedSeq() == 7)
        }
    }

    @Test("a database made before acknowledgements kept their relay path opens with its rows, and keeps paths from then on",
          arguments: StoreEngine.allCases)
    func relayPathMigration(engine: StoreEngine) async throws {
        // The edge_acks table as campaignd left it before, with a row in it.
        let older = """
            ALTER TABLE edge_acks DROP COLUMN via;
            INSERT INTO edge_acks (edge_id, region, epoch, applied_seq, last_seen) VALUES ('edge-old', 'eu', 'e', 4, \(Self.now.milliseconds));
            """
        let kept = EdgeInfo(edgeId: "edge-old", region: "eu", epoch: "e", appliedSeq: 4, lastSeen: Self.now, stale: false)
        var behind = kept
        behind.via = ["relay-eu"]
        behind.lastSeen = Self.now.adding(seconds: 1)
        func check(_ open: () async throws -> any Store) async throws {
            let store = try await open()
            #expect(try await store.acknowledgements() == [kept])
            try await store.saveAcknowledgements([behind])
            #expect(try await open().acknowledgements() == [behind])
        }
        switch engine {
        case .sqlite:
            let folder = try makeTemporaryDirectory("store")
            defer { removeTemporaryDirectory(folder) }
            _ = try SQLiteStore(directory: folder.path)
            try runSQLiteShell(folder.appendingPathComponent(SQLiteStore.fileName).path,
                            older + "DELETE FROM grdb_migrations WHERE identifier = 'v6 relay path of acknowledgements';")
            try await check { try SQLiteStore(directory: folder.path) }
        case .postgres:
            try await withPostgresDatabase { url, cluster in
                guard case .postgres(let location) = try DatabaseURL(parsing: url) else { throw PostgresCluster.Failure(description: url) }
                let logger = Logger(label: "store-test")
                try await PostgresStore.connect(location, logger: logger).close()
                try cluster.execute(older, database: url)
                var opened: [PostgresStore] = []
                defer { opened.forEach { $0.close() } }
                try await check {
                    let store = try await PostgresStore.connect(location, logger: logger)
                    opened.append(store)
                    return store
                }
            }
        }
    }

    @Test("a creative keeps the duration read at upload; those stored before durations were get theirs from their bytes at the next start, 0 when the bytes are gone",
          arguments: StoreEngine.allCases)
    func creativeDurations(engine: StoreEngine) async throws {
        let video = MediaBytes.Track(width: 1080, height: 1920, timescale: 30_000, duration: 150_150)
        let files: [(type: String, bytes: [UInt8], durationMs: Int)] = [
            ("image/gif", MediaBytes.gif(width: 640, height: 960, delays: [10, 20, 0]), 400),
            ("video/mp4", MediaBytes.isoMedia(duration: 5_005, tracks: [video]), 5_005),
            // A QuickTime movie taken as MP4 before brands were checked: its length is read all the same.
            ("video/mp4", MediaBytes.isoMedia(brand: "qt  ", compatible: ["qt  "], version: 1, duration: 1,
                                              tracks: [MediaBytes.Track(width: 720, height: 1280, timescale: 600, duration: 1_800)]), 3_000),
            ("image/png", CampaignFixture.png(width: 1080, height: 1920, seed: 3), 0),
            ("image/gif", MediaBytes.gif(width: 10, height: 10, delays: [100, 100]), 2_000),  // its bytes go missing (SQLite)
        ]
        let facts = files.map { file in
            CreativeFacts(sha256: CreativeFiles.name(of: file.bytes), contentType: file.type, width: 10, height: 10, size: file.bytes.count,
                          durationMs: file.durationMs)
        }
        // As an older campaignd left them: the creatives without the column.
        let older = "ALTER TABLE creatives DROP COLUMN duration_ms;"
        func check(_ open: () async throws -> any Store, bytesGone: Bool) async throws {
            let store = try await open()
            #expect(try await store.fillCreativeDurations() == files.count)
            for (index, expected) in facts.enumerated() {
                var expected = expected
                if bytesGone && index == files.count - 1 { expected.durationMs = 0 }
                #expect(try await store.creative(sha256: expected.sha256) == expected)
                #expect(try await store.creativeChunk(sha256: expected.sha256, offset: 0, length: 16) == (bytesGone && index == files.count - 1
                    ? .notFound : .bytes(expected, Array(files[index].bytes.prefix(16)))))
            }
            // Once: a second start reads no bytes.
            #expect(try await open().fillCreativeDurations() == 0)
        }
        switch engine {
        case .sqlite:
            let folder = try makeTemporaryDirectory("store")
            defer { removeTemporaryDirectory(folder) }
            let store = try SQLiteStore(directory: folder.path)
            for (fact, file) in zip(facts, files) { try await store.addCreative(fact, bytes: file.bytes, actor: "local", now: Self.now) }
            #expect(try await store.fillCreativeDurations() == 0)
            #expect(try await store.creative(sha256: facts[1].sha256) == facts[1])
            try runSQLiteShell(folder.appendingPathComponent(SQLiteStore.fileName).path,
                            older + "DELETE FROM grdb_migrations WHERE identifier = 'v8 creative durations';")
            try FileManager.default.removeItem(at: try CreativeFiles(directory: folder.path).root
                .appendingPathComponent(String(facts[4].sha256.prefix(2))).appendingPathComponent(facts[4].sha256))
            // Read before the start that fills them, an older row is a still image's.
            #expect(try await SQLiteStore(directory: folder.path).creative(sha256: facts[1].sha256)?.durationMs == 0)
            try await check({ try SQLiteStore(directory: folder.path) }, bytesGone: true)
        case .postgres:
            try await withPostgresDatabase { url, cluster in
                guard case .postgres(let location) = try DatabaseURL(parsing: url) else { throw PostgresCluster.Failure(description: url) }
                let logger = Logger(label: "store-test")
                let store = try await PostgresStore.connect(location, logger: logger)
                defer { store.close() }
                for (fact, file) in zip(facts, files) { try await store.addCreative(fact, bytes: file.bytes, actor: "local", now: Self.now) }
                #expect(try await store.fillCreativeDurations() == 0)
                #expect(try await store.creative(sha256: facts[1].sha256) == facts[1])
                try cluster.execute(older, database: url)
                var opened: [PostgresStore] = []
                defer { opened.forEach { $0.close() } }
                try await check({
                    let store = try await PostgresStore.connect(location, logger: logger)
                    opened.append(store)
                    return store
                }, bytesGone: false)
            }
        }
    }

    @Test("the change log answers after a seq (nothing at the current one, nil past it) and keeps who made each change", arguments: StoreEngine.allCases)
    func changeLog(engine: StoreEngine) async throws {
      try await Self.withStore(engine) { store, _ in
        let creative = try await Self.storeCreative(store)
        let created = try await store.create(Self.fields("a", creative: creative.sha256), actor: "operator-key", now: Self.now)
        let forced = try await store.apply(.forced, id: created.id, actor: "local", now: Self.now)
        let changes = try #require(try await store.changes(since: 0, limit: 10, maxBytes: .max))
        #expect(changes.map(\.seq) == [1, 2] && changes.map(\.op) == [.created, .forced])
        #expect(changes[1].campaign == forced.campaign)
        #expect(try await store.changes(since: 2, limit: 10, maxBytes: .max) == [])
        #expect(try await store.changes(since: 3, limit: 10, maxBytes: .max) == nil)
        #expect(try await store.changes(since: 0, limit: 1, maxBytes: .max)?.map(\.seq) == [1])
        let log = try await store.changeLog(after: 0, limit: 10)
        #expect(log.map(\.actor) == ["operator-key", "local"] && log.map(\.change) == changes)
        #expect(log.map(\.before) == [nil, created.campaign])
      }
    }

    @Test("the change log answers one campaign's changes, each with the campaign before it, after a seq and a page at a time", arguments: StoreEngine.allCases)
    func changeLogOfOneCampaign(engine: StoreEngine) async throws {
      try await Self.withStore(engine) { store, _ in
        let creative = try await Self.storeCreative(store)
        let a = try await store.create(Self.fields("a", creative: creative.sha256), actor: "alice", now: Self.now)
        let b = try await store.create(Self.fields("b", creative: creative.sha256), actor: "bob", now: Self.now)
        let forced = try await store.apply(.forced, id: a.id, actor: "alice", now: Self.now)
        _ = try await store.apply(.paused, id: b.id, actor: "bob", now: Self.now)
        let expired = try await store.apply(.expired, id: a.id, actor: "carol", now: Self.now.adding(seconds: 1))
        let ofA = try await store.changeLog(campaign: a.id, after: 0, limit: 10)
        #expect(ofA.map(\.change.seq) == [1, 3, 5] && ofA.map(\.actor) == ["alice", "alice", "carol"])
        #expect(ofA.map(\.before) == [nil, a.campaign, forced.campaign])
        #expect(ofA.last?.change == expired)
        #expect(try await store.changeLog(campaign: a.id, after: 1, limit: 1).map(\.change.seq) == [3])
        #expect(try await store.changeLog(campaign: b.id, after: 0, limit: 10).map(\.before) == [nil, b.campaign])
        #expect(try await store.changeLog(campaign: 99, after: 0, limit: 10).isEmpty)
        #expect(try await store.changeLog(campaign: nil, after: 2, limit: 2).map(\.change.seq) == [3, 4])
      }
    }

    @Test("a campaign's history comes newest first, a page before a seq at a time, bounded in changes and in the bytes of its campaigns", arguments: StoreEngine.allCases)
    func campaignHistory(engine: StoreEngine) async throws {
      try await Self.withStore(engine) { store, _ in
        let creative = try await Self.storeCreative(store)
        let a = try await store.create(Self.fields("a", creative: creative.sha256), actor: "alice", now: Self.now)
        _ = try await store.create(Self.fields("b", creative: creative.sha256), actor: "bob", now: Self.now)
        let forced = try await store.apply(.forced, id: a.id, actor: "alice", now: Self.now)
        let expired = try await store.apply(.expired, id: a.id, actor: "carol", now: Self.now.adding(seconds: 1))
        let size = PageBound.bytes(of: a.campaign)
        let all = try await store.campaignHistory(campaign: a.id, before: nil, limit: 10, maxBytes: 1 << 20)
        #expect(all.map(\.change.seq) == [4, 3, 1] && all.map(\.actor) == ["carol", "alice", "alice"])
        #expect(all.map(\.before) == [forced.campaign, a.campaign, nil] && all.first?.change == expired)
        #expect(try await store.campaignHistory(campaign: a.id, before: 4, limit: 1, maxBytes: 1 << 20).map(\.change.seq) == [3])
        #expect(try await store.campaignHistory(campaign: a.id, before: 3, limit: 10, maxBytes: 1 << 20).map(\.change.seq) == [1])
        #expect(try await store.campaignHistory(campaign: a.id, before: 1, limit: 10, maxBytes: 1 << 20).isEmpty)
        #expect(try await store.campaignHistory(campaign: 99, before: nil, limit: 10, maxBytes: 1 << 20).isEmpty)
        // In bytes: each change counts its campaign after and before; the page stops before the bound, but never
        // before its first change.
        #expect(try await store.campaignHistory(campaign: a.id, before: nil, limit: 10, maxBytes: 4 * size + size / 2).map(\.change.seq) == [4, 3])
        #expect(try await store.campaignHistory(campaign: a.id, before: nil, limit: 10, maxBytes: 1).map(\.change.seq) == [4])
      }
    }

    @Test("a creative's bytes come back by range; an unknown one is not found and an offset past its end is told apart", arguments: StoreEngine.allCases)
    func creativeChunks(engine: StoreEngine) async throws {
      try await Self.withStore(engine) { store, _ in
        let facts = try await Self.storeCreative(store, seed: 7)
        let bytes = CampaignFixture.png(width: 1080, height: 1920, seed: 7)
        #expect(try await store.creative(sha256: facts.sha256) == facts)
        #expect(try await store.creativeChunk(sha256: facts.sha256, offset: 0, length: 1 << 20) == .bytes(facts, bytes))
        #expect(try await store.creativeChunk(sha256: facts.sha256, offset: 8, length: 4) == .bytes(facts, Array(bytes[8..<12])))
        #expect(try await store.creativeChunk(sha256: facts.sha256, offset: bytes.count, length: 4) == .bytes(facts, []))
        #expect(try await store.creativeChunk(sha256: facts.sha256, offset: bytes.count + 1, length: 4) == .pastEnd(facts))
        let unknown = String(repeating: "a", count: 64)
        #expect(try await store.creativeChunk(sha256: unknown, offset: 0, length: 4) == .notFound)
        #expect(try await store.creative(sha256: unknown) == nil)
        // Stored twice: one creative, the same bytes.
        try await store.addCreative(facts, bytes: bytes, actor: "local", now: Self.now)
        #expect(try await store.creativeChunk(sha256: facts.sha256, offset: 0, length: 1 << 20) == .bytes(facts, bytes))
      }
    }

    @Test("an edge's report is added once: a resend or a lower id is not counted again", arguments: StoreEngine.allCases)
    func reportsOnce(engine: StoreEngine) async throws {
      try await Self.withStore(engine) { store, _ in
        let creative = try await Self.storeCreative(store)
        let created = try await store.create(Self.fields("a", creative: creative.sha256), actor: "local", now: Self.now)
        let counts = [CampaignStats(id: created.id, impressions: 10, clicks: 2, skips: 3)]
        let first = try await store.addReport(edgeId: "edge-1", reportId: 5, counts: counts)
        let again = try await store.addReport(edgeId: "edge-1", reportId: 5, counts: counts)
        let lower = try await store.addReport(edgeId: "edge-1", reportId: 4, counts: counts)
        let other = try await store.addReport(edgeId: "edge-2", reportId: 1, counts: counts)
        #expect(first == (true, 5) && again == (false, 5) && lower == (false, 5) && other == (true, 1))
        #expect(try await store.stats(id: created.id) == [CampaignStats(id: created.id, impressions: 20, clicks: 4, skips: 6, reports: 0)])
      }
    }
}
