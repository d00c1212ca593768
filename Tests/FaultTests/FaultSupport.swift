import CampaignStore
import DurableFiles
@testable import CampaignFollowing
@testable import DeliveryService
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdTesting
import SeededRandomness
import Testing
import ZMQRPC

/// How hard the fault suite pushes: a short run for CI, a long one with `LAUNCHAD_FAULTS_LONG=1`.
enum FaultScale {
    static let long = ProcessInfo.processInfo.environment["LAUNCHAD_FAULTS_LONG"] == "1"
    /// Changes in the burst that a tiny receive high-water mark must lose.
    static let burst = long ? 10_000 : 2_000
    /// Writes acknowledged before campaignd is killed under them.
    static let writesBeforeKill = long ? 2_000 : 150
    /// Changes in the burst an edge is killed in.
    static let edgeBurst = long ? 3_000 : 400
    /// Concurrent admin clients.
    static let writers = 8
}

/// Prints a figure of the fault suite (the README says where the long run's figures are).
func figure(_ text: String) {
    print("[faults\(FaultScale.long ? " long" : "")] \(text)")
}

extension CampaignFixture {
    /// The whole change log, from seq 1, through the sync API (in pages), with the epoch it belongs to.
    func changeLog() async throws -> (epoch: String, seq: Int64, changes: [Change]) {
        try await withStopping(self.sync()) { sync in
            let epoch = try await sync.call(SyncAPI.snapshot, SnapshotParams()).epoch
            var changes: [Change] = []
            var seq: Int64 = 0
            while true {
                let page = try await sync.call(SyncAPI.changes, ChangesParams(epoch: epoch, since: Int64(changes.count), limit: 1000))
                changes += page.changes
                seq = page.seq
                if page.changes.isEmpty || Int64(changes.count) >= page.seq { break }
            }
            return (epoch, seq, changes)
        }
    }

    func snapshot() async throws -> Snapshot {
        try await withStopping(self.sync()) { sync in try await sync.call(SyncAPI.snapshot, SnapshotParams()) }
    }

    /// Uploads a PNG of about `bytes` bytes (a real header, then filler distinct per `seed`); returns its sha256.
    func uploadLargePNG(_ admin: RPCClient, bytes: Int, seed: UInt64) async throws -> String {
        var data = CampaignFixture.png(width: 1080, height: 1920, seed: Int(seed))
        var generator = SeededRandom(seed: seed)
        data.reserveCapacity(bytes)
        while data.count < bytes { data.append(UInt8(truncatingIfNeeded: generator.next())) }
        let info = try await admin.call(AdminAPI.creativeUpload, CreativeUploadParams(contentType: "image/png", data: Data(data).base64EncodedString()))
        #expect(info.size == data.count)
        return info.sha256
    }
}

/// The campaigns a change log gives after applying its first `count` changes.
func replay(_ changes: [Change], count: Int? = nil) -> [Campaign] {
    var campaigns: [Int64: Campaign] = [:]
    for change in changes.prefix(count ?? changes.count) { campaigns[change.id] = change.campaign }
    return campaigns.values.sorted { $0.id < $1.id }
}

/// What an edge saved in its cache folder, verified by its checksum as the edge itself reads it at start.
func savedState(_ directory: URL) -> (state: EdgeState, discarded: Bool) {
    StateFile(directory: directory).load()
}

/// Every file under an edge's `creatives/` folder: each must be named by the sha256 of its bytes (no torn file, no
/// leftover of an interrupted write). Returns the names of the files that are not.
func unverifiedCreativeFiles(_ cache: URL) -> [String] {
    let root = cache.appendingPathComponent("creatives")
    var bad: [String] = []
    for folder in (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? [] {
        let url = root.appendingPathComponent(folder)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? [] {
            let data = FileManager.default.contents(atPath: url.appendingPathComponent(name).path) ?? Data()
            if CreativeFiles.name(of: data) != name { bad.append("\(folder)/\(name)") }
        }
    }
    return bad
}

extension EdgeClient {
    /// A creative's bytes as the edge serves them over `creative.get`, chunk by chunk.
    func creativeBytes(_ sha256: String) async throws -> [UInt8] {
        var bytes: [UInt8] = []
        while true {
            let chunk = try await client.call(ClientAPI.creativeGet, CreativeChunkParams(sha256: sha256, offset: bytes.count))
            let data = [UInt8](Data(base64Encoded: chunk.data) ?? Data())
            bytes += data
            if data.isEmpty || bytes.count >= chunk.size { break }
        }
        return bytes
    }

    /// A creative's bytes as the edge serves them over HTTP, with the status code.
    func httpCreative(_ sha256: String) async throws -> (Int, [UInt8]) {
        let url = URL(string: "http://\(endpoints["http"]!)/creatives/\(sha256)")!
        let (body, response) = try await URLSession.shared.data(from: url)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, [UInt8](body))
    }

    /// `/healthz`, parsed.
    func health() async throws -> JSONValue {
        let url = URL(string: "http://\(endpoints["http"]!)/healthz")!
        let (body, _) = try await URLSession.shared.data(from: url)
        return try JSONParser.parse([UInt8](body))
    }
}

/// Stops an edge gracefully and checks that the state it saved is exactly campaignd's snapshot: converged, and
/// flushed on SIGTERM.
func expectSavedState(of edge: EdgeProcess, in fixture: CampaignFixture, equals snapshot: Snapshot,
                      sourceLocation: SourceLocation = #_sourceLocation) async {
    await edge.stop()
    expectSavedState(ofEdge: edge.name, in: fixture, equals: snapshot, sourceLocation: sourceLocation)
}

/// Checks that the state an edge that has stopped saved is exactly campaignd's snapshot.
func expectSavedState(ofEdge name: String, in fixture: some CampaignServiceEndpoints, equals snapshot: Snapshot,
                      sourceLocation: SourceLocation = #_sourceLocation) {
    let (saved, discarded) = savedState(fixture.cacheDirectory(name))
    #expect(!discarded, "\(name)'s state file does not verify", sourceLocation: sourceLocation)
    #expect(saved.epoch == snapshot.epoch && saved.seq == snapshot.seq,
            "\(name) saved \(saved.epoch)/\(saved.seq), campaignd is at \(snapshot.epoch)/\(snapshot.seq)", sourceLocation: sourceLocation)
    let campaigns = saved.campaigns.values.sorted { $0.id < $1.id }
    #expect(campaigns == snapshot.campaigns, "\(name)'s campaigns differ from the snapshot", sourceLocation: sourceLocation)
}

/// Admin writes from several clients at once, each recording what was answered; a writer stops at its first
/// failure (campaignd killed under it).
actor WriteLog {
    struct Answered: Sendable {
        var seq: Int64
        var id: Int64
        var op: CampaignOperation
        var version: Int
    }

    private(set) var answered: [Answered] = []
    private(set) var failures = 0

    func record(_ result: CampaignChangeResult, _ op: CampaignOperation) {
        answered.append(Answered(seq: result.seq, id: result.campaign.id, op: op, version: result.campaign.version))
    }

    func failed() { failures += 1 }
}

/// One writer: creates campaigns and moves them through updates, pauses, resumes, forces and unforces, until
/// `count` writes were answered or a call fails.
func write(_ client: RPCClient, creative: String, writer: Int, count: Int, log: WriteLog) async {
    var mine: [Int64] = []
    var paused = Set<Int64>()
    var forced = Set<Int64>()
    var generator = SeededRandom(seed: UInt64(writer + 1))
    for index in 0..<count {
        do {
            if mine.count < 3 || generator.next() % 3 == 0 {
                let result = try await client.call(AdminAPI.campaignCreate,
                                                   CampaignFixture.fields(name: "w\(writer)-\(index)", creative: creative))
                mine.append(result.campaign.id)
                await log.record(result, .created)
                continue
            }
            let id = mine[Int(generator.next() % UInt64(mine.count))]
            switch generator.next() % 3 {
            case 0:
                var update = CampaignUpdateParams(id: id, fields: CampaignFields())
                update.priority = Int(generator.next() % 101)
                await log.record(try await client.call(AdminAPI.campaignUpdate, update), .updated)
            case 1:
                let pausing = !paused.contains(id)
                let result = try await client.call(pausing ? AdminAPI.campaignPause : AdminAPI.campaignResume, CampaignID(id: id))
                if pausing { paused.insert(id) } else { paused.remove(id) }
                await log.record(result, pausing ? .paused : .resumed)
            default:
                let forcing = !forced.contains(id)
                let result = try await client.call(forcing ? AdminAPI.campaignForce : AdminAPI.campaignUnforce, CampaignID(id: id))
                if forcing { forced.insert(id) } else { forced.remove(id) }
                await log.record(result, forcing ? .forced : .unforced)
            }
        } catch {
            await log.failed()
            return
        }
    }
}

/// Runs `writers` concurrent writers of `each` writes on their own admin clients.
func writeConcurrently(_ fixture: CampaignFixture, creative: String, writers: Int = FaultScale.writers, each: Int,
                       log: WriteLog, timeout: Duration = Sanitizer.scaled(.seconds(3))) async throws {
    let clients = try (0..<writers).map { _ in try fixture.admin(timeout: timeout) }
    await withTaskGroup(of: Void.self) { group in
        for (writer, client) in clients.enumerated() {
            group.addTask { await write(client, creative: creative, writer: writer, count: each, log: log) }
        }
    }
    for client in clients { await client.close() }
}
