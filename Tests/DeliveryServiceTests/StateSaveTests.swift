import DeliveryService
import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdTesting
import Testing
import ZMQRPC
import ZeroMQ

/// The edge's state saves are group commits: a burst of changes is a few writes of the state file, however many
/// changes it holds, and the last write is acknowledged.
@Suite("the edge's state saves", .timeLimit(.minutes(2)))
struct StateSaveTests {
    /// The edge's `launchad_deliveryd_state_writes_total`.
    static func stateWrites(_ edge: EdgeClient) async throws -> Double {
        try #require(try await edge.metrics().value("launchad_deliveryd_state_writes_total"), "no state_writes_total in /metrics")
    }

    @Test("300 changes in a burst are written in a few saves spaced by the token bucket; campaignd hears the last seq once it is saved")
    func burstIsGroupCommitted() async throws {
        try await DeliveryServiceTests.withCampaignd { fixture, admin, creative in
            try await withEdge("edge-saves", connectedTo: fixture) { edge in
                let created = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(creative: creative))
                #expect(await edge.waitFor(seq: created.seq, creatives: 1))
                func acknowledged() async -> Int64? { await Self.acknowledged(by: "edge-saves", admin) }
                // Acknowledged: the save that holds it is done, and no other is due.
                #expect(await eventually { await acknowledged() == created.seq })
                let before = try await Self.stateWrites(edge)
                #expect(before >= 1)

                let started = ContinuousClock.now
                var last = created.seq
                for index in 0..<300 {
                    let operation = index.isMultiple(of: 2) ? AdminAPI.campaignPause : AdminAPI.campaignResume
                    last = try await admin.call(operation, CampaignID(id: created.campaign.id)).seq
                }
                #expect(await edge.waitFor(seq: last))
                #expect(await eventually { await acknowledged() == last })
                let spanned = ContinuousClock.now - started
                let writes = try await Self.stateWrites(edge) - before

                // The token bucket allows `stateSaveBurst` writes at once, then one every `stateSaveInterval`; a save
                // a change would be about 300 writes.
                let configuration = DeliveryServiceConfiguration().following
                let bound = Double(configuration.stateSaveBurst) + spanned / configuration.stateSaveInterval + 1
                #expect(writes >= 1 && writes <= bound, "\(writes) writes for 300 changes over \(spanned); at most \(bound) allowed")
            }
        }
    }

    /// The seq campaignd counts as acknowledged by `edgeId` (`nil` before it knows the edge).
    static func acknowledged(by edgeId: String, _ admin: RPCClient) async -> Int64? {
        let edges = try? await admin.call(AdminAPI.edgeList, NoParams()).edges
        return edges?.first { $0.edgeId == edgeId }?.appliedSeq
    }

    @Test("saves run on a thread of their own at nice 19; the thread that applies changes runs 5 below the process's where it may")
    func savesRunAtLowestPriority() async throws {
        let ahead = max(-20, Int(ProcessNice.value) - 5)
        let mayLower = await ProcessThread.mayLowerNice(to: ahead)
        let applyingNice = mayLower ? ahead : Int(ProcessNice.value)
        if !mayLower {
            ProcessThread.noteFallbackOnly("the thread that applies changes was checked to run at the process's nice \(applyingNice), not 5 below it")
        }
        try await DeliveryServiceTests.withCampaignd { fixture, admin, creative in
            try await withEdge("edge-nice", connectedTo: fixture) { edge in
                let created = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(creative: creative))
                #expect(await edge.waitFor(seq: created.seq, creatives: 1))
                // A change applied on arrival, then saved and acknowledged (the save thread stays a while after).
                let paused = try await admin.call(AdminAPI.campaignPause, CampaignID(id: created.campaign.id))
                #expect(await edge.waitFor(seq: paused.seq))
                #expect(await eventually { await Self.acknowledged(by: "edge-nice", admin) == paused.seq })
                let threads = ProcessThread.list()
                let savers = threads.filter { $0.name == "state-save" }
                #expect(!savers.isEmpty, "no state-save thread among \(threads.map(\.name))")
                #expect(savers.allSatisfy { $0.nice == 19 }, "\(savers)")
                let subscribers = threads.filter { $0.name.hasPrefix("sub-") }
                #expect(!subscribers.isEmpty && subscribers.allSatisfy { $0.nice == applyingNice }, "\(subscribers)")
            }
        }
    }
}
