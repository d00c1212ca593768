import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import SeededRandomness
import Testing

@Suite("campaign written directly", .timeLimit(.minutes(1)))
struct CampaignWritingTests {
    static func written(_ campaign: Campaign) -> [UInt8] {
        var writer = JSONWriter()
        campaign.write(json: &writer)
        return writer.bytes
    }

    /// A campaign with every member set (a test holds that no operator field is left unset), in values that need
    /// escaping.
    static func full() -> Campaign {
        var campaign = Campaign(id: 9_007_199_254_740_993, name: "Double 11 \"sale\" \\ 双十一\n\u{1}", app: "shop",
                 startsAt: Timestamp(milliseconds: 1_795_000_000_123), endsAt: Timestamp(milliseconds: 1_795_086_400_000),
                 priority: 90, weight: 7, forced: true, countdown: 5, skippable: true, skipAfter: 2, launchTypes: [.cold, .hot],
                 minBackgroundSeconds: 600, jump: Jump(type: .deeplink, value: "shop://promo/1212?x=1&y=</script>"),
                 creatives: [CreativeRef(sha256: String(repeating: "a", count: 64), weight: 3),
                             CreativeRef(sha256: String(repeating: "b", count: 64), weight: 1)],
                 targeting: Targeting(platforms: ["ios", "android"], appVersions: VersionRange(min: "5.0", max: "6"),
                                      regions: ["cn-east"], locales: ["zh-CN", "en"]),
                 frequencyCap: FrequencyCap(shows: 2, hours: 24), state: .live, version: 12,
                 createdAt: Timestamp(milliseconds: -86_400_001), updatedAt: Timestamp(milliseconds: 0),
                 audience: .test, testDevices: ["device-1", "🚀"], display: .half, clickArea: .full, videoSound: true)
        campaign.advertiser = "Shop \"A\" <script>&'"
        campaign.paidBy = "双十一 \\ Ltd"
        campaign.goal = CampaignGoal(impressions: 1_000_000_000_000, per: .day)
        campaign.pacing = .asap
        campaign.share = 0.0625
        return campaign
    }

    static func minimal() -> Campaign {
        Campaign(id: 1, name: "", app: "a", startsAt: Timestamp(milliseconds: 0), endsAt: Timestamp(milliseconds: 1000),
                 priority: 0, weight: 1, forced: false, countdown: 3, skippable: false, skipAfter: nil, launchTypes: [],
                 minBackgroundSeconds: nil, jump: .none, creatives: [], targeting: .everyone, frequencyCap: nil,
                 state: .scheduled, version: 1, createdAt: Timestamp(milliseconds: 0), updatedAt: Timestamp(milliseconds: 0))
    }

    @Test("a full and a minimal campaign are written byte for byte as their Codable encoding")
    func fixed() throws {
        for campaign in [Self.full(), Self.minimal()] {
            let expected = try JSONValueEncoder().encodeJSON(campaign), written = Self.written(campaign)
            let same = written == expected
            #expect(same, "\(String(decoding: written, as: UTF8.self))\n\(String(decoding: expected, as: UTF8.self))")
            #expect(try JSONValueDecoder().decode(Campaign.self, fromJSON: Self.written(campaign)) == campaign)
        }
    }

    @Test("a snapshot, whole or a page with next, is written byte for byte as its Codable encoding, and a page's bound counts the campaign's bytes")
    func snapshot() throws {
        for snapshot in [Snapshot(epoch: "e-1", seq: 0, campaigns: []),
                         Snapshot(epoch: "e-\"2\"", seq: 42, campaigns: [Self.minimal(), Self.full()]),
                         Snapshot(epoch: "e-3", seq: Int64.max, campaigns: [Self.full()], next: 9_007_199_254_740_993)] {
            var writer = JSONWriter()
            snapshot.write(json: &writer)
            let same = writer.bytes == (try JSONValueEncoder().encodeJSON(snapshot))
            #expect(same, "\(String(decoding: writer.bytes, as: UTF8.self))")
        }
        for campaign in [Self.full(), Self.minimal()] {
            #expect(PageBound.bytes(of: campaign) == (try JSONValueEncoder().encodeJSON(campaign)).count)
        }
    }

    @Test("a change and a heartbeat, as the update stream carries them, are written byte for byte as their Codable encoding")
    func updateStream() throws {
        for (position, op) in CampaignOperation.allCases.enumerated() {
            let campaign = position.isMultiple(of: 2) ? Self.full() : Self.minimal()
            let change = CampaignChanged(epoch: "e-\"1\" 双", change: Change(seq: 9_007_199_254_740_993, op: op, id: campaign.id,
                                                                             campaign: campaign, at: Timestamp(milliseconds: 5)))
            var writer = JSONWriter()
            change.write(json: &writer)
            let same = writer.bytes == (try JSONValueEncoder().encodeJSON(change))
            #expect(same, "\(String(decoding: writer.bytes, as: UTF8.self))")
            #expect(try JSONValueDecoder().decode(CampaignChanged.self, fromJSON: writer.bytes) == change)
        }
        for heartbeat in [Heartbeat(epoch: "e", seq: 0, time: Timestamp(milliseconds: 0)),
                          Heartbeat(epoch: "e-\\2", seq: Int64.max, time: Timestamp(milliseconds: 1_795_000_000_123)),
                          Heartbeat(epoch: "e-3", seq: 7, time: Timestamp(milliseconds: -86_400_001))] {
            var writer = JSONWriter()
            heartbeat.write(json: &writer)
            let same = writer.bytes == (try JSONValueEncoder().encodeJSON(heartbeat))
            #expect(same, "\(String(decoding: writer.bytes, as: UTF8.self))")
            #expect(try JSONValueDecoder().decode(Heartbeat.self, fromJSON: writer.bytes) == heartbeat)
        }
    }

    @Test("seeded random campaigns, each optional member present or not, are written as their Codable encoding")
    func random() throws {
        var random = SeededRandom(seed: 20261127)
        let alphabet = Array("ab z\"\\/\n\t\u{0}\u{1f}é双🚀-_.:")
        func text(_ random: inout SeededRandom) -> String {
            String((0..<Int.random(in: 0...12, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
        }
        func texts(_ random: inout SeededRandom) -> [String]? {
            Bool.random(using: &random) ? nil : (0..<Int.random(in: 0...3, using: &random)).map { _ in text(&random) }
        }
        func time(_ random: inout SeededRandom) -> Timestamp {
            Timestamp(milliseconds: Int64.random(in: -5_000_000_000_000...5_000_000_000_000, using: &random))
        }
        for _ in 0..<500 {
            var campaign = Campaign(
                id: Int64.random(in: 1...Int64.max, using: &random), name: text(&random), app: text(&random),
                startsAt: time(&random), endsAt: time(&random), priority: Int.random(in: -5...100, using: &random),
                weight: Int.random(in: 0...1000, using: &random), forced: Bool.random(using: &random),
                countdown: Int.random(in: 0...10, using: &random), skippable: Bool.random(using: &random),
                skipAfter: Bool.random(using: &random) ? nil : Int.random(in: 0...5, using: &random),
                launchTypes: LaunchType.allCases.filter { _ in Bool.random(using: &random) },
                minBackgroundSeconds: Bool.random(using: &random) ? nil : Int.random(in: 0...86_400, using: &random),
                jump: Jump(type: Jump.Kind.allCases.randomElement(using: &random)!, value: text(&random)),
                creatives: (0..<Int.random(in: 0...3, using: &random)).map { _ in CreativeRef(sha256: text(&random), weight: Int.random(in: 0...100, using: &random)) },
                targeting: Targeting(platforms: texts(&random),
                                     appVersions: Bool.random(using: &random) ? nil
                                         : VersionRange(min: Bool.random(using: &random) ? nil : text(&random),
                                                        max: Bool.random(using: &random) ? nil : text(&random)),
                                     regions: texts(&random), locales: texts(&random)),
                frequencyCap: Bool.random(using: &random) ? nil
                    : FrequencyCap(shows: Int.random(in: 1...10, using: &random), hours: Int.random(in: 1...168, using: &random)),
                state: CampaignState.allCases.randomElement(using: &random)!, version: Int.random(in: 1...1000, using: &random),
                createdAt: time(&random), updatedAt: time(&random),
                audience: Bool.random(using: &random) ? nil : Audience.allCases.randomElement(using: &random)!,
                testDevices: texts(&random),
                display: Bool.random(using: &random) ? nil : CampaignDisplay.allCases.randomElement(using: &random)!,
                clickArea: Bool.random(using: &random) ? nil : CampaignClickArea.allCases.randomElement(using: &random)!,
                videoSound: Bool.random(using: &random) ? nil : Bool.random(using: &random))
            campaign.advertiser = Bool.random(using: &random) ? nil : text(&random)
            campaign.paidBy = Bool.random(using: &random) ? nil : text(&random)
            let expected = try JSONValueEncoder().encodeJSON(campaign)
            let written = Self.written(campaign)
            let same = written == expected
            #expect(same, "\(String(decoding: written, as: UTF8.self))\n\(String(decoding: expected, as: UTF8.self))")
            if !same { return }
        }
    }
}
