import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdTesting
import Testing
import ZMQRPC

/// campaignd, relayd and deliveryd as real processes: the edge-side guarantees hold through two levels of relays.
@Suite("relays, end to end", .serialized, .timeLimit(.minutes(6)))
struct RelayProcessTests {
    @Test("through two levels of relays an edge loses updates and converges exactly, follows a new epoch, and keeps serving with expiry by the clock when campaignd is killed")
    func twoLevels() async throws {
        try await withStopping(CampaignFixture()) { fixture in
            let admin = try fixture.admin()
            let creative = try await fixture.uploadPNG(admin)
            try await withStopping(fixture.startRelay("relay-upper")) { upper in
                try await withStopping(upper.startRelay("relay-lower")) { lower in
                    try await withStopping(fixture.startEdge("edge-lossy", arguments: ["--updates-hwm", "1"],
                                                             sync: lower.endpoints["sync"], updates: lower.endpoints["updates"])) { lossy in
                        let first = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "first", creative: creative))
                        #expect(await lossy.waitFor(seq: first.seq, creatives: 1), "\(lossy.log.suffix(2000))")

                        // A burst the edge's receive HWM of 1 cannot hold (8 writers at once): it notices the gaps and fills them from
                        // relay-lower's window.
                        try await withThrowingTaskGroup(of: Void.self) { group in
                            for writer in 0..<8 {
                                group.addTask {
                                    let client = try fixture.admin()
                                    for index in 0..<40 {
                                        _ = try await client.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "w\(writer)-\(index)", creative: creative))
                                    }
                                    await client.close()
                                }
                            }
                            try await group.waitForAll()
                        }
                        let final = try await fixture.snapshot()
                        #expect(await lossy.waitFor(seq: final.seq, epoch: final.epoch, timeout: .seconds(30)), "\(lossy.log.suffix(2000))")
                        let status = try await lossy.status()
                        #expect(status.gaps > 0, "the edge never lost an update: the test proves nothing")
                        #expect(status.resyncs == 1, "\(status.resyncs) snapshots: gaps must be filled from the relay's change log")
                        #expect(try await lower.snapshot().campaigns == final.campaigns)
                        #expect(await edgeSaves(final, edge: "edge-lossy", in: fixture),
                                "the edge's saved state is not campaignd's snapshot: \(savedDifference(final, edge: "edge-lossy", in: fixture) ?? "")")

                        // A new database: a new epoch reaches the edge through both relays.
                        await admin.close()
                        try await fixture.restart(signal: SIGTERM, sameEndpoints: true, freshData: true)
                        let freshAdmin = try fixture.admin()
                        let freshCreative = try await fixture.uploadPNG(freshAdmin, seed: 7)
                        let ending = try await freshAdmin.call(AdminAPI.campaignCreate,
                                                               CampaignFixture.fields(name: "ending", creative: freshCreative, duration: 12))
                        let epoch = try await fixture.snapshot().epoch
                        #expect(await lossy.waitFor(seq: ending.seq, epoch: epoch, creatives: 2, timeout: .seconds(30)), "\(lossy.log.suffix(2000))")
                        #expect(try await lossy.query().id == ending.campaign.id)

                        // campaignd killed: the edge keeps answering from its state, and stops at the campaign's end by its own clock.
                        await freshAdmin.close()
                        await fixture.kill()
                        #expect(try await lossy.query().id == ending.campaign.id)
                        let end = ending.campaign.endsAt
                        while Timestamp(seconds: Date().timeIntervalSince1970) < end.adding(seconds: 0.2) { try await Task.sleep(for: .milliseconds(100)) }
                        let after = try await lossy.query()
                        #expect(!after.hasAd, "an expired ad was served after campaignd was killed")
                        #expect(await eventually(timeout: .seconds(8)) { (try? await lossy.status().stale) == true })
                    }
                }
            }
        }
    }

    /// campaignd's database restored from a copy taken earlier: the same epoch, behind what both relays and the edge
    /// applied. Each tier hears heartbeats behind it, its upstream refuses `sync.changes` from its seq, and it takes a
    /// snapshot; the changes only the newer database had are gone everywhere.
    @Test("through two levels of relays, campaignd's database restored from an earlier copy: the relays and the edge take snapshots and end with campaignd's state, and a campaign only the newer database had is no longer served")
    func restoredOlderDatabase() async throws {
        try await withStopping(CampaignFixture()) { fixture in
            var admin = try fixture.admin()
            let creative = try await fixture.uploadPNG(admin)
            try await withStopping(fixture.startRelay("relay-upper")) { upper in
                try await withStopping(upper.startRelay("relay-lower")) { lower in
                    try await withStopping(fixture.startEdge("edge-rollback", sync: lower.endpoints["sync"], updates: lower.endpoints["updates"])) { edge in
                        let kept = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "kept", creative: creative))
                        #expect(await edge.waitFor(seq: kept.seq, creatives: 1), "\(edge.log.suffix(2000))")
                        let backup = fixture.directory.appendingPathComponent("data-backup")
                        await admin.close()
                        try await fixture.restart(signal: SIGTERM, sameEndpoints: true) { data in
                            try FileManager.default.copyItem(at: data, to: backup)
                        }
                        admin = try fixture.admin()
                        let epoch = try await edge.status().epoch
                        var lost: [Int64] = []
                        var lostSeq = kept.seq
                        for name in ["lost 1", "lost 2", "lost 3"] {
                            var fields = CampaignFixture.fields(name: name, creative: creative)
                            fields.priority = 90
                            let created = try await admin.call(AdminAPI.campaignCreate, fields)
                            lost.append(created.campaign.id)
                            lostSeq = created.seq
                        }
                        #expect(await edge.waitFor(seq: lostSeq, epoch: epoch), "\(edge.log.suffix(2000))")
                        #expect(try await lost.contains(edge.query().id ?? 0), "the edge does not serve the newer database's campaigns: the test proves nothing")
                        let resyncs = try await edge.status().resyncs

                        // The older copy back in place; in it, kept expired and another campaign created: campaignd's seq is still
                        // behind the lost changes the relays and the edge hold, in the same epoch.
                        await admin.close()
                        try await fixture.restart(signal: SIGTERM, sameEndpoints: true) { data in
                            try FileManager.default.removeItem(at: data)
                            try FileManager.default.copyItem(at: backup, to: data)
                        }
                        admin = try fixture.admin()
                        let expired = try await admin.call(AdminAPI.campaignExpire, CampaignID(id: kept.campaign.id))
                        let after = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "after restore", creative: creative))
                        #expect(expired.seq == kept.seq + 1 && after.seq == kept.seq + 2 && after.seq < lostSeq)
                        let final = try await fixture.snapshot()
                        #expect(final.epoch == epoch && final.seq == after.seq)
                        #expect(await eventually(timeout: .seconds(20)) {
                            guard let status = try? await edge.status() else { return false }
                            return status.epoch == epoch && status.seq == final.seq
                        }, "\(edge.log.suffix(2000))")
                        #expect(try await edge.status().resyncs > resyncs, "the edge did not take a snapshot of the restored database")
                        for relay in [upper, lower] {
                            #expect(try await relay.snapshot() == final, "\(relay.name) does not hold campaignd's state")
                            // Asked for changes after the lost seq, the relay refuses: an edge there takes a snapshot.
                            let sync = try relay.sync()
                            do {
                                _ = try await sync.call(SyncAPI.changes, ChangesParams(epoch: epoch, since: lostSeq))
                                Issue.record("\(relay.name) answered changes after a seq the restored database never reached")
                            } catch let error as JSONRPCError {
                                #expect(error.code == APIError.changesUnavailable.code, "\(error)")
                            }
                            await sync.close()
                        }
                        #expect(await edgeSaves(final, edge: "edge-rollback", in: fixture),
                                "the edge's saved state is not campaignd's snapshot: \(savedDifference(final, edge: "edge-rollback", in: fixture) ?? "")")
                        // Only the campaign created after the restore is live: not kept (expired), not a lost one.
                        let answer = try await edge.query()
                        #expect(answer.id == after.campaign.id, "the edge served \(String(describing: answer.id))")

                        await admin.close()
                    }
                }
            }
        }
    }

    @Test("an edge acknowledges every heartbeat while nothing changes; while changes come every 100 ms, only the saves that hold them: the heartbeat adds no acknowledgement to a busy second")
    func heartbeatAcknowledgements() async throws {
        try await withStopping(CampaignFixture()) { fixture in
            let admin = try fixture.admin()
            let creative = try await fixture.uploadPNG(admin)
            let created = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "a", creative: creative))
            try await withStopping(fixture.startRelay("relay")) { relay in
                try await withStopping(fixture.startEdge("edge", sync: relay.endpoints["sync"], updates: relay.endpoints["updates"])) { edge in
                    #expect(await edge.waitFor(seq: created.seq, creatives: 1))
                    // The relay counts the acknowledgements it passed upstream for the edge (its own go on their own).
                    @Sendable func passed() async throws -> Double { try await relay.metric("launchad_relayd_acks_passed_total") }

                    let idleStart = try await passed()
                    try await Task.sleep(for: .seconds(3))
                    let idle = try await passed() - idleStart
                    #expect(idle >= 2, "\(idle) acknowledgements in 3 s with nothing changing")

                    // Forced and unforced in turn for 5 s: each save of the edge's state acknowledges the changes it holds (saves
                    // are group commits, a few a second), and the five heartbeats, each within a few hundred ms of a save's
                    // acknowledgement, add none (with them it would be about five more). One in ten seconds goes as a call
                    // whatever came before, and a stall of the machine can leave one heartbeat more than half a second after a
                    // save: two more at most.
                    @Sendable func writes() async throws -> Double { try await edge.metric("launchad_deliveryd_state_writes_total") }
                    let busyStart = try await passed()
                    let writesStart = try await writes()
                    let clock = ContinuousClock()
                    let start = clock.now
                    var last = created.seq
                    var changes = 0
                    while clock.now - start < .seconds(5) {
                        let operation = changes % 2 == 0 ? AdminAPI.campaignForce : AdminAPI.campaignUnforce
                        last = try await admin.call(operation, CampaignID(id: created.campaign.id)).seq
                        changes += 1
                        try await Task.sleep(for: .milliseconds(100))
                    }
                    // Until campaignd holds the last save's acknowledgement (through the relay's batch).
                    #expect(await eventually(timeout: .seconds(10)) {
                        let listed = (try? await admin.call(AdminAPI.edgeList, NoParams()).edges) ?? []
                        return listed.contains { $0.edgeId == edge.name && $0.appliedSeq == last }
                    })
                    let (busy, saves) = (try await passed() - busyStart, try await writes() - writesStart)
                    #expect(saves >= 5 && busy >= saves - 1 && busy <= saves + 2,
                            "\(busy) acknowledgements passed for \(saves) saves of \(changes) changes over 5 s")
                    await admin.close()
                }
            }
        }
    }

    @Test("campaignd with two relays and six edges serves the relays alone: a new epoch costs it one snapshot per relay")
    func snapshotsPerRelay() async throws {
        try await withStopping(CampaignFixture()) { fixture in
            let admin = try fixture.admin()
            let creative = try await fixture.uploadPNG(admin)
            _ = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "a", creative: creative))
            await admin.close()
            try await withStopping([fixture.startRelay("relay-a"), fixture.startRelay("relay-b")]) { relays in
                var edges: [EdgeProcess] = []
                for index in 0..<6 {
                    let relay = relays[index % 2]
                    edges.append(try await fixture.startEdge("edge-\(index)", sync: relay.endpoints["sync"], updates: relay.endpoints["updates"]))
                }
                try await withStopping(edges) { edges in
                    for edge in edges { #expect(await edge.waitFor(seq: 1, creatives: 1)) }

                    try await fixture.restart(signal: SIGTERM, sameEndpoints: true, freshData: true)
                    let freshAdmin = try fixture.admin()
                    let freshCreative = try await fixture.uploadPNG(freshAdmin, seed: 3)
                    let created = try await freshAdmin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "b", creative: freshCreative))
                    let epoch = try await fixture.snapshot().epoch
                    for edge in edges { #expect(await edge.waitFor(seq: created.seq, epoch: epoch, creatives: 1, timeout: .seconds(30)), "\(edge.name)") }
                    // The one snapshot above is the test's own.
                    let snapshots = try await fixture.metric(#"launchad_campaignd_requests_total{socket="sync",method="sync.snapshot",code="0"}"#)
                    #expect(snapshots == Double(relays.count) + 1, "campaignd served \(snapshots) snapshots")
                    // Every edge's acknowledgement came through its relay.
                    let listed = try await freshAdmin.call(AdminAPI.edgeList, NoParams()).edges
                    #expect(await eventually(timeout: .seconds(5)) {
                        let listed = (try? await freshAdmin.call(AdminAPI.edgeList, NoParams()).edges) ?? []
                        return edges.allSatisfy { edge in listed.contains { $0.edgeId == edge.name && $0.via?.count == 1 } }
                    }, "\(listed)")
                    await freshAdmin.close()
                }
            }
        }
    }

    @Test("a relay killed: its edge moves to the other relay in its list and applies the changes made meanwhile; a relay restarted on its state costs no snapshot")
    func failover() async throws {
        try await withStopping(CampaignFixture()) { fixture in
            let admin = try fixture.admin()
            let creative = try await fixture.uploadPNG(admin)
            let created = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "a", creative: creative))
            try await withStopping(fixture.startRelay("relay-primary")) { primary in
                try await withStopping(fixture.startRelay("relay-spare")) { spare in
                    try await withStopping(fixture.startEdge("edge", sync: primary.endpoints["sync"]! + "," + spare.endpoints["sync"]!,
                                                             updates: primary.endpoints["updates"]! + "," + spare.endpoints["updates"]!)) { edge in
                        try await withStopping(fixture.startEdge("edge-loyal", sync: spare.endpoints["sync"], updates: spare.endpoints["updates"])) { loyal in
                            #expect(await edge.waitFor(seq: created.seq, creatives: 1))
                            #expect(await loyal.waitFor(seq: created.seq, creatives: 1))
                            // The spare's state on disk holds that seq (its acknowledgement never runs ahead of its save): killed before
                            // the save, it would come back with no state, take a snapshot past the edge's seq and rightly refuse the
                            // edge's changes from before it.
                            #expect(await eventually(timeout: .seconds(10)) {
                                (try? await CampaignFixture.acknowledgedSeq(admin, edge: "relay-spare")) == created.seq
                            }, "the spare relay never acknowledged seq \(created.seq)")

                            // The spare away for longer than three heartbeats, a change made meanwhile, then the spare back on its cache
                            // folder: its edge catches up from the spare's change log, with no snapshot.
                            var forced: Int64 = 0
                            try await spare.restart(signal: SIGKILL) {
                                forced = try await admin.call(AdminAPI.campaignForce, CampaignID(id: created.campaign.id)).seq
                                #expect(await eventually(timeout: .seconds(8)) { (try? await loyal.status().stale) == true })
                            }
                            #expect(await loyal.waitFor(seq: forced, timeout: .seconds(15)), "\(loyal.log.suffix(2000))")
                            #expect(try await loyal.status().resyncs == 1, "the relay's restart made its edge take a snapshot")

                            await primary.stop(signal: SIGKILL)
                            let expired = try await admin.call(AdminAPI.campaignExpire, CampaignID(id: created.campaign.id))
                            #expect(await edge.waitFor(seq: expired.seq, timeout: .seconds(20)), "\(edge.log.suffix(2000))")
                            #expect(try await !edge.query().hasAd)
                            await admin.close()
                        }
                    }
                }
            }
        }
    }
}
