import CampaignStore
import DurableFiles
import Foundation
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdTesting
import Locking
import Testing

/// The store's promises, on the embedded engine, called directly (the service's tests reach them over the wire).
@Suite("SQLite store", .timeLimit(.minutes(1)))
struct SQLiteStoreTests {
    static let now = Timestamp(rfc3339: "2026-11-25T12:00:00Z")!

    /// The store in `folder`, telling `heard` the seq of each change it commits.
    static func store(_ folder: URL, heard: Heard? = nil) throws -> SQLiteStore {
        try SQLiteStore(directory: folder.path, onCommit: { changes in heard?.add(changes.map(\.seq)) })
    }

    final class Heard: Sendable {
        private let seqs = Locked<[Int64]>([])
        func add(_ more: [Int64]) { seqs.withLock { $0 += more } }
        var all: [Int64] { seqs.withLock { $0 } }
    }

    static func fields(_ name: String, creative: String) -> CampaignFields {
        CampaignFields(name: name, app: "shop", startsAt: now.adding(seconds: -60), endsAt: now.adding(seconds: 3600),
                       creatives: [CreativeRef(sha256: creative)])
    }

    static func storeCreative(_ store: SQLiteStore, seed: Int = 0) async throws -> CreativeFacts {
        let bytes = CampaignFixture.png(width: 1080, height: 1920, seed: seed)
        let facts = CreativeFacts(sha256: CreativeFiles.name(of: bytes), contentType: "image/png", width: 1080, height: 1920,
                                  size: bytes.count)
        try await store.addCreative(facts, bytes: bytes, actor: "local", now: now)
        return facts
    }

    @Test("seq is gapless across writes of every kind, committed changes are heard in seq order, and the epoch outlives a reopen")
    func gaplessSeq() async throws {
        let folder = try makeTemporaryDirectory("store")
        defer { try? FileManager.default.removeItem(at: folder) }
        let heard = Heard()
        let store = try Self.store(folder, heard: heard)
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
        #expect(heard.all == seqs)
        #expect(try await store.currentSeq() == Int64(seqs.count))
        let epoch = store.epoch
        let reopened = try Self.store(folder)
        let reopenedSeq = try await reopened.currentSeq()
        #expect(reopened.epoch == epoch && reopenedSeq == Int64(seqs.count))
    }

    @Test("the change log answers after a seq (nothing at the current one, nil past it) and keeps who made each change")
    func changeLog() async throws {
        let folder = try makeTemporaryDirectory("store")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try Self.store(folder)
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
    }

    @Test("a creative's bytes come back by range; an unknown one is not found and an offset past its end is told apart")
    func creativeChunks() async throws {
        let folder = try makeTemporaryDirectory("store")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try Self.store(folder)
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

    @Test("an edge's report is added once: a resend or a lower id is not counted again")
    func reportsOnce() async throws {
        let folder = try makeTemporaryDirectory("store")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try Self.store(folder)
        let creative = try await Self.storeCreative(store)
        let created = try await store.create(Self.fields("a", creative: creative.sha256), actor: "local", now: Self.now)
        let counts = [CampaignStats(id: created.id, impressions: 10, clicks: 2, skips: 3)]
        let first = try await store.addReport(edgeId: "edge-1", reportId: 5, counts: counts)
        let again = try await store.addReport(edgeId: "edge-1", reportId: 5, counts: counts)
        let lower = try await store.addReport(edgeId: "edge-1", reportId: 4, counts: counts)
        let other = try await store.addReport(edgeId: "edge-2", reportId: 1, counts: counts)
        #expect(first == (true, 5) && again == (false, 5) && lower == (false, 5) && other == (true, 1))
        #expect(try await store.stats(id: created.id) == [CampaignStats(id: created.id, impressions: 20, clicks: 4, skips: 6)])
    }
}
