import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdTesting
import Testing
import ZMQRPC

@Suite("launch.explain: campaignd answers what an edge would, and why", .timeLimit(.minutes(3)))
struct ExplainTests {
    @Test("explain's answer is the edge's for the same query, and every campaign of the app has its reason")
    func sameAsTheEdge() async throws {
        try await DeliveryServiceTests.withCampaignd { fixture, admin, creative in
            var iosOnly = CampaignFixture.fields(name: "ios only", creative: creative)
            iosOnly.priority = 90
            iosOnly.targeting = Targeting(platforms: ["ios"])
            var everyone = CampaignFixture.fields(name: "everyone", creative: creative)
            everyone.priority = 90
            var lower = CampaignFixture.fields(name: "lower", creative: creative)
            lower.priority = 10
            let later = CampaignFixture.fields(name: "later", creative: creative, startIn: 3600)
            let ids = try await [iosOnly, everyone, lower, later].asyncMap { try await admin.call(AdminAPI.campaignCreate, $0).campaign.id }
            let paused = try await admin.call(AdminAPI.campaignPause, CampaignID(id: ids[2]))
            try await withEdge("edge-explain", connectedTo: fixture) { edge in
                #expect(await edge.waitFor(seq: paused.seq, creatives: 1))
                for device in 0..<12 {
                    for platform in ["ios", "android"] {
                        let query = LaunchQueryParams(app: "shop", platform: platform, appVersion: "5.2.0", deviceId: "d-\(device)")
                        let explained = try await admin.call(AdminAPI.launchExplain, query)
                        let answered = try await edge.query(query)
                        #expect(explained.id == answered.id && explained.hasAd == answered.hasAd, "\(platform) d-\(device)")
                        let outcome = Dictionary(uniqueKeysWithValues: explained.campaigns.map { ($0.id, $0) })
                        #expect(outcome[ids[2]]?.outcome == .paused && outcome[ids[3]]?.outcome == .notLiveYet)
                        if platform == "android" {
                            #expect(answered.id == ids[1] && outcome[ids[0]]?.outcome == .targeting && outcome[ids[0]]?.field == .platform)
                        } else {
                            let other = answered.id == ids[0] ? ids[1] : ids[0]
                            #expect(outcome[other]?.outcome == .lostDraw)
                        }
                    }
                }
            }
            await #expect { try await admin.call(AdminAPI.launchExplain, LaunchQueryParams(app: "shop", platform: "windows", appVersion: "1")) }
                throws: { ($0 as? JSONRPCError)?.code == -32602 }
        }
    }

    @Test("a test audience's campaign is answered to its test devices only, prefetched by nobody, and explained as test-audience")
    func testAudience() async throws {
        try await DeliveryServiceTests.withCampaignd { fixture, admin, creative in
            var fields = CampaignFixture.fields(name: "QA", creative: creative)
            fields.priority = 90
            fields.audience = .test
            fields.testDevices = ["qa-1"]
            let qa = try await admin.call(AdminAPI.campaignCreate, fields)
            let other = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "everyone", creative: creative))
            #expect(qa.campaign.testDevices == ["qa-1"] && qa.campaign.audience == .test)
            try await withEdge("edge-qa", connectedTo: fixture) { edge in
                #expect(await edge.waitFor(seq: other.seq, creatives: 1))
                func query(_ device: String) -> LaunchQueryParams { LaunchQueryParams(app: "shop", platform: "ios", appVersion: "5.2.0", deviceId: device) }
                #expect(try await edge.query(query("qa-1")).id == qa.campaign.id)
                #expect(try await edge.query(query("d-1")).id == other.campaign.id)
                let explained = try await admin.call(AdminAPI.launchExplain, query("d-1"))
                #expect(explained.id == other.campaign.id && explained.campaigns.first { $0.id == qa.campaign.id }?.outcome == .testAudience)
                let prefetch = try await edge.client.call(ClientAPI.launchPrefetch, LaunchPrefetchParams(app: "shop", platform: "ios", appVersion: "5.2.0"))
                #expect(!prefetch.download.contains { $0.campaignId == qa.campaign.id } && prefetch.download.contains { $0.campaignId == other.campaign.id })
            }
            var bad = fields
            bad.testDevices = []
            await #expect { try await admin.call(AdminAPI.campaignCreate, bad) } throws: { ($0 as? JSONRPCError)?.data?["field"] == "testDevices" }
        }
    }
}

extension Array {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var result: [T] = []
        for element in self { result.append(try await transform(element)) }
        return result
    }
}
