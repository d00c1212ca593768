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
        // Capped by the device's own show, in the chosen tier: explained, with its own reasons (it targets no one: none).
        #expect(try #require(Self.why(4, campaigns, device: device)).reasons.isEmpty)
        #expect(try #require(Self.why(5, campaigns, device: device)).reasons == [WhyReason(field: .launchType, value: "hot")])
        for refused: Int64 in [3, 6, 7, 8, 99] { #expect(Self.why(refused, campaigns, device: device) == nil, "\(refused)") }
        // The test device is explained its test campaign, with the audience as the reason.
        let reasons = try #require(Self.why(7, campaigns, T.request(device: "tester"))).reasons
        #expect(reasons == [WhyReason(field: .audience, value: "test")])
    }

    @Test("a campaign shown at a hot launch behind a higher cold-only one is explained as a hot launch; hot-only and cold+hot alike")
    func hotLaunch() throws {
        // A (cold only, 90) answers every cold launch; B (cold and hot, 50) is the answer of a hot one.
        let a = T.campaign(1, priority: 90), b = T.campaign(2, priority: 50, targeting: Targeting(locales: ["zh-CN"]), launchTypes: [.cold, .hot])
        #expect(try #require(Self.why(1, [a, b])).reasons.isEmpty)
        // Its locale matched whatever the request's case, named as the campaign spells it; no launch type reason (it
        // is shown at cold launches too).
        #expect(try #require(Self.why(2, [a, b], T.request(locale: "ZH-cn"))).reasons == [WhyReason(field: .locale, value: "zh-CN")])
        // Not at a hot launch either: C (cold and hot, 95) is above B at both.
        let c = T.campaign(3, priority: 95, launchTypes: [.cold, .hot])
        #expect(Self.why(2, [a, b, c]) == nil)
        // A hot-only campaign with a minimum time away is explained (for any time away), A never at a hot launch.
        let hot = T.campaign(4, priority: 10, launchTypes: [.hot], minBackground: 600)
        #expect(try #require(Self.why(4, [a, hot])).reasons == [WhyReason(field: .launchType, value: "hot")])
    }

    @Test("a capped campaign is explained only at or above the chosen tier (or when nothing was chosen); below it, refused")
    func cappedTiers() throws {
        let cap = FrequencyCap(shows: 1, hours: 24)
        let top = T.campaign(1, priority: 90)
        let capped = T.campaign(2, priority: 50, targeting: Targeting(regions: ["cn-east"]), cap: cap)
        let forcedCapped = T.campaign(3, priority: 10, forced: true, cap: cap)
        let sameTier = T.campaign(4, priority: 90, cap: cap)
        let shown = T.now.adding(seconds: -600)
        let device = DeviceView.make(impressions: [2: [shown], 3: [shown], 4: [shown]])
        // Below the chosen tier (90 over 50): the device would not be answered it, cap or none.
        #expect(Self.why(2, [top, capped], device: device) == nil)
        // Nothing else to choose: its cap alone holds it back, the reasons its own.
        #expect(try #require(Self.why(2, [capped], device: device)).reasons == [WhyReason(field: .region, value: "cn-east")])
        // A forced tier is above every priority; the same tier is at it.
        #expect(try #require(Self.why(3, [top, forcedCapped], device: device)).reasons == [WhyReason(field: .forced, value: "true")])
        #expect(Self.why(4, [top, sameTier], device: device) != nil)
        // Another device, not capped: the same campaign below the chosen tier is refused all the same.
        #expect(Self.why(2, [top, capped]) == nil)
    }
}
