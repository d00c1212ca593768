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

@Suite("deliveryd with campaignd", .timeLimit(.minutes(3)))
struct DeliveryServiceTests {
    /// campaignd in process with one creative uploaded, an admin client for it, and the creative's sha256.
    static func withCampaignd(_ body: (InProcessCampaignService, RPCClient, String) async throws -> Void) async throws {
        try await withCampaignService { fixture in
            let admin = try fixture.admin()
            do {
                let creative = try await fixture.uploadPNG(admin, width: 1179, height: 2556)
                try await body(fixture, admin, creative)
            } catch {
                await admin.close()
                throw error
            }
            await admin.close()
        }
    }

    /// campaignd as a child process (for tests that kill or replace it) with one creative uploaded.
    static func withCampaignFixture(_ body: (CampaignFixture, RPCClient, String) async throws -> Void) async throws {
        try await withStopping(CampaignFixture()) { fixture in
            let admin = try fixture.admin()
            let creative = try await fixture.uploadPNG(admin, width: 1179, height: 2556)
            try await body(fixture, admin, creative)
        }
    }

    @Test("a live campaign is answered with every field; an expire makes it revoked from the next query on")
    func answerAndExpire() async throws {
        try await DeliveryServiceTests.withCampaignd { fixture, admin, creative in
            try await withEdge("edge-a", connectedTo: fixture) { edge in
                var fields = CampaignFixture.fields(creative: creative)
                fields.jump = Jump(type: .deeplink, value: "shop://promo/1212")
                fields.countdown = 4
                fields.skipAfter = 1
                let created = try await admin.call(AdminAPI.campaignCreate, fields)
                #expect(await edge.waitFor(seq: created.seq, creatives: 1))
                let answer = try await edge.query()
                #expect(answer.hasAd && answer.id == created.campaign.id && answer.version == 1)
                #expect(answer.creative?.sha256 == creative && answer.creative?.width == 1179 && answer.imgUrl?.hasSuffix("/creatives/\(creative)") == true)
                #expect(answer.jumpType == "deeplink" && answer.jumpValue == "shop://promo/1212" && answer.countdown == 4 && answer.skipAfter == 1)
                #expect(answer.expiresAt == created.campaign.endsAt && answer.seq == created.seq && answer.revoked.isEmpty)

                let expired = try await admin.call(AdminAPI.campaignExpire, CampaignID(id: created.campaign.id))
                #expect(await edge.waitFor(seq: expired.seq))
                let after = try await edge.query()
                #expect(!after.hasAd && after.revoked == [created.campaign.id])
                // campaignd saw the edge's acknowledgement (acks go out after the edge saved what it applied).
                #expect(await eventually { (try? await CampaignFixture.acknowledgedSeq(admin)) == expired.seq })
                let edges = try await admin.call(AdminAPI.edgeList, NoParams())
                #expect(edges.edges.map(\.edgeId) == ["edge-a"])
            }
        }
    }

    @Test("a forced campaign answers from the next query after its change is applied")
    func force() async throws {
        try await DeliveryServiceTests.withCampaignd { fixture, admin, creative in
            try await withEdge("edge-f", connectedTo: fixture) { edge in
                var high = CampaignFixture.fields(name: "high", creative: creative)
                high.priority = 90
                let first = try await admin.call(AdminAPI.campaignCreate, high)
                var low = CampaignFixture.fields(name: "low", creative: creative)
                low.priority = 10
                let second = try await admin.call(AdminAPI.campaignCreate, low)
                #expect(await edge.waitFor(seq: second.seq, creatives: 1))
                #expect(try await edge.query().id == first.campaign.id)
                let forced = try await admin.call(AdminAPI.campaignForce, CampaignID(id: second.campaign.id))
                #expect(await edge.waitFor(seq: forced.seq))
                let answer = try await edge.query()
                #expect(answer.id == second.campaign.id && answer.forced == true)
            }
        }
    }

    /// Heartbeats come once a second; the snapshot a new edge takes is already word from campaignd. (`/healthz` says
    /// stale from the same record.)
    @Test("a new edge is not stale once it holds campaignd's snapshot, before any heartbeat")
    func notStaleAfterSnapshot() async throws {
        try await DeliveryServiceTests.withCampaignd { fixture, admin, creative in
            let created = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(creative: creative))
            for round in 0..<3 {
                try await withEdge("edge-fresh-\(round)", connectedTo: fixture) { edge in
                    #expect(await edge.waitFor(seq: created.seq))
                    let status = try await edge.status()
                    #expect(status.loaded && !status.stale, "\(status)")
                }
            }
        }
    }

    @Test("bad params are refused naming the field; admin methods are not reachable on the client socket", arguments: [
        (#"{"app":"shop","platform":"ios"}"#, "appVersion"),
        (#"{"app":"shop","platform":"blackberry","appVersion":"1"}"#, "platform"),
        (#"{"app":"shop","platform":"ios","appVersion":"five"}"#, "appVersion"),
        (#"{"app":"shop","platform":"ios","appVersion":"5","screen":{"width":0,"height":10}}"#, "screen.width"),
        (#"{"app":"shop","platform":"ios","appVersion":"5","screen":{"width":"1","height":10}}"#, "screen.width"),
        (#"{"app":"shop","platform":"ios","appVersion":"5","cached":["nope"]}"#, "cached[0]"),
        (#"{"app":"shop","platform":"ios","appVersion":"5","launchType":"warm"}"#, "launchType"),
        (#"{"app":"shop","platform":"ios","appVersion":"5","launchType":"hot"}"#, "backgroundSeconds"),
        (#"{"app":"shop","platform":"ios","appVersion":"5","x":1}"#, "x"),
    ])
    func validation(_ params: String, _ field: String) async throws {
        try await withCampaignService { fixture in
            try await withEdge("edge-v", connectedTo: fixture) { edge in
                await #expect {
                    _ = try await edge.client.call("launch.query", params: try JSONParser.parse(params))
                } throws: { error in
                    let error = error as? JSONRPCError
                    return error?.code == -32602 && error?.data?["field"] == .string(field)
                }
                await #expect {
                    _ = try await edge.client.call("campaign.create", params: [:])
                } throws: { ($0 as? JSONRPCError)?.code == -32601 }
            }
        }
    }
}
