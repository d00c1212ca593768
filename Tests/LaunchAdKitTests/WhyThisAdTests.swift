import Foundation
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdKit
import LaunchAdTesting
import Testing

@Suite("LaunchAdClient.whyThisAd() asks a real edge's launch.why with the launch's identity of the device", .timeLimit(.minutes(2)))
struct WhyThisAdTests {
    @Test("none before an ad is shown (its impression recorded); the shown ad's advertiser, payer and matched targeting after; NotAnswered once paused")
    func currentAd() async throws {
        try await withKitWorld { world in
            let campaign = try await world.create { fields in
                fields.advertiser = "Shop \"A\""
                fields.paidBy = "双十一 Ltd"
                fields.forced = true
                fields.targeting = Targeting(platforms: ["ios"], appVersions: VersionRange(min: "5.0", max: "6.0"), regions: ["cn-east"],
                                             locales: ["zh-CN"])
            }
            let client = try world.client(.fresh) { configuration in
                configuration.region = "CN-East"
                configuration.locale = "zh-cn"
            }
            await #expect(throws: NoAdShown.self) { try await client.whyThisAd() }
            let ad = try #require(await client.launch().ad)
            #expect(ad.campaignId == campaign.id)
            // Chosen is not shown: the current ad is the one whose impression was recorded.
            await #expect(throws: NoAdShown.self) { try await client.whyThisAd() }
            try await client.record(.impression, of: ad, launch: "why-1")
            let why = try await client.whyThisAd()
            #expect(why == AdWhy(campaignId: campaign.id, advertiser: "Shop \"A\"", paidBy: "双十一 Ltd", reasons: [
                .init(field: .platform, value: "ios"), .init(field: .appVersion, value: ">=5.0 <6.0"), .init(field: .region, value: "cn-east"),
                .init(field: .locale, value: "zh-CN"), .init(field: .forced, value: "true"),
            ]))
            // Another device's identity, outside the targeting: the edge does not explain an ad it would not answer.
            let android = try world.client(.fresh) { $0.platform = "android" }
            do {
                _ = try await android.whyThisAd(ad)
                Issue.record("an android device was explained an ios campaign")
            } catch let error as EdgeError {
                #expect(error.isNotAnswered, "\(error)")
            }
            try await world.apply(AdminAPI.campaignPause, to: campaign.id)
            do {
                _ = try await client.whyThisAd()
                Issue.record("a paused campaign was explained")
            } catch let error as EdgeError {
                #expect(error.isNotAnswered, "\(error)")
            }
            await client.settle()
            await android.settle()
        }
    }

    @Test("the SDK's reason fields are the edge's WhyField cases, each spelt alike")
    func fields() {
        let sdk: [AdWhy.Field] = [.platform, .appVersion, .region, .locale, .launchType, .audience, .forced]
        #expect(sdk.map(\.rawValue) == WhyField.allCases.map(\.rawValue))
    }
}
