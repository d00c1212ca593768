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
    /// Links cut behind proxies, and edges whose clocks are off: never an expired ad, and convergence after healing.
    @Suite("partitions and clock skew", .serialized, .timeLimit(.minutes(10)))
    struct PartitionTests {
        @Test("an edge cut off behind a proxy, its clock 1.5 s (and another's 3 s) behind: never an expired ad, and it converges after healing")
        func partitionAndClockSkew() async throws {
            try await withStopping(CampaignFixture()) { fixture in
                let admin = try fixture.admin()
                let creative = try await fixture.uploadPNG(admin)
                try await withStopping(TCPProxy(upstream: fixture.endpoints["sync"]!)) { syncLink in
                    try await withStopping(TCPProxy(upstream: fixture.endpoints["updates"]!)) { updatesLink in
                        // Behind is the dangerous direction: by its own clock, a campaign has not ended yet when it has. The edges
                        // run in process, each with its clock off the system's; campaignd is a process behind the proxies.
                        try await withEdge("edge-skew-1.5", connectedTo: fixture, sync: syncLink.endpoint, updates: updatesLink.endpoint,
                                           clock: { Timestamp.now(offset: -1.5) }) { near in
                            try await withEdge("edge-skew-3", connectedTo: fixture, sync: syncLink.endpoint, updates: updatesLink.endpoint,
                                               clock: { Timestamp.now(offset: -3) }) { far in
                                try await queryAcrossThePartition(fixture, admin, creative, syncLink, updatesLink, near: near, far: far)
                            }
                        }
                        // Stopped gracefully, each edge saved exactly campaignd's snapshot.
                        let final = try await fixture.snapshot()
                        for name in ["edge-skew-1.5", "edge-skew-3"] { expectSavedState(ofEdge: name, in: fixture, equals: final) }
                        await admin.close()
                    }
                }
            }
        }

        /// The partition itself, with the edges running: what they answer across the end of a campaign and the heal.
        func queryAcrossThePartition(_ fixture: CampaignFixture, _ admin: RPCClient, _ creative: String, _ syncLink: TCPProxy,
                                     _ updatesLink: TCPProxy, near: InProcessEdge, far: InProcessEdge) async throws {
            let edges = [near, far]
            var longFields = CampaignFixture.fields(name: "long", creative: creative)
            longFields.priority = 50
            let long = try await admin.call(AdminAPI.campaignCreate, longFields)
            var endingFields = CampaignFixture.fields(name: "ending", creative: creative, startIn: -5, duration: 12)
            endingFields.priority = 90
            let ending = try await admin.call(AdminAPI.campaignCreate, endingFields)
            let endsAt = ending.campaign.endsAt
            for edge in edges {
                #expect(await edge.waitFor(seq: ending.seq, creatives: 1))
                // The edge has measured campaignd's clock from its heartbeats.
                #expect(await eventually(timeout: .seconds(5)) { ((try? await edge.status().skewSeconds) ?? 0) > 1.3 })
            }
            #expect(try await near.health()["clockSkewed"] == false)
            #expect(try await far.health()["clockSkewed"] == true)

            // Query every edge continuously: never "ending" at or after its end (by campaignd's clock, the test's),
            // never "long" from a state that holds its expiry.
            let tally = Tally()
            let longId = long.campaign.id, endingId = ending.campaign.id
            let querying = edges.map { edge in
                Task { [tally] in
                    var expiredSeq = Int64.max
                    while !Task.isCancelled {
                        let sent = Timestamp(seconds: Date().timeIntervalSince1970)
                        guard let answer = try? await edge.query() else { continue }
                        tally.answers.add(1, ordering: .relaxed)
                        if answer.hasAd && answer.id == endingId && sent >= endsAt {
                            tally.violation("\(edge.name) served 'ending' \(sent.milliseconds - endsAt.milliseconds) ms after its end")
                        }
                        if answer.revoked.contains(longId) { expiredSeq = min(expiredSeq, answer.seq) }
                        if answer.hasAd && answer.id == longId && answer.seq >= expiredSeq {
                            tally.violation("\(edge.name) served 'long' at seq \(answer.seq) after its expiry")
                        }
                        // Pacing of the queries, which run across the end (a matter of time passing), not a wait.
                        try? await Task.sleep(for: .milliseconds(5))
                    }
                }
            }

            // Cut both links: the edges notice, and say so.
            syncLink.cut()
            updatesLink.cut()
            for edge in edges {
                #expect(await eventually(timeout: .seconds(8)) { (try? await edge.health()["stale"]) == true }, "\(edge.name) never said stale")
            }
            // Meanwhile the operator takes "long" down and forces a new one; "ending" reaches its end.
            let expired = try await admin.call(AdminAPI.campaignExpire, CampaignID(id: long.campaign.id))
            var urgentFields = CampaignFixture.fields(name: "urgent", creative: creative)
            urgentFields.priority = 10
            let urgent = try await admin.call(AdminAPI.campaignCreate, urgentFields)
            let forced = try await admin.call(AdminAPI.campaignForce, CampaignID(id: urgent.campaign.id))
            // The end must pass (by campaignd's clock) while the edges are cut off: time itself is what is tested.
            try await sleepUntil(endsAt.adding(seconds: 1.5))
            #expect(try await near.status().seq < expired.seq, "the partition let the change through: the test proves nothing")
            let refused = syncLink.counts.refused + updatesLink.counts.refused

            syncLink.heal()
            updatesLink.heal()
            for edge in edges {
                #expect(await edge.waitFor(seq: forced.seq, timeout: .seconds(20)), "\(edge.name) did not converge after healing")
                #expect(try await edge.query().id == urgent.campaign.id)
                #expect(await eventually(timeout: .seconds(5)) { (try? await edge.health()["stale"]) == false })
            }
            // Answers after the heal are checked too: a good number more of them before the queries stop.
            let healed = tally.answers.load(ordering: .relaxed)
            #expect(await eventually { tally.answers.load(ordering: .relaxed) >= healed + 50 })
            for task in querying { task.cancel() }
            for task in querying { await task.value }
            #expect(tally.violations.isEmpty, "\(tally.violations)")
            figure("partition: \(tally.answers.load(ordering: .relaxed)) answers checked across the end and the heal; \(refused) reconnections refused while cut")
        }

        /// While the sync socket is unreachable, an acknowledgement waits out its timeout and its retries (three tries of
        /// 2 s) for an answer. The update stream still brings each change, and the edge must apply it at once rather than
        /// after such waits.
        @Test("the sync socket cut while the update stream flows: changes apply at once, the edge hears campaignd, and acknowledges after healing")
        func syncCutUpdatesFlow() async throws {
            try await withStopping(CampaignFixture()) { fixture in
                let admin = try fixture.admin()
                let creative = try await fixture.uploadPNG(admin)
                try await withStopping(TCPProxy(upstream: fixture.endpoints["sync"]!)) { syncLink in
                    try await withStopping(fixture.startEdge("edge-sync-cut", sync: syncLink.endpoint)) { edge in
                        let first = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "first", creative: creative))
                        #expect(await edge.waitFor(seq: first.seq, creatives: 1))

                        syncLink.cut()
                        // Long enough for heartbeats to arrive and their acknowledgements to hang: time is what the test needs here
                        // (an acknowledgement waiting unanswered shows nowhere outside the edge).
                        try await Task.sleep(for: .milliseconds(2_500))
                        var last = first.seq
                        var delays: [Duration] = []
                        for round in 0..<4 {
                            let change = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "cut \(round)", creative: creative))
                            let sent = ContinuousClock.now
                            #expect(await edge.waitFor(seq: change.seq, timeout: .seconds(10)), "change \(change.seq) never applied")
                            delays.append(ContinuousClock.now - sent)
                            last = change.seq
                            // Spread over several heartbeats' hanging acknowledgements: time is what is tested.
                            try await Task.sleep(for: .milliseconds(700))
                        }
                        // Queued behind acknowledgements that hang (one per heartbeat, each up to 6 s), a change would wait for seconds
                        // or, as heartbeats keep coming, never be reached.
                        #expect(delays.allSatisfy { $0 < .milliseconds(600) }, "changes applied after \(delays)")
                        #expect(try await edge.health()["stale"] == false, "the edge hears campaignd's heartbeats")
                        #expect(try await edge.query().seq == last)
                        #expect(syncLink.counts.refused > 0, "the edge never tried the cut sync socket again: the test proves nothing")

                        syncLink.heal()
                        #expect(await eventually(timeout: .seconds(10)) {
                            (try? await CampaignFixture.acknowledgedSeq(admin, edge: "edge-sync-cut")) == last
                        }, "campaignd never heard what the edge applied")
                        let milliseconds = delays.map { $0.components.seconds * 1000 + $0.components.attoseconds / 1_000_000_000_000_000 }
                        figure("sync socket cut: changes applied \(milliseconds.map(String.init).joined(separator: ", ")) ms after their commit")
                        await admin.close()
                    }
                }
            }
        }
    }
}
