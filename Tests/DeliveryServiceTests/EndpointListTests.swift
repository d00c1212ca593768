import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdTesting
import Testing
import ZMQRPC

/// Comma-separated endpoint lists (several campaignd): an edge and an admin client given a list in which one
/// endpoint has nothing behind it still follow and reach the one that answers.
@Suite("endpoint lists", .timeLimit(.minutes(2)))
struct EndpointListTests {
    /// A loopback port nobody listens on (1 is privileged and unused here).
    static let nobody = "tcp://127.0.0.1:1"

    @Test("the list is split on commas, blanks and empty items dropped")
    func split() {
        #expect(EndpointList.split("tcp://a:1, tcp://b:2,,") == ["tcp://a:1", "tcp://b:2"])
        #expect(EndpointList.split("ipc:///tmp/x") == ["ipc:///tmp/x"])
    }

    @Test("an edge given a dead endpoint and a live one loads, follows changes, and an admin client's every call is answered")
    func deadAndLive() async throws {
        try await withCampaignService { fixture in
            var configuration = RPCClientConfiguration(endpoint: "\(Self.nobody),\(fixture.endpoints["admin"]!)")
            configuration.timeout = .seconds(5)
            let admin = try RPCClient(context: fixture.context, configuration: configuration)
            let creative = try await fixture.uploadPNG(admin)
            for _ in 0..<10 {
                _ = try await admin.call(AdminAPI.campaignList, CampaignListParams())
            }
            try await withEdge("edge-list", connectedTo: fixture, sync: "\(Self.nobody),\(fixture.endpoints["sync"]!)",
                               updates: "\(Self.nobody),\(fixture.endpoints["updates"]!)") { edge in
                let created = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(creative: creative))
                #expect(await edge.waitFor(seq: created.seq, creatives: 1), "the edge did not follow through the list")
                let forced = try await admin.call(AdminAPI.campaignForce, CampaignID(id: created.campaign.id))
                #expect(await edge.waitFor(seq: forced.seq), "the edge did not hear the change")
            }
            await admin.close()
        }
    }
}
