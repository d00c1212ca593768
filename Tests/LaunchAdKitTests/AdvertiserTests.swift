import Foundation
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdKit
import LaunchAdTesting
import Testing

@Suite("LaunchAd says who the ad is for: the campaign's advertiser and paidBy", .timeLimit(.minutes(2)))
struct AdvertiserTests {
    @Test("a fresh launch decodes advertiser and paidBy from a real edge's answer; the cached ad keeps them; a campaign without has nil")
    func decoded() async throws {
        try await withKitWorld { world in
            let campaign = try await world.create { fields in
                fields.advertiser = "Shop \"A\" <b>&"
                fields.paidBy = "双十一 Ltd"
            }
            let state = world.folder.appendingPathComponent("device")
            let fresh = try world.client(.fresh, state: state)
            let ad = try #require(await fresh.launch().ad)
            #expect(ad.campaignId == campaign.id && ad.advertiser == "Shop \"A\" <b>&" && ad.paidBy == "双十一 Ltd")
            await fresh.settle()
            // From the manifest on disk, the edge out of reach.
            let offline = try world.client(.cacheFirst, state: state, edge: KitWorld.unreachable)
            let cached = try #require(await offline.launch().ad)
            #expect(cached.source == .cache && cached.advertiser == ad.advertiser && cached.paidBy == ad.paidBy)
            await offline.settle()

            var fields = CampaignFields()
            fields.paidBy = "Other Ltd"
            let change = try await world.admin.call(AdminAPI.campaignUpdate, CampaignUpdateParams(id: campaign.id, fields: fields))
            #expect(await world.edge.waitFor(seq: change.seq))
            let again = try world.client(.fresh)
            #expect(try #require(await again.launch().ad).paidBy == "Other Ltd")
            await again.settle()
            try await world.apply(AdminAPI.campaignExpire, to: campaign.id)

            let plain = try await world.create(name: "plain")
            let other = try world.client(.fresh)
            let plainAd = try #require(await other.launch().ad)
            #expect(plainAd.campaignId == plain.id && plainAd.advertiser == nil && plainAd.paidBy == nil)
            await other.settle()
        }
    }
}
