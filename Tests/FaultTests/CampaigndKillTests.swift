import CampaignStore
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
    /// campaignd killed under writes, or its database changed under the edges: nothing answered is lost, and edges follow.
    @Suite("kill -9 of campaignd, and its database restored or replaced", .serialized, .timeLimit(.minutes(10)))
    struct CampaigndKillTests {
        @Test("kill -9 of campaignd under concurrent admin writes: every answered write is kept, seq has no gap or repeat, edges converge")
        func campaigndKilledUnderWrites() async throws {
            try await withStopping(CampaignFixture()) { fixture in
                let setup = try fixture.admin()
                let creative = try await fixture.uploadPNG(setup)
                try await withStopping(fixture.startEdge("edge-w")) { edge in
                    try await withStopping(fixture.startEdge("edge-w-lossy", arguments: ["--updates-hwm", "1"])) { lossy in

                        // Many calls in flight; kill -9 once enough were answered, while the writers keep going.
                        let log = WriteLog()
                        let writing = Task { try await writeConcurrently(fixture, creative: creative, each: 100_000, log: log) }
                        #expect(await eventually(timeout: .seconds(60)) { await log.answered.count >= FaultScale.writesBeforeKill })
                        fixture.process.signal(SIGKILL)
                        _ = await fixture.process.exitStatus()
                        try await writing.value
                        let answered = await log.answered
                        figure("campaignd killed after \(answered.count) answered writes; \(await log.failures) calls in flight failed")
                        #expect(await log.failures == FaultScale.writers, "every writer should have been cut off by the kill")

                        try await fixture.restart(signal: SIGKILL, sameEndpoints: true)
                        let (epoch, seq, changes) = try await fixture.changeLog()
                        // The log is seq 1, 2, 3, ... with nothing missing or repeated, and it ends at the service's seq.
                        #expect(changes.map(\.seq) == Array(1...Int64(changes.count)))
                        #expect(seq == Int64(changes.count))
                        // Every answered write is in it, as answered.
                        for write in answered {
                            let change = changes.indices.contains(Int(write.seq) - 1) ? changes[Int(write.seq) - 1] : nil
                            #expect(change?.id == write.id && change?.op == write.op && change?.campaign.version == write.version,
                                    "answered write seq \(write.seq) (\(write.op) of \(write.id) v\(write.version)) is not in the log")
                        }
                        #expect(Set(answered.map(\.seq)).count == answered.count, "two answers carried the same seq")
                        // The database's state is exactly the log replayed.
                        let snapshot = try await fixture.snapshot()
                        #expect(snapshot.epoch == epoch && snapshot.seq == seq && snapshot.campaigns == replay(changes))

                        // The next write takes the next seq.
                        let admin = try fixture.admin()
                        let next = try await admin.call(AdminAPI.campaignExpire, CampaignID(id: answered[0].id))
                        #expect(next.seq == seq + 1)
                        let final = try await fixture.snapshot()
                        for edge in [edge, lossy] {
                            #expect(await edge.waitFor(seq: final.seq, epoch: final.epoch, timeout: .seconds(30)), "\(edge.name) did not converge")
                            await expectSavedState(of: edge, in: fixture, equals: final)
                        }
                        await setup.close()
                        await admin.close()
                    }
                }
            }
        }

        /// campaignd's database restored from a copy taken earlier: the same epoch, behind what the edge applied. Its
        /// heartbeats are behind the edge, and the change log cannot answer from the edge's seq: the edge takes a snapshot
        /// and forgets the changes the restored database does not have.
        @Test("campaignd's database restored from an earlier copy, behind what an edge applied: the edge takes a snapshot and answers what it holds")
        func databaseRolledBack() async throws {
            try await withStopping(CampaignFixture()) { fixture in
                let admin = try fixture.admin()
                let creative = try await fixture.uploadPNG(admin)
                try await withStopping(fixture.startEdge("edge-rollback")) { edge in
                    let kept = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "kept", creative: creative))
                    #expect(await edge.waitFor(seq: kept.seq, creatives: 1))
                    let backup = fixture.directory.appendingPathComponent("data-backup")
                    try await fixture.restart(signal: SIGTERM, sameEndpoints: true) { data in
                        try FileManager.default.copyItem(at: data, to: backup)
                    }
                    let epoch = try await edge.status().epoch
                    var lost = kept.seq
                    for name in ["lost 1", "lost 2", "lost 3"] {
                        var fields = CampaignFixture.fields(name: name, creative: creative)
                        fields.priority = 90
                        lost = try await admin.call(AdminAPI.campaignCreate, fields).seq
                    }
                    #expect(await edge.waitFor(seq: lost, epoch: epoch))
                    #expect(try await edge.query().id != kept.campaign.id)
                    try await fixture.restart(signal: SIGTERM, sameEndpoints: true) { data in
                        try FileManager.default.removeItem(at: data)
                        try FileManager.default.copyItem(at: backup, to: data)
                    }
                    #expect(await eventually(timeout: .seconds(15)) {
                        guard let status = try? await edge.status() else { return false }
                        return status.epoch == epoch && status.seq == kept.seq && status.campaigns == 1
                    }, "\(edge.process.log.suffix(1500))")
                    #expect(try await edge.query().id == kept.campaign.id)
                    #expect(try await edge.status().resyncs == 2)
                    await admin.close()
                }
            }
        }

        /// The live case (campaignd replaced under a running edge) is `EdgeWithCampaigndDownTests.newEpoch`; here the edge is
        /// down while it happens and the new database has reached the same seq, so only the epoch tells them apart.
        @Test("campaignd's database replaced while an edge is down, at the same seq: the edge notices the epoch and takes a fresh snapshot")
        func newEpochAtSameSeq() async throws {
            try await withStopping(CampaignFixture()) { fixture in
                var admin = try fixture.admin()
                let creative = try await fixture.uploadPNG(admin)
                var old: [Int64] = []
                for index in 0..<3 {
                    old.append(try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "old\(index)", creative: creative)).campaign.id)
                }
                let oldEpoch = try await withStopping(fixture.startEdge("edge-epoch")) { edge in
                    #expect(await edge.waitFor(seq: 3, creatives: 1))
                    let oldEpoch = try await edge.status().epoch
                    await edge.stop(signal: SIGKILL)
                    return oldEpoch
                }

                try await fixture.restart(signal: SIGKILL, sameEndpoints: true, freshData: true)
                await admin.close()
                admin = try fixture.admin()
                let newCreative = try await fixture.uploadPNG(admin, width: 1080, height: 2340, seed: 5)
                var fields = CampaignFixture.fields(name: "new", creative: newCreative)
                fields.app = "news"
                _ = try await admin.call(AdminAPI.campaignCreate, fields)
                _ = try await admin.call(AdminAPI.campaignCreate, fields)
                _ = try await admin.call(AdminAPI.campaignPause, CampaignID(id: 1))
                let fresh = try await fixture.snapshot()
                #expect(fresh.seq == 3 && fresh.epoch != oldEpoch)

                try await withStopping(fixture.startEdge("edge-epoch")) { edge in
                    #expect(await edge.waitFor(seq: 3, epoch: fresh.epoch, creatives: 1, timeout: .seconds(15)))
                    let status = try await edge.status()
                    #expect(status.resyncs >= 1 && status.campaigns == 2)
                    // Nothing of the old database is answered any more.
                    #expect(try await edge.query().hasAd == false)
                    // The fresh snapshot lands before the new creative is fetched (the old one still counts as held until
                    // then), so the new campaign may take a moment to be answered.
                    let newsQuery = LaunchQueryParams(app: "news", platform: "ios", appVersion: "5.2.0", deviceId: "d-1")
                    var news = try await edge.query(newsQuery)
                    _ = try await eventually(timeout: .seconds(10)) {
                        news = try await edge.query(newsQuery)
                        return news.hasAd
                    }
                    #expect(news.hasAd && news.id == 2 && news.epoch == fresh.epoch && news.creative?.sha256 == newCreative)
                    await expectSavedState(of: edge, in: fixture, equals: fresh)
                    await admin.close()
                }
            }
        }
    }
}
