import CampaignStore
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdRuntime
import LaunchAdTesting
import Testing
import ZMQRPC
import ZeroMQ

/// The edge while campaignd is killed, restarted or replaced: campaignd runs as a child process here, so that it can
/// die as a process does.
@Suite("deliveryd with campaignd killed, restarted or replaced", .timeLimit(.minutes(3)))
struct EdgeWithCampaigndDownTests {
    @Test("an expired campaign is never answered even with campaignd killed: the edge's clock ends it")
    func expiryByClockAlone() async throws {
        try await DeliveryServiceTests.withCampaignFixture { fixture, admin, creative in
            try await withStopping(fixture.startEdge("edge-c")) { edge in
                let created = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(creative: creative, startIn: -1, duration: 3))
                #expect(await edge.waitFor(seq: created.seq, creatives: 1))
                #expect(try await edge.query().hasAd)
                await fixture.kill()
                // Query continuously across the end: never an ad at or after endsAt.
                let endsAt = created.campaign.endsAt
                var servedLate = false
                var sawRevoked = false
                while Timestamp(seconds: Date().timeIntervalSince1970) < endsAt.adding(seconds: 1) {
                    let before = Timestamp(seconds: Date().timeIntervalSince1970)
                    let answer = try await edge.query()
                    if answer.hasAd && before >= endsAt { servedLate = true }
                    if answer.revoked.contains(created.campaign.id) { sawRevoked = true }
                    // Pacing of a loop that queries through the end (the test is about time passing), not a wait for an event.
                    try await Task.sleep(for: .milliseconds(20))
                }
                #expect(!servedLate)
                #expect(sawRevoked)
                await admin.close()
            }
        }
    }

    @Test("SIGTERM with campaignd just killed: the edge exits 0 at once, its calls to campaignd not waiting out their timeouts")
    func gracefulStopWithoutCampaignd() async throws {
        try await DeliveryServiceTests.withCampaignFixture { fixture, admin, creative in
            try await withStopping(fixture.startEdge("edge-t")) { edge in
                let created = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(creative: creative))
                #expect(await edge.waitFor(seq: created.seq, creatives: 1))
                await admin.close()
                await fixture.kill()
                // Acknowledgements and snapshot requests now go unanswered: shutting down must cancel them, not wait.
                await edge.client.close()
                let started = ContinuousClock.now
                edge.process.signal(SIGTERM)
                let status = await edge.process.exitStatus()
                let took = ContinuousClock.now - started
                #expect(status == 0, "\(edge.process.log)")
                #expect(took < .milliseconds(1500), "exit took \(took)")
            }
        }
    }

    @Test("SIGTERM with replies still queued for a client that reads slowly: every one arrives whole, and the edge exits 0")
    func gracefulStopDeliversQueuedReplies() async throws {
        try await DeliveryServiceTests.withCampaignFixture { fixture, admin, _ in
            // A creative of 16 KB: 400 `creative.get` answers (9 MB) are far more than the kernel's buffers hold.
            let bytes = CreativeInspector.pngHeader(width: 1179, height: 2556, trailer: Array(repeating: UInt8(ascii: "q"), count: 16_000))
            let upload = CreativeUploadParams(contentType: "image/png", data: Data(bytes).base64EncodedString())
            let creative = try await admin.call(AdminAPI.creativeUpload, upload).sha256
            let created = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(creative: creative))
            await admin.close()
            // A linger far longer than the reading takes on a loaded host: this part is about what is delivered.
            try await withStopping(fixture.startEdge("edge-q", arguments: ["--shutdown-linger", "30"])) { edge in
                #expect(await edge.waitFor(seq: created.seq, creatives: 1))
                await edge.client.close()
                let count = 400
                let peer = try await Self.unreadCalls(count, of: creative, to: edge, context: fixture.context)
                edge.process.signal(SIGTERM)
                // Read only now: blocking, as fast as the replies come, and read after.
                var replies: [[UInt8]] = []
                while replies.count < count, let reply = try peer.socket.receiveParts() { replies.append(reply[1]) }
                var ids: [Int] = []
                for reply in replies {
                    let response = try JSONParser.parse(reply)
                    #expect(response["result"]?["size"]?.intValue == bytes.count)
                    ids.append(response["id"]?.intValue ?? 0)
                }
                #expect(ids.count == count)
                #expect(ids == Array(1...ids.count))
                #expect(await edge.process.exitStatus() == 0, "\(edge.process.log)")
            }
            // A client that never reads holds the exit no longer than the linger (the default, 2 s).
            try await withStopping(fixture.startEdge("edge-r")) { edge in
                #expect(await edge.waitFor(seq: created.seq, creatives: 1))
                await edge.client.close()
                let peer = try await Self.unreadCalls(400, of: creative, to: edge, context: fixture.context)
                let started = ContinuousClock.now
                edge.process.signal(SIGTERM)
                #expect(await edge.process.exitStatus() == 0, "\(edge.process.log)")
                let took = ContinuousClock.now - started
                #expect(took < .seconds(10), "exit took \(took)")
                peer.socket.close()
            }
        }
    }

    /// A client that reads slowly (a receive queue of one message, a 64 KiB kernel buffer) having sent `count` calls of
    /// `creative.get` for `creative`, each answered by the edge once this returns.
    static func unreadCalls(_ count: Int, of creative: String, to edge: EdgeProcess, context: ZMQContext) async throws -> TestPeer {
        let peer = try TestPeer(context, type: .dealer, endpoint: edge.endpoints["client"]!) { socket in
            try socket.setReceiveHighWaterMark(1)
            try socket.setReceiveBufferSize(64 * 1024)
            try socket.setReceiveTimeout(milliseconds: 5000)
        }
        for id in 1...count {
            try peer.send([[], Array(#"{"jsonrpc":"2.0","id":\#(id),"method":"creative.get","params":{"sha256":"\#(creative)"}}"#.utf8)])
        }
        // Counted once its reply is written.
        #expect(try await eventually {
            try await edge.metrics().value(#"launchad_deliveryd_requests_total{method="creative.get",code="0"}"#) == Double(count)
        })
        return peer
    }

    @Test("converges after a late start, after updates lost to a tiny receive HWM, and after campaignd restarts")
    func convergence() async throws {
        try await DeliveryServiceTests.withCampaignFixture { fixture, admin, creative in
            for index in 0..<5 { _ = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "early\(index)", creative: creative)) }
            // Late start: the edge joins after changes were made.
            try await withStopping(fixture.startEdge("edge-late")) { late in
                try await withStopping(fixture.startEdge("edge-lossy", arguments: ["--updates-hwm", "1"])) { lossy in
                    var last = try await admin.call(AdminAPI.campaignPause, CampaignID(id: 1)).seq
                    #expect(await late.waitFor(seq: last))
                    // A burst the lossy edge cannot keep up with: it must notice the gaps and catch up. The edge applies a
                    // change faster than campaignd commits the next, so it is stopped through the burst: the backlog then
                    // arrives at once, faster than it applies.
                    lossy.process.signal(SIGSTOP)
                    for index in 0..<200 {
                        last = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "burst\(index)", creative: creative)).seq
                    }
                    lossy.process.signal(SIGCONT)
                    #expect(await lossy.waitFor(seq: last))
                    #expect(await late.waitFor(seq: last))
                    let lossyStatus = try await lossy.status()
                    // Under ThreadSanitizer's timing the burst has been seen to reach the stopped edge without a loss: under a
                    // sanitizer the test checks the convergence only; a plain run must lose updates.
                    #expect(lossyStatus.gaps > 0 || Sanitizer.current != nil, "the lossy edge never lost an update: the test proves nothing")
                    // campaignd killed and restarted on the same endpoints: the edges find it again and keep up.
                    try await fixture.restart(signal: SIGKILL, sameEndpoints: true)
                    let admin2 = try fixture.admin()
                    last = try await admin2.call(AdminAPI.campaignExpire, CampaignID(id: 2)).seq
                    #expect(await late.waitFor(seq: last))
                    #expect(await lossy.waitFor(seq: last))
                    let snapshot = try await fixture.sync().call(SyncAPI.snapshot, SnapshotParams())
                    for edge in [late, lossy] {
                        let status = try await edge.status()
                        #expect(status.epoch == snapshot.epoch && status.seq == snapshot.seq && status.campaigns == snapshot.campaigns.count)
                    }
                    await admin.close()
                    await admin2.close()
                }
            }
        }
    }

    @Test("campaignd replaced by a new database: the edge notices the new epoch and takes a fresh snapshot")
    func newEpoch() async throws {
        try await DeliveryServiceTests.withCampaignFixture { fixture, admin, creative in
            let first = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(creative: creative))
            try await withStopping(fixture.startEdge("edge-e")) { edge in
                #expect(await edge.waitFor(seq: first.seq, creatives: 1))
                let oldEpoch = try await edge.status().epoch
                try await fixture.restart(signal: SIGKILL, sameEndpoints: true, freshData: true)
                let newAdmin = try fixture.admin()
                let newCreative = try await fixture.uploadPNG(newAdmin, width: 1080, height: 1920, seed: 9)
                let created = try await newAdmin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "new world", creative: newCreative))
                let epoch = try await fixture.sync().call(SyncAPI.snapshot, SnapshotParams()).epoch
                #expect(epoch != oldEpoch)
                #expect(await edge.waitFor(seq: created.seq, epoch: epoch))
                #expect(await eventually { (try? await edge.query().creative?.sha256) == newCreative })
                let status = try await edge.status()
                #expect(status.campaigns == 1 && status.resyncs >= 2)
                await admin.close()
                await newAdmin.close()
            }
        }
    }

    @Test("restarted with campaignd down, an edge answers from disk within a second of starting")
    func answersFromDisk() async throws {
        try await DeliveryServiceTests.withCampaignFixture { fixture, admin, creative in
            let before = Timestamp.now()
            let created = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(creative: creative))
            try await withStopping(fixture.startEdge("edge-d")) { edge in
                #expect(await edge.waitFor(seq: created.seq, creatives: 1))
                // The edge says when it reached its seq, by its clock: after the create was sent, and not in the future.
                let reached = try await edge.status()
                let appliedAt = try #require(reached.appliedAt, "no appliedAt at seq \(reached.seq)")
                #expect(before <= appliedAt && appliedAt <= Timestamp.now(), "applied at \(appliedAt), the create was sent at \(before)")
                await edge.stop()
                await fixture.kill()
                let started = ContinuousClock.now
                try await withStopping(fixture.startEdge("edge-d")) { again in
                    let answer = try await again.query()
                    // Under ThreadSanitizer (deploy/local/sanitize.sh thread) everything runs several times slower: 2.3 s measured.
                    let bound = Sanitizer.current == .thread ? Duration.seconds(4) : .seconds(1)
                    #expect(ContinuousClock.now - started < bound, "took \(ContinuousClock.now - started)")
                    #expect(answer.hasAd && answer.id == created.campaign.id)
                    let status = try await again.status()
                    #expect(status.stale || status.seq == created.seq)
                    // Loaded from disk, with nothing applied since it started: it does not know when that state was reached.
                    #expect(status.appliedAt == nil)
                    await admin.close()
                }
            }
        }
    }
}
