import JSONRPC
import LaunchAdAPI
import LaunchAdTesting
import Testing
import ZMQRPC

/// campaignd keeps the relay path of each edge's acknowledgement with it, so a restarted campaignd names it at once.
@Suite("relay paths across a campaignd restart", .timeLimit(.minutes(3)), .sharedPostgresCluster)
struct RelayPathRestartTests {
    @Test("edge.list names the relays an edge is behind straight after campaignd restarts, before any acknowledgement reaches the new process",
          arguments: StoreEngine.allCases)
    func viaAfterRestart(engine: StoreEngine) async throws {
        try await withCampaignStore(engine: engine) { store in
            let expected: [String: [String]?] = ["edge-behind": ["relay-a", "relay-b"], "edge-direct": nil, "relay-a": nil, "relay-b": ["relay-a"]]
            try await withCampaignService(configure: store) { campaign in
                let admin = try campaign.admin()
                let creative = try await campaign.uploadPNG(admin)
                let created = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "a", creative: creative))
                try await withRelay("relay-a", connectedTo: campaign) { upper in
                    try await withRelay("relay-b", connectedTo: upper) { lower in
                        let upstreams: [any CampaignServiceEndpoints] = [lower, campaign]
                        try await withEdges(["edge-behind", "edge-direct"], connectedTo: { upstreams[$0] }) { _ in
                            var listed: [EdgeInfo] = []
                            #expect(await eventually(timeout: .seconds(10)) {
                                listed = (try? await admin.call(AdminAPI.edgeList, NoParams()).edges) ?? []
                                return Self.matches(listed, expected, seq: created.seq)
                            }, "\(listed)")
                        }
                    }
                }
                await admin.close()
            }
            // The same store, a new process: nothing is connected to it, so what it lists comes from the store alone.
            try await withCampaignService(configure: store) { campaign in
                let admin = try campaign.admin()
                let listed = try await admin.call(AdminAPI.edgeList, NoParams()).edges
                #expect(Self.matches(listed, expected, seq: 1), "\(listed)")
                await admin.close()
            }
        }
    }

    /// Whether `listed` holds each expected edge with its relay path, at `seq`.
    static func matches(_ listed: [EdgeInfo], _ expected: [String: [String]?], seq: Int64) -> Bool {
        expected.allSatisfy { id, via in listed.contains { $0.edgeId == id && $0.via == via && $0.appliedSeq == seq } }
    }
}
