import LaunchAdAPI
import LaunchAdDomain
import Testing

@Suite("Test devices: a test audience is answered only to its test devices", .timeLimit(.minutes(1)))
struct TestAudienceTests {
    typealias T = DecisionEngineTests

    static func testOnly(_ id: Int64, devices: [String], priority: Int = 90) -> Campaign {
        var campaign = T.campaign(id, priority: priority)
        campaign.audience = .test
        campaign.testDevices = devices
        return campaign
    }

    @Test("the test campaign answers its test devices and nobody else; others get what they would without it")
    func answered() {
        let campaigns = [Self.testOnly(1, devices: ["qa-1", "qa-2"]), T.campaign(2, priority: 10)]
        #expect(T.decide(campaigns, T.request(device: "qa-1")).campaign?.id == 1)
        #expect(T.decide(campaigns, T.request(device: "qa-2")).campaign?.id == 1)
        #expect(T.decide(campaigns, T.request(device: "d-1")).campaign?.id == 2)
        #expect(T.decide(campaigns, T.request(device: nil)).campaign?.id == 2)
        // audience all (or none given) with test devices listed: everyone, as before.
        var everyone = Self.testOnly(3, devices: ["qa-1"])
        everyone.audience = .all
        #expect(T.decide([everyone], T.request(device: "d-1")).campaign?.id == 3)
        let index = DecisionEngine.index(campaigns, creatives: T.held, preparer: .json)["shop"]
        let (_, why) = DecisionEngine.explain(T.request(device: "d-1"), campaigns: campaigns, index: index, device: .unknown, now: T.now)
        #expect(why.first { $0.campaign.id == 1 }?.outcome == .testAudience)
    }

    @Test("test devices are validated: at most 100, 1 to 128 bytes, no repeats, at least one with audience test")
    func validated() {
        func refusal(_ audience: Audience?, _ devices: [String]?) -> String? {
            var fields = CampaignFields(name: "t", app: "shop", startsAt: T.now, endsAt: T.now.adding(seconds: 3600),
                                        creatives: [CreativeRef(sha256: T.tall.sha256)])
            fields.audience = audience
            fields.testDevices = devices
            do throws(FieldError) {
                _ = try CampaignRules.create(fields, id: 1, now: T.now, creativeExists: { _ in true })
                return nil
            } catch {
                return "\(error.field): \(error.rule)"
            }
        }
        #expect(refusal(.test, ["qa-1"]) == nil && refusal(nil, nil) == nil && refusal(.all, []) == nil)
        #expect(refusal(.test, (0...100).map { "d-\($0)" }) == "testDevices: must list at most 100 device ids")
        #expect(refusal(.test, (0..<100).map { "d-\($0)" }) == nil)
        #expect(refusal(.test, ["qa-1", ""]) == "testDevices[1]: must not be empty (spaces and invisible characters alone do not count)")
        #expect(refusal(.test, [String(repeating: "x", count: 129)]) == "testDevices[0]: must be at most 128 bytes of UTF-8 (it has 129)")
        #expect(refusal(.test, ["qa-1", "qa\n2"]) == "testDevices[1]: must not contain control characters or line breaks (it has \\u{0A})")
        #expect(refusal(.test, ["qa-1", "qa-1"]) == "testDevices: must not repeat a device id")
        #expect(refusal(.test, nil) == "testDevices: must list at least one device id when audience is test")
        #expect(refusal(.test, []) == "testDevices: must list at least one device id when audience is test")
    }
}
