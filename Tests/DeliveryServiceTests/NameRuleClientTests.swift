import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdTesting
import Testing

/// The edge's client socket refuses the app ids and regions ``AppID`` and ``Region`` refuse, each call naming its
/// own field, and answers the ones they take (an app id starting with '-', a region in upper case).
@Suite("deliveryd refuses a bad app id or region on its client socket, naming the field", .timeLimit(.minutes(2)))
struct NameRuleClientTests {
    @Test("launch.query, launch.prefetch and launch.report refuse each bad app id and region; good ones are answered")
    func refused() async throws {
        try await DeliveryServiceTests.withCampaignd { fixture, admin, creative in
            var fields = CampaignFixture.fields(creative: creative)
            fields.targeting = Targeting(regions: ["CN-East"])
            let created = try await admin.call(AdminAPI.campaignCreate, fields)
            try await withEdge("edge-names", connectedTo: fixture) { edge in
                #expect(await edge.waitFor(seq: created.seq, creatives: 1))
                let appRule = "must be \(AppID.rule)", regionRule = "must be \(Region.rule)"
                for app in ["", "Shop", "shop app", String(repeating: "a", count: 65)] {
                    await #expect(throws: JSONRPCError.invalidParams(field: "app", appRule), "\(app)") {
                        try await edge.client.call(ClientAPI.launchQuery, LaunchQueryParams(app: app, platform: "ios", appVersion: "5.2.0"))
                    }
                    await #expect(throws: JSONRPCError.invalidParams(field: "app", appRule), "\(app)") {
                        try await edge.client.call(ClientAPI.launchPrefetch, LaunchPrefetchParams(app: app, platform: "ios", appVersion: "5.2.0"))
                    }
                    let event = LaunchEvent(eventId: "e-1", type: .request, campaignId: nil, deviceId: "d-1", app: app)
                    await #expect(throws: JSONRPCError.invalidParams(field: "events[0].app", appRule), "\(app)") {
                        try await edge.client.call(ClientAPI.launchReport, LaunchReportParams(events: [event]))
                    }
                }
                for region in ["", "-east", "cn east", "cn_east", String(repeating: "r", count: 33)] {
                    await #expect(throws: JSONRPCError.invalidParams(field: "region", regionRule), "\(region)") {
                        try await edge.client.call(ClientAPI.launchQuery, LaunchQueryParams(app: "shop", platform: "ios", appVersion: "5.2.0",
                                                                                            region: region, deviceId: "d-1"))
                    }
                    await #expect(throws: JSONRPCError.invalidParams(field: "region", regionRule), "\(region)") {
                        try await edge.client.call(ClientAPI.launchPrefetch, LaunchPrefetchParams(app: "shop", platform: "ios", appVersion: "5.2.0",
                                                                                                  region: region))
                    }
                }
                // The campaign's region, kept in lower case, is matched in any case; an app id may start with '-'.
                for region in ["cn-east", "CN-EAST"] {
                    let answer = try await edge.query(LaunchQueryParams(app: "shop", platform: "ios", appVersion: "5.2.0", region: region, deviceId: "d-1"))
                    #expect(answer.hasAd && answer.id == created.campaign.id, "\(region)")
                }
                #expect(try await edge.query(LaunchQueryParams(app: "-shop", platform: "ios", appVersion: "5.2.0", deviceId: "d-1")).hasAd == false)
            }
        }
    }
}
