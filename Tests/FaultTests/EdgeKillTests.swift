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
    /// An edge killed in the middle of applying changes or of writing a creative: what it restarts from verifies.
    @Suite("kill -9 of an edge", .serialized, .timeLimit(.minutes(10)))
    struct EdgeKillTests {
        @Test("kill -9 of an edge while it applies a burst: the state it restarts from verifies, is a prefix of the log, holds every seq it acknowledged, and it converges")
        func edgeKilledDuringSync() async throws {
            try await withStopping(CampaignFixture()) { fixture in
                let admin = try fixture.admin()
                let creative = try await fixture.uploadPNG(admin)
                try await withStopping(fixture.startEdge("edge-k")) { edge in
                    let first = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "first", creative: creative))
                    #expect(await edge.waitFor(seq: first.seq, creatives: 1))
                    // Saved and acknowledged before the burst: what is killed is a save among others, not the first one (the
                    // save thread runs at the lowest priority, and a busy machine may hold back the first through the whole
                    // burst, leaving no file at all).
                    #expect(await eventually(timeout: .seconds(30)) {
                        ((try? await CampaignFixture.acknowledgedSeq(admin, edge: "edge-k")) ?? 0) >= first.seq
                    })

                    let log = WriteLog()
                    let each = FaultScale.edgeBurst / FaultScale.writers
                    let writing = Task { try await writeConcurrently(fixture, creative: creative, each: each, log: log, timeout: .seconds(10)) }
                    // Kill it in the middle of the burst.
                    let target = first.seq + Int64(FaultScale.edgeBurst / 3)
                    #expect(await eventually(timeout: .seconds(60)) { ((try? await edge.status().seq) ?? 0) >= target })
                    let ackedBefore = try await CampaignFixture.acknowledgedSeq(admin, edge: "edge-k") ?? 0
                    await edge.stop(signal: SIGKILL)
                    // Acknowledgements already sent may still land; none may name a seq the disk does not hold. (Messages in
                    // flight from a dead process announce nothing: the test gives them a while.)
                    try await Task.sleep(for: .milliseconds(200))
                    let acked = try await CampaignFixture.acknowledgedSeq(admin, edge: "edge-k") ?? 0
                    #expect(acked >= ackedBefore)

                    let cache = fixture.cacheDirectory("edge-k")
                    let (saved, discarded) = savedState(cache)
                    // A kill in the middle of a save tears the copy being overwritten (discarded); the other copy is whole, and
                    // it is what the edge restarts from: it must verify and hold every acknowledged seq.
                    #expect(saved.isLoaded, "no copy of the state left by kill -9 verifies (a torn copy: \(discarded))")
                    #expect(saved.seq >= acked, "campaignd was told seq \(acked) was applied, but the disk holds \(saved.seq)")
                    let (_, _, changes) = try await fixture.changeLog()
                    #expect(saved.campaigns.values.sorted { $0.id < $1.id } == replay(changes, count: Int(saved.seq)),
                            "the saved state is not the log's state at its seq \(saved.seq)")
                    #expect(unverifiedCreativeFiles(cache).isEmpty)
                    figure("edge killed at seq \(saved.seq) (acknowledged \(acked)) of a burst of \(FaultScale.edgeBurst)\(discarded ? ", in a save: its torn copy discarded" : "")")

                    // Restarted, it answers from that state at once, then converges.
                    try await withStopping(fixture.startEdge("edge-k")) { edge in
                        let restarted = try await edge.status()
                        #expect(restarted.loaded && restarted.seq >= saved.seq)
                        try await writing.value
                        #expect(await log.failures == 0)
                        let final = try await fixture.snapshot()
                        #expect(await edge.waitFor(seq: final.seq, epoch: final.epoch, creatives: 1, timeout: .seconds(30)))
                        await expectSavedState(of: edge, in: fixture, equals: final)
                        await admin.close()
                    }
                }
            }
        }

        @Test("kill -9 of an edge while it downloads a large creative: it never serves bytes that do not hash to the name, and it converges")
        func edgeKilledDuringDownload() async throws {
            try await withStopping(CampaignFixture()) { fixture in
                let admin = try fixture.admin()
                let small = try await fixture.uploadPNG(admin)
                let large = try await fixture.uploadLargePNG(admin, bytes: 4 << 20, seed: 7)
                // The edge reaches campaignd's sync socket through a slow link, so the kill lands in the download.
                try await withStopping(TCPProxy(upstream: fixture.endpoints["sync"]!)) { link in
                    try await withStopping(fixture.startEdge("edge-dl", sync: link.endpoint)) { edge in
                        let warm = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "small", creative: small))
                        #expect(await edge.waitFor(seq: warm.seq, creatives: 1))
                        link.throttle(bytesPerSecond: 2 << 20)
                        let before = link.counts.bytes
                        var fields = CampaignFixture.fields(name: "large", creative: large)
                        fields.priority = 90
                        let created = try await admin.call(AdminAPI.campaignCreate, fields)
                        // Well into the download (a quarter of its base64 through the link), not done.
                        #expect(await eventually(timeout: .seconds(20)) { link.counts.bytes - before > (4 << 20) * 4 / 3 / 4 })
                        await edge.stop(signal: SIGKILL)
                        let cache = fixture.cacheDirectory("edge-dl")
                        let (saved, discarded) = savedState(cache)
                        #expect(!discarded && saved.creatives[large] == nil, "the edge claimed the creative before it had it")
                        #expect(unverifiedCreativeFiles(cache).isEmpty)

                        // What a crash can leave where the creative belongs: half of it (a torn copy, a disk that lost the end).
                        let folder = cache.appendingPathComponent("creatives").appendingPathComponent(String(large.prefix(2)))
                        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                        let sync = try fixture.sync()
                        let head = try await sync.call(SyncAPI.creative, CreativeChunkParams(sha256: large, offset: 0, length: 100_000))
                        await sync.close()
                        try Data(base64Encoded: head.data)!.write(to: folder.appendingPathComponent(large))
                        try Data("leftover".utf8).write(to: folder.appendingPathComponent(".\(large).0000.tmp"))

                        link.throttle(bytesPerSecond: nil)
                        try await withStopping(fixture.startEdge("edge-dl", sync: link.endpoint)) { edge in
                            // Before it has verified the large creative it must not answer with it.
                            let early = try await edge.query()
                            if early.creative?.sha256 == large {
                                #expect(CreativeFiles.name(of: try await edge.creativeBytes(large)) == large, "answered with a creative it has not verified")
                            }
                            #expect(await edge.waitFor(seq: created.seq, creatives: 2, timeout: .seconds(30)))
                            let answer = try await edge.query()
                            #expect(answer.id == created.campaign.id && answer.creative?.sha256 == large)
                            let served = try await edge.creativeBytes(large)
                            #expect(served.count == 4 << 20 && CreativeFiles.name(of: served) == large, "creative.get served bytes that do not hash to \(large)")
                            let (code, overHTTP) = try await edge.httpCreative(large)
                            #expect(code == 200 && CreativeFiles.name(of: overHTTP) == large, "HTTP served bytes that do not hash to \(large)")
                            #expect(unverifiedCreativeFiles(cache).isEmpty, "files left in the cache: \(unverifiedCreativeFiles(cache))")
                            let final = try await fixture.snapshot()
                            await expectSavedState(of: edge, in: fixture, equals: final)
                            await admin.close()
                        }
                    }
                }
            }
        }
    }
}
