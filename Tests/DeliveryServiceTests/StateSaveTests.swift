import DeliveryService
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import JSONRPC
import LaunchAdAPI
import LaunchAdTesting
import Testing

/// The edge's state saves are group commits: a burst of changes is a few writes of the state file, however many
/// changes it holds, and the last write is acknowledged.
@Suite("the edge's state saves", .timeLimit(.minutes(2)))
struct StateSaveTests {
    /// The edge's `launchad_deliveryd_state_writes_total`.
    static func stateWrites(_ edge: EdgeClient) async throws -> Double {
        let http = try #require(edge.endpoints["http"])
        let (body, _) = try await URLSession.shared.data(from: URL(string: "http://\(http)/metrics")!)
        let name = "launchad_deliveryd_state_writes_total "
        let line = String(decoding: body, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix(name) }
        return try #require(line.flatMap { Double($0.dropFirst(name.count)) }, "no state_writes_total in /metrics")
    }

    @Test("300 changes in a burst are written in a few saves spaced by the token bucket; campaignd hears the last seq once it is saved")
    func burstIsGroupCommitted() async throws {
        try await DeliveryServiceTests.withCampaignd { fixture, admin, creative in
            try await withEdge("edge-saves", connectedTo: fixture) { edge in
                let created = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(creative: creative))
                #expect(await edge.waitFor(seq: created.seq, creatives: 1))
                func acknowledged() async -> Int64? {
                    try? await admin.call(AdminAPI.edgeList, NoParams()).edges.first?.appliedSeq
                }
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
                let configuration = DeliveryServiceConfiguration()
                let bound = Double(configuration.stateSaveBurst) + spanned / configuration.stateSaveInterval + 1
                #expect(writes >= 1 && writes <= bound, "\(writes) writes for 300 changes over \(spanned); at most \(bound) allowed")
            }
        }
    }
}
