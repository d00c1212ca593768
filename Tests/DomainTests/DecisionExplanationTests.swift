import LaunchAdAPI
import LaunchAdDomain
import SeededRandomness
import Testing

@Suite("Decision engine: explain", .timeLimit(.minutes(1)))
struct DecisionExplanationTests {
    typealias T = DecisionEngineTests

    static func explain(_ campaigns: [Campaign], _ request: LaunchRequest = T.request(), device: DeviceView = .unknown,
                        now: Timestamp = T.now) -> (Decision, [Int64: CampaignExplanation]) {
        let index = DecisionEngine.index(campaigns, creatives: T.held, preparer: .json)["shop"]
        let (decision, explained) = DecisionEngine.explain(request, campaigns: campaigns, index: index, device: device, now: now)
        return (decision, Dictionary(uniqueKeysWithValues: explained.map { ($0.campaign.id, $0) }))
    }

    @Test("every campaign of the app is served, lost or left out, and why; the answer is decide's")
    func reasons() throws {
        let unheld = CreativeFacts(sha256: String(repeating: "f", count: 64), contentType: "image/png", width: 10, height: 10, size: 1)
        let campaigns = [
            T.campaign(1, priority: 90, weight: 100), T.campaign(2, priority: 90, weight: 100),
            T.campaign(3, priority: 50),
            T.campaign(4, priority: 99, start: 600), T.campaign(5, priority: 99, end: -1),
            T.campaign(6, priority: 99, state: .paused), T.campaign(7, priority: 99, state: .expired),
            T.campaign(8, priority: 99, targeting: Targeting(platforms: ["android"])),
            T.campaign(9, priority: 99, targeting: Targeting(regions: ["us-west"])),
            T.campaign(10, priority: 99, targeting: Targeting(appVersions: VersionRange(min: "6.0"))),
            T.campaign(11, priority: 99, targeting: Targeting(locales: ["en-us"])),
            T.campaign(12, priority: 99, launchTypes: [.hot]),
            T.campaign(13, priority: 99, cap: FrequencyCap(shows: 1, hours: 24)),
            T.campaign(14, priority: 99, creatives: [unheld]),
        ]
        let device = DeviceView.make(impressions: [13: [T.now.adding(seconds: -60)]])
        let (decision, why) = Self.explain(campaigns, device: device)
        let decided = T.decide(campaigns, device: device)
        #expect(decision.campaign?.id == decided.campaign?.id && decision.revoked == decided.revoked)
        let served = try #require(decision.campaign?.id)
        #expect([1, 2].contains(served) && why[served]?.outcome == .served)
        #expect(why[served == 1 ? 2 : 1]?.outcome == .lostDraw)
        #expect(why[3]?.outcome == .lowerPriority)
        #expect(why[4]?.outcome == .notLiveYet && why[5]?.outcome == .ended)
        #expect(why[6]?.outcome == .paused && why[7]?.outcome == .expired)
        #expect([8, 9, 10, 11, 12].map { why[$0]?.field } == [.platform, .region, .appVersion, .locale, .launchType])
        #expect([8, 9, 10, 11, 12].allSatisfy { why[$0]?.outcome == .targeting })
        #expect(why[13]?.outcome == .capped && why[14]?.outcome == .noCreative)
        #expect(why.count == campaigns.count)
    }

    @Test("over many random apps and queries, explain serves what decide answers and calls nothing else eligible in a higher tier")
    func agreesWithDecide() {
        var random = SeededRandom(seed: 30)
        for _ in 0..<300 {
            let campaigns = (1...Int64.random(in: 1...12, using: &random)).map { id in
                T.campaign(id, priority: [10, 50, 90].randomElement(using: &random)!, weight: Int.random(in: 1...300, using: &random),
                           forced: Int.random(in: 0..<10, using: &random) == 0,
                           state: [.live, .live, .live, .paused, .scheduled].randomElement(using: &random)!,
                           start: [-3600, 600].randomElement(using: &random)!, end: [3600, -1].randomElement(using: &random)!,
                           targeting: Targeting(platforms: [nil, ["ios"], ["android"]].randomElement(using: &random)!,
                                                regions: [nil, ["cn-east"], ["us-west"]].randomElement(using: &random)!))
            }
            let device = "d-\(Int.random(in: 0..<50, using: &random))"
            let request = T.request(platform: ["ios", "android"].randomElement(using: &random)!, device: device)
            let (decision, why) = Self.explain(campaigns, request)
            #expect(decision.campaign?.id == T.decide(campaigns, request).campaign?.id)
            let servedCount = why.values.filter { $0.outcome == .served }.count
            #expect(servedCount == (decision.campaign == nil ? 0 : 1))
            if decision.campaign == nil {
                #expect(!why.values.contains { [.lostDraw, .lowerPriority].contains($0.outcome) })
            }
        }
    }
}
