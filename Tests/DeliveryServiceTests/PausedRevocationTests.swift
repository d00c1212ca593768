import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdTesting
import Testing
import ZMQRPC

@Suite("a paused campaign is off the device", .timeLimit(.minutes(2)))
struct PausedRevocationTests {
    @Test("paused, the edge lists it in revoked (query and prefetch) and offers it for download no more; resumed, the prefetch lists it again")
    func pauseAndResume() async throws {
        try await DeliveryServiceTests.withCampaignd { fixture, admin, creative in
            try await withEdge("edge-pause", connectedTo: fixture) { edge in
                let created = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "a", creative: creative))
                let id = created.campaign.id
                #expect(await edge.waitFor(seq: created.seq, creatives: 1))
                let prefetchParams = LaunchPrefetchParams(app: "shop", platform: "ios", appVersion: "5.2.0", horizonHours: 24, cached: [creative])
                var prefetch = try await edge.client.call(ClientAPI.launchPrefetch, prefetchParams)
                #expect(prefetch.download.map(\.campaignId) == [id] && prefetch.revoked == [] && prefetch.delete == [])
                #expect(try await edge.query().id == id)

                let paused = try await admin.call(AdminAPI.campaignPause, CampaignID(id: id))
                #expect(await edge.waitFor(seq: paused.seq))
                let answer = try await edge.query()
                #expect(answer.hasAd == false && answer.revoked == [id])
                prefetch = try await edge.client.call(ClientAPI.launchPrefetch, prefetchParams)
                #expect(prefetch.download == [] && prefetch.revoked == [id] && prefetch.delete == [creative])

                let resumed = try await admin.call(AdminAPI.campaignResume, CampaignID(id: id))
                #expect(await edge.waitFor(seq: resumed.seq))
                prefetch = try await edge.client.call(ClientAPI.launchPrefetch, prefetchParams)
                #expect(prefetch.download.map(\.campaignId) == [id] && prefetch.revoked == [] && prefetch.delete == [])
                let again = try await edge.query()
                #expect(again.id == id && again.revoked == [])
            }
        }
    }
}
