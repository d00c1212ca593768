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

@Suite("deliveryd trust", .timeLimit(.minutes(3)))
struct EdgeTrustTests {
    @Test("a state file or a creative that does not verify is discarded, never answered from")
    func corruptFiles() async throws {
        try await DeliveryServiceTests.withCampaignFixture { fixture, admin, creative in
            let created = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(creative: creative))
            try await withStopping(fixture.startEdge("edge-x")) { edge in
                #expect(await edge.waitFor(seq: created.seq, creatives: 1))
                await edge.stop()
                await fixture.kill()
                // Flip one byte of each copy of the saved state (the second is there once the edge saved twice).
                let cache = fixture.directory.appendingPathComponent("edge-x")
                var flipped = 0
                for name in ["state.json", "state.b.json"] {
                    let stateURL = cache.appendingPathComponent(name)
                    guard var state = FileManager.default.contents(atPath: stateURL.path).map([UInt8].init) else { continue }
                    let position = try #require(state.indices.last { state[$0] == UInt8(ascii: "1") })
                    state[position] = UInt8(ascii: "2")
                    try Data(state).write(to: stateURL)
                    flipped += 1
                }
                #expect(flipped >= 1)
                try await withStopping(fixture.startEdge("edge-x")) { restarted in
                    let status = try await restarted.status()
                    #expect(!status.loaded && status.campaigns == 0)
                    #expect(try await restarted.query().hasAd == false)
                    #expect(restarted.process.log.contains("discarded a state file"))
                    await restarted.stop()

                    // A good state file, but a creative whose bytes changed on disk.
                    try await fixture.restart(sameEndpoints: true)
                    try await withStopping(fixture.startEdge("edge-x")) { again in
                        #expect(await again.waitFor(seq: created.seq, creatives: 1))
                        await again.stop()
                        await fixture.kill()
                        let creativeURL = cache.appendingPathComponent("creatives").appendingPathComponent(String(creative.prefix(2))).appendingPathComponent(creative)
                        var bytes = [UInt8](try Data(contentsOf: creativeURL))
                        bytes[bytes.count - 1] ^= 0xFF
                        try Data(bytes).write(to: creativeURL)
                        try await withStopping(fixture.startEdge("edge-x")) { third in
                            #expect(try await third.status().creatives == 0)
                            #expect(try await third.query().hasAd == false)
                            #expect(await eventually { third.process.log.contains("discarded a creative") }, "\(third.process.log)")
                            // campaignd back, at the same seq: the edge fetches the creative again by itself.
                            try await fixture.restart(sameEndpoints: true)
                            #expect(await eventually(timeout: .seconds(15)) { (try? await third.status().creatives) == 1 })
                            #expect(try await third.query().hasAd)
                            await admin.close()
                        }
                    }
                }
            }
        }
    }

    @Test("with CURVE, a listed edge syncs; an edge with an unlisted key gets nothing")
    func curve() async throws {
        let directory = try makeTemporaryDirectory("keys")
        defer { removeTemporaryDirectory(directory) }
        let keys = directory.appendingPathComponent("campaignd")
        let server = try KeysDirectory.generate(name: "campaignd", in: keys.path)
        try KeysDirectory.generate(name: "adctl", in: keys.appendingPathComponent("admin").path)
        let listed = directory.appendingPathComponent("listed")
        try KeysDirectory.generate(name: "edge", in: listed.path)
        try FileManager.default.createDirectory(at: keys.appendingPathComponent("edges"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: listed.appendingPathComponent("edge.pub"), to: keys.appendingPathComponent("edges/edge-good.pub"))
        try Data((server.publicKey + "\n").utf8).write(to: listed.appendingPathComponent("campaignd.pub"))
        let stranger = directory.appendingPathComponent("stranger")
        try KeysDirectory.generate(name: "edge", in: stranger.path)
        try Data((server.publicKey + "\n").utf8).write(to: stranger.appendingPathComponent("campaignd.pub"))

        try await withCampaignService(configure: { $0.keysDirectory = keys.path }) { fixture in
            try await withEdge("edge-good", connectedTo: fixture, configure: { $0.keysDirectory = listed.path }) { good in
                try await withEdge("edge-bad", connectedTo: fixture, configure: { $0.keysDirectory = stranger.path }) { bad in
                    #expect(await eventually(timeout: .seconds(10)) { (try? await good.status().loaded) == true })
                    // campaignd's authenticator turns the stranger's key away (it logs each refusal): then it has been
                    // tried, and has nothing.
                    let strangerKey = try String(contentsOf: stranger.appendingPathComponent("edge.pub"), encoding: .utf8)
                        .trimmingCharacters(in: .whitespacesAndNewlines)
                    #expect(await eventually(timeout: .seconds(10)) {
                        fixture.log.split(separator: "\n").contains { $0.contains("refused a client") && $0.contains(strangerKey) }
                    }, "\(fixture.log)")
                    let refused = try await bad.status()
                    #expect(!refused.loaded && refused.stale)
                }
            }
        }
    }

    @Test("with CURVE, an edge's key speaks for its own edge id only: acknowledgements and reports for another are refused and logged")
    func keyBindsEdgeId() async throws {
        let directory = try makeTemporaryDirectory("keys")
        defer { removeTemporaryDirectory(directory) }
        let keys = directory.appendingPathComponent("campaignd")
        let server = try KeysDirectory.generate(name: "campaignd", in: keys.path)
        let operatorKeys = try KeysDirectory.generate(name: "adctl", in: keys.appendingPathComponent("admin").path)
        let edges = keys.appendingPathComponent("edges")
        // Two edges' keys, each listed under its edge id.
        var pairs: [String: CurveKeyPair] = [:]
        for name in ["edge-a", "edge-b"] {
            let folder = directory.appendingPathComponent(name)
            pairs[name] = try KeysDirectory.generate(name: "edge", in: folder.path)
            try FileManager.default.createDirectory(at: edges, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: folder.appendingPathComponent("edge.pub"), to: edges.appendingPathComponent("\(name).pub"))
            try Data((server.publicKey + "\n").utf8).write(to: folder.appendingPathComponent("campaignd.pub"))
        }

        try await withCampaignService(configure: { $0.keysDirectory = keys.path }) { fixture in
            func edgeIds() async throws -> [String] {
                var configuration = RPCClientConfiguration(endpoint: fixture.endpoints["admin"]!)
                configuration.curve = CurveClientOptions(serverKey: server.publicKey, keyPair: operatorKeys)
                return try await withStopping(RPCClient(context: fixture.context, configuration: configuration)) { admin in
                    try await admin.call(AdminAPI.edgeList, NoParams()).edges.map(\.edgeId)
                }
            }
            // A real edge started with edge-a's key but calling itself edge-b: it syncs, but what it acknowledges is refused.
            try await withEdge("edge-b", connectedTo: fixture, configure: { $0.keysDirectory = directory.appendingPathComponent("edge-a").path }) { impostor in
                #expect(await eventually(timeout: .seconds(10)) { (try? await impostor.status().loaded) == true })
                #expect(await eventually(timeout: .seconds(10)) { fixture.log.contains("refused an edge's call for another edge id than its key's") },
                        "\(fixture.log)")
                #expect(await eventually { impostor.log.contains("campaignd refuses this edge's acknowledgements") }, "\(impostor.log)")
                let listed = try await edgeIds()
                #expect(listed == [])
            }

            // The sync socket by hand, with edge-a's key: for edge-a taken (sealed, as the edge seals them), for edge-b
            // refused with -32007, acks and reports alike.
            let seal = try RecordSealer(keyPair: pairs["edge-a"]!, origin: server.publicKey)
            var configuration = RPCClientConfiguration(endpoint: fixture.endpoints["sync"]!)
            configuration.curve = CurveClientOptions(serverKey: server.publicKey, keyPair: pairs["edge-a"]!)
            let client = try RPCClient(context: fixture.context, configuration: configuration)
            let epoch = fixture.app.store.epoch
            #expect(try await client.call(SyncAPI.ack, seal.sealed(EdgeAck(edgeId: "edge-a", region: "r", epoch: epoch, appliedSeq: 0))).seq == 0)
            await #expect { try await client.call(SyncAPI.ack, EdgeAck(edgeId: "edge-b", region: "r", epoch: epoch, appliedSeq: 0)) } throws: {
                ($0 as? JSONRPCError)?.code == APIError.edgeKeyMismatch.code
            }
            #expect(try await client.call(SyncAPI.report, seal.sealed(EdgeReport(edgeId: "edge-a", reportId: 1, counts: []))).accepted)
            await #expect { try await client.call(SyncAPI.report, EdgeReport(edgeId: "edge-b", reportId: 1, counts: [])) } throws: {
                ($0 as? JSONRPCError)?.code == APIError.edgeKeyMismatch.code
            }
            await client.close()
            #expect(try await edgeIds() == ["edge-a"])
            let refusals = fixture.log.split(separator: "\n").filter { $0.contains("refused an edge's call for another edge id") }
            #expect(refusals.contains { $0.contains("edge.report") && $0.contains("edge-b") && $0.contains(pairs["edge-a"]!.publicKey) }, "\(refusals)")
        }

        // The same key listed for two edge ids: campaignd refuses to start.
        try FileManager.default.copyItem(at: edges.appendingPathComponent("edge-a.pub"), to: edges.appendingPathComponent("edge-c.pub"))
        await #expect { try await withCampaignService(configure: { $0.keysDirectory = keys.path }) { _ in } } throws: {
            "\($0)".contains("an edge's key speaks for one edge id only")
        }
    }
}
