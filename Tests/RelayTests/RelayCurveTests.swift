import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdRuntime
import LaunchAdTesting
import Testing
import ZeroMQ
import ZMQRPC

/// CURVE through a relay: campaignd admits the relay's key (relays/) and lists the edge's (edges/, for its seal), the
/// relay admits its edge's (edges/), the edge trusts the relay's key as its campaignd.pub and seals for campaignd's
/// (origin.pub); keys speak for their own ids only.
@Suite("relays with CURVE", .timeLimit(.minutes(2)))
struct RelayCurveTests {
    @Test("an edge behind a relay, both with CURVE keys: the edge follows and campaignd lists it via the relay; an edge's key cannot pass itself off as a relay, nor a stranger connect")
    func curveThroughARelay() async throws {
        let directory = try makeTemporaryDirectory("relay-curve")
        defer { removeTemporaryDirectory(directory) }
        let keys = try CurveKeyTree(in: directory)
        let (server, operatorKeys, relay, edge) = (keys.server, keys.operatorKeys, keys.relay, keys.edge)
        let (campaigndKeys, relayKeys, edgeKeys) = (keys.campaigndKeys, keys.relayKeys, keys.edgeKeys)

        try await withCampaignService(configure: { $0.keysDirectory = campaigndKeys.path }) { campaign in
            var adminConfiguration = RPCClientConfiguration(endpoint: campaign.endpoints["admin"]!)
            adminConfiguration.curve = CurveClientOptions(serverKey: server.publicKey, keyPair: operatorKeys)
            let admin = try RPCClient(context: campaign.context, configuration: adminConfiguration)
            let creative = try await campaign.uploadPNG(admin)
            let created = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "a", creative: creative))
            try await withRelay("relay-1", connectedTo: campaign, configure: { $0.keysDirectory = relayKeys.path }) { relayService in
                try await withEdge("edge-1", connectedTo: relayService, configure: { $0.keysDirectory = edgeKeys.path }) { follower in
                    #expect(await follower.waitFor(seq: created.seq, creatives: 1), "\(follower.log.suffix(1500))\n\(relayService.log.suffix(1500))")
                    #expect(await eventually(timeout: .seconds(5)) {
                        let edges = (try? await admin.call(AdminAPI.edgeList, NoParams()).edges) ?? []
                        return edges.contains { $0.edgeId == "edge-1" && $0.via == ["relay-1"] } && edges.contains { $0.edgeId == "relay-1" && $0.via == nil }
                    })
                }
                // A stranger's key gets nothing from the relay.
                var strangerConfiguration = RPCClientConfiguration(endpoint: relayService.endpoints["sync"]!)
                strangerConfiguration.curve = CurveClientOptions(serverKey: relay.publicKey, keyPair: try CurveKeyPair.generate())
                strangerConfiguration.timeout = .milliseconds(500)
                strangerConfiguration.retries = 0
                let stranger = try RPCClient(context: campaign.context, configuration: strangerConfiguration)
                await #expect(throws: (any Error).self) { try await stranger.call(SyncAPI.snapshot, SnapshotParams()) }
                await stranger.close()
            }
            // edge-1's key straight at campaignd, claiming to pass on another edge's acknowledgement as relay-1: refused.
            var edgeConfiguration = RPCClientConfiguration(endpoint: campaign.endpoints["sync"]!)
            edgeConfiguration.curve = CurveClientOptions(serverKey: server.publicKey, keyPair: edge)
            let impostor = try RPCClient(context: campaign.context, configuration: edgeConfiguration)
            let epoch = campaign.app.store.epoch
            await #expect { try await impostor.call(SyncAPI.acks, EdgeAcks(acks: [EdgeAck(edgeId: "edge-9", region: "r", epoch: epoch, appliedSeq: 1, via: ["relay-1"])])) } throws: {
                ($0 as? JSONRPCError)?.code == APIError.edgeKeyMismatch.code
            }
            await #expect { try await impostor.call(SyncAPI.ack, EdgeAck(edgeId: "edge-9", region: "r", epoch: epoch, appliedSeq: 1, via: ["edge-1"])) } throws: {
                ($0 as? JSONRPCError)?.code == APIError.edgeKeyMismatch.code
            }
            await impostor.close()
            await admin.close()
        }
    }
}
