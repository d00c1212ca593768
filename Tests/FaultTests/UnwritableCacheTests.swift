import CampaignStore
import DurableFiles
@testable import DeliveryService
import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdTesting
import Synchronization
import Testing
import ZMQRPC


extension FaultTests {
    /// A cache folder that refuses writes: the edge answers from memory within its budget, says so, and recovers.
    @Suite("an unwritable cache folder", .serialized, .timeLimit(.minutes(10)))
    struct UnwritableCacheTests {
        @Test("a cache folder that refuses writes, with more new creatives than memory may hold: the rest wait without being fetched again, and those no campaign needs are let go")
        func unwritableCacheFull() async throws {
            try await withStopping(CampaignFixture()) { fixture in
                let admin = try fixture.admin()
                let warm = try await fixture.uploadPNG(admin)
                try await withStopping(fixture.startEdge("edge-full", arguments: ["--creative-memory-bytes", "\(1 << 20)"])) { edge in
                    let first = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "before", creative: warm))
                    #expect(await edge.waitFor(seq: first.seq, creatives: 1))
                    let cache = fixture.cacheDirectory("edge-full")
                    #expect(await eventually { savedState(cache).state.creatives.count == 1 })
                    // Creatives cannot be written: their folder is moved away and a file takes its name.
                    let folder = cache.appendingPathComponent("creatives"), aside = cache.appendingPathComponent("creatives-aside")
                    try FileManager.default.moveItem(at: folder, to: aside)
                    try Data("not a folder".utf8).write(to: folder)

                    // Three of about 450 KB: memory (1 MiB) holds two.
                    var shas: [String] = [], campaigns: [Int64: String] = [:]
                    var seq: Int64 = 0
                    for seed in 1...3 {
                        let sha = try await fixture.uploadLargePNG(admin, bytes: 450_000, seed: UInt64(seed))
                        let created = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "new \(seed)", creative: sha))
                        shas.append(sha)
                        campaigns[created.campaign.id] = sha
                        seq = created.seq
                    }
                    func held() async -> Set<String> { await heldSet(edge, shas) }
                    #expect(await edge.waitFor(seq: seq, creatives: 3), "\(edge.process.log.suffix(1500))")
                    let heldFirst = await held()
                    #expect(heldFirst.count == 2)
                    // Heartbeats come and go (each has the edge look for what it lacks): the one without room is not downloaded
                    // again and again.
                    try await expectOneRefusal(edge, overHeartbeatsOf: fixture)
                    let status = try await edge.status()
                    #expect(status.creatives == 3 && !status.cacheWritable)

                    // A campaign deleted: its creative, held only in memory, is let go, and the one waiting takes its room.
                    let kept = await held()
                    let waiting = try #require(shas.first { !kept.contains($0) })
                    let (deletedID, deletedSHA) = try #require(campaigns.first { kept.contains($0.value) })
                    let deleted = try await admin.call(AdminAPI.campaignDelete, CampaignID(id: deletedID))
                    #expect(await edge.waitFor(seq: deleted.seq))
                    #expect(await eventually(timeout: .seconds(5)) { await self.heldSet(edge, shas) == Set(shas).subtracting([deletedSHA]) },
                            "\(edge.process.log.suffix(1500))")
                    let heldAfter = await held()
                    #expect(heldAfter.contains(waiting))
                    #expect(try await edge.status().creatives == 3)

                    // Room on disk again: what memory holds is written, and the creative let go is nowhere.
                    try putBack(aside, at: folder)
                    #expect(await eventually(timeout: .seconds(5)) {
                        (try? await edge.status().cacheWritable) == true && savedState(cache).state.creatives.count == 3
                    })
                    let saved = savedState(cache).state
                    #expect(saved.creatives[waiting] != nil && saved.creatives[deletedSHA] == nil)
                    #expect(unverifiedCreativeFiles(cache).isEmpty)
                    for sha in shas {
                        let path = folder.appendingPathComponent(String(sha.prefix(2))).appendingPathComponent(sha).path
                        #expect(FileManager.default.fileExists(atPath: path) == (sha != deletedSHA), "\(sha)")
                    }
                    await admin.close()
                }
            }
        }

        @Test("a creative refused by the cache folder with no room in memory waits, not downloaded again while state files are written, and is fetched once the folder takes writes")
        func unwritableCreativesNothingInMemory() async throws {
            try await withStopping(CampaignFixture()) { fixture in
                let admin = try fixture.admin()
                try await withStopping(fixture.startEdge("edge-none", arguments: ["--creative-memory-bytes", "\(1 << 20)"])) { edge in
                    let cache = fixture.cacheDirectory("edge-none")
                    let folder = cache.appendingPathComponent("creatives"), aside = cache.appendingPathComponent("creatives-aside")
                    try FileManager.default.moveItem(at: folder, to: aside)
                    try Data("not a folder".utf8).write(to: folder)

                    // Larger than all the memory the edge has for creatives: nothing is held, so no save has a creative to try,
                    // while each writes the state file (it takes writes).
                    let sha = try await fixture.uploadLargePNG(admin, bytes: 1_200_000, seed: 7)
                    let created = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "too large", creative: sha))
                    #expect(await edge.waitFor(seq: created.seq))
                    #expect(await eventually { edge.process.log.contains("no room in memory") })
                    try await expectOneRefusal(edge, overHeartbeatsOf: fixture)
                    #expect(try await edge.status().cacheWritable == false)
                    #expect(savedState(cache).state.seq == created.seq)

                    // The folder back: the edge's own look at it finds it takes writes, and the creative is fetched and stored.
                    try putBack(aside, at: folder)
                    #expect(await eventually(timeout: .seconds(5)) {
                        (try? await edge.status().cacheWritable) == true && savedState(cache).state.creatives[sha] != nil
                    }, "\(edge.process.log.suffix(1500))")
                    #expect(CreativeFiles.name(of: try await edge.creativeBytes(sha)) == sha)
                    #expect(unverifiedCreativeFiles(cache).isEmpty)
                    await admin.close()
                }
            }
        }

        @Test("a cache folder that refuses writes: the edge keeps answering from memory, says so in /healthz, edge.status and metrics, and recovers")
        func unwritableCache() async throws {
            try await withStopping(CampaignFixture()) { fixture in
                let admin = try fixture.admin()
                let creative = try await fixture.uploadPNG(admin)
                try await withStopping(fixture.startEdge("edge-ro")) { edge in
                    let first = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "before", creative: creative))
                    #expect(await edge.waitFor(seq: first.seq, creatives: 1))
                    #expect(try await edge.health()["cacheWritable"] == true)

                    // Tests may run as root, where chmod stops nothing: break the paths instead. The names of the state's two
                    // copies become folders (a save cannot open either), and the folder a new creative goes into becomes a
                    // file (its write fails).
                    var newCreative = ""
                    for seed in 1... {
                        newCreative = try await fixture.uploadPNG(admin, width: 1080, height: 2340, seed: seed)
                        if newCreative.prefix(2) != creative.prefix(2) { break }
                    }
                    let cache = fixture.cacheDirectory("edge-ro")
                    let stateURLs = ["state.json", "state.b.json"].map { cache.appendingPathComponent($0) }
                    let blocked = cache.appendingPathComponent("creatives").appendingPathComponent(String(newCreative.prefix(2)))
                    // The edge's save of what it holds must be done first, or it could put the file back between the two steps.
                    #expect(await eventually {
                        let saved = savedState(cache).state
                        return saved.seq == first.seq && saved.creatives.count == 1
                    })
                    for url in stateURLs {
                        try? FileManager.default.removeItem(at: url)
                        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
                    }
                    try Data("not a folder".utf8).write(to: blocked)

                    var fields = CampaignFixture.fields(name: "during", creative: newCreative)
                    fields.priority = 90
                    let during = try await admin.call(AdminAPI.campaignCreate, fields)
                    #expect(await edge.waitFor(seq: during.seq, creatives: 2))
                    // Answers come from memory: the new campaign, with its creative's verified bytes.
                    let answer = try await edge.query()
                    #expect(answer.id == during.campaign.id && answer.creative?.sha256 == newCreative)
                    #expect(CreativeFiles.name(of: try await edge.creativeBytes(newCreative)) == newCreative)
                    let (code, body) = try await edge.httpCreative(newCreative)
                    #expect(code == 200 && CreativeFiles.name(of: body) == newCreative)
                    // And it says so.
                    #expect(await eventually { (try? await edge.health()["cacheWritable"]) == false })
                    let health = try await edge.health()
                    #expect(health["status"] == "degraded" && health["cacheError"]?.stringValue?.isEmpty == false, "\(health)")
                    #expect(try await edge.status().cacheWritable == false)
                    #expect(try await edge.metrics().text.contains("launchad_deliveryd_cache_writable 0"))
                    // campaignd is told what the edge applied (and serves), even though the disk refused it.
                    #expect(await eventually {
                        (try? await CampaignFixture.acknowledgedSeq(admin)) == during.seq
                    })

                    // Room again: the edge notices by itself and writes what it holds.
                    for url in stateURLs { try FileManager.default.removeItem(at: url) }
                    try FileManager.default.removeItem(at: blocked)
                    #expect(await eventually(timeout: .seconds(5)) { (try? await edge.health()["cacheWritable"]) == true })
                    #expect(try await edge.health()["status"] == "ok")
                    let (saved, discarded) = savedState(cache)
                    #expect(!discarded && saved.seq == during.seq && saved.creatives[newCreative] != nil)
                    #expect(unverifiedCreativeFiles(cache).isEmpty)
                    #expect(FileManager.default.fileExists(atPath: blocked.appendingPathComponent(newCreative).path))

                    // What it wrote is what a restart answers from, with campaignd gone.
                    await edge.stop(signal: SIGKILL)
                    await fixture.kill()
                    try await withStopping(fixture.startEdge("edge-ro")) { again in
                        let restarted = try await again.query()
                        #expect(restarted.id == during.campaign.id && restarted.creative?.sha256 == newCreative)
                        #expect(CreativeFiles.name(of: try await again.creativeBytes(newCreative)) == newCreative)
                        await admin.close()
                    }
                }
            }
        }

        /// Puts the folder moved `aside` back at `folder`, where a file stands, in one step: a link to it takes the file's
        /// name by rename. Removing the file first would leave the name free for a moment, and the edge makes a missing
        /// folder at once (a write or its probe), so the folder moved back would find the name taken.
        private func putBack(_ aside: URL, at folder: URL) throws {
            let link = folder.deletingLastPathComponent().appendingPathComponent("creatives-link")
            try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: aside.lastPathComponent)
            guard rename(link.path, folder.path) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        }

        /// Expects the edge to have refused a creative for want of memory once only, over three more heartbeats
        /// (three heard here are three the edge heard too, and each has it look for the creatives it lacks).
        private func expectOneRefusal(_ edge: EdgeProcess, overHeartbeatsOf fixture: CampaignFixture) async throws {
            let subscriber = try fixture.subscribe(topics: ["heartbeat"])
            let heartbeats = await collect(subscriber.messages, timeout: .seconds(10)) { $0.count >= 3 }
            await subscriber.stop()
            #expect(heartbeats.count >= 3)
            let refusals = edge.process.log.components(separatedBy: "no room in memory").count - 1
            #expect(refusals == 1, "\(refusals) refusals: \(edge.process.log.suffix(1500))")
        }

        private func heldSet(_ edge: EdgeProcess, _ shas: [String]) async -> Set<String> {
            var held = Set<String>()
            for sha in shas where (try? await edge.creativeBytes(sha)).map({ CreativeFiles.name(of: $0) }) == sha { held.insert(sha) }
            return held
        }
    }
}
