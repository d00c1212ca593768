import LaunchAdDomain
import Testing

@Suite("Decision engine: why this ad, by explain's outcomes", .timeLimit(.minutes(1)))
struct WhyThisAdDomainTests {
    typealias T = DecisionEngineTests

    static func why(_ id: Int64, _ campaigns: [Campaign], _ request: LaunchRequest = T.request(), device: DeviceView = .unknown) -> WhyThisAd? {
        DecisionEngine.why(request, id: id, index: DecisionEngine.index(campaigns, creatives: T.held, preparer: .json)["shop"],
                           device: device, now: T.now)
    }

    @Test("explained: the answer, its tier's others, one capped by the device's own shows, a hot-only one for a hot launch; refused: a lower tier, a miss, another test device, a paused or unknown one")
    func outcomes() throws {
        var tester = T.campaign(7, priority: 90)
        tester.audience = .test
        tester.testDevices = ["tester"]
        let campaigns = [
            T.campaign(1, priority: 90, targeting: Targeting(regions: ["cn-east"])), T.campaign(2, priority: 90),
            T.campaign(3, priority: 50), T.campaign(4, priority: 90, cap: FrequencyCap(shows: 1, hours: 24)),
            T.campaign(5, priority: 90, launchTypes: [.hot]), T.campaign(6, priority: 90, targeting: Targeting(platforms: ["android"])),
            tester, T.campaign(8, priority: 99, state: .paused),
        ]
        let device = DeviceView.make(impressions: [4: [T.now.adding(seconds: -60)]])
        #expect(try #require(Self.why(1, campaigns, device: device)).reasons == [WhyReason(field: .region, value: "cn-east")])
        #expect(try #require(Self.why(2, campaigns, device: device)).reasons.isEmpty)
        #expect(Self.why(4, campaigns, device: device) != nil)
        #expect(try #require(Self.why(5, campaigns, device: device)).reasons == [WhyReason(field: .launchType, value: "hot")])
        for refused: Int64 in [3, 6, 7, 8, 99] { #expect(Self.why(refused, campaigns, device: device) == nil, "\(refused)") }
        // The test device is explained its test campaign, with the audience as the reason.
        let reasons = try #require(Self.why(7, campaigns, T.request(device: "tester"))).reasons
        #expect(reasons == [WhyReason(field: .audience, value: "test")])
    }
}
