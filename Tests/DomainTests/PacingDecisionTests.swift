@testable import LaunchAdDomain
import Testing

@Suite("The decision applies a campaign's serve share", .timeLimit(.minutes(1)))
struct PacingDecisionTests {
    typealias Fixture = DecisionEngineTests

    /// A paced campaign at priority 90 above an unpaced one at 50: whoever the share skips gets the second.
    static func campaigns(share: Double?) -> [Campaign] {
        var paced = Fixture.campaign(1, priority: 90)
        paced.goal = CampaignGoal(impressions: 1000, per: .day)
        paced.pacing = .even
        paced.share = share
        return [paced, Fixture.campaign(2, priority: 50)]
    }

    /// How many of `devices` devices get the paced campaign at `now`.
    static func served(share: Double?, devices: Int = 4000, now: Timestamp = Fixture.now) -> [Bool] {
        let index = DecisionEngine.index(campaigns(share: share), creatives: Fixture.held, preparer: .json)["shop"]
        return (0..<devices).map { device in
            let decision = DecisionEngine.decide(Fixture.request(device: "device-\(device)"), index: index, device: .unknown, now: now)
            return decision.campaign?.id == 1
        }
    }

    @Test("no share serves every device; a share of 0 none, the next campaign answered instead; 1 every device")
    func bounds() {
        #expect(Self.served(share: nil, devices: 200).allSatisfy { $0 })
        #expect(Self.served(share: 1, devices: 200).allSatisfy { $0 })
        let none = DecisionEngine.index(Self.campaigns(share: 0), creatives: Fixture.held, preparer: .json)["shop"]
        for device in 0..<200 {
            #expect(DecisionEngine.decide(Fixture.request(device: "device-\(device)"), index: none, device: .unknown, now: Fixture.now).campaign?.id == 2)
        }
        // Anonymous requests are drawn too: none of them under 0, all under 1.
        #expect(DecisionEngine.decide(Fixture.request(device: nil), index: none, device: .unknown, now: Fixture.now).campaign?.id == 2)
    }

    @Test("in one tier, a paced member is drawn and its unpaced neighbours are not: the share skips only the paced one, wherever it sits")
    func pacedAmongUnpaced() throws {
        // Three campaigns of one priority (one tier): only campaign 3, last by id, has a share. A tier knows it has a
        // paced member, so the draw must still be taken for it, and never for the other two.
        for share in [0.0, 0.5] {
            var paced = Fixture.campaign(3, weight: 100)
            paced.goal = CampaignGoal(impressions: 1000, per: .day)
            paced.pacing = .even
            paced.share = share
            let campaigns = [Fixture.campaign(1, weight: 100), Fixture.campaign(2, weight: 100), paced]
            let index = try #require(DecisionEngine.index(campaigns, creatives: Fixture.held, preparer: .json)["shop"])
            let bound = DecisionEngine.shareBound(share)
            var counts: [Int64: Int] = [:]
            for device in 0..<3000 {
                let request = Fixture.request(device: "device-\(device)")
                let id = try #require(DecisionEngine.decide(request, index: index, device: .unknown, now: Fixture.now).campaign?.id)
                counts[id, default: 0] += 1
                // Campaign 3 is answered only to a device its own draw serves.
                if id == 3 { #expect(DecisionEngine.servesShare(3, below: bound, request, Fixture.now)) }
            }
            // Equal weights: 3 takes about a third of the devices its share serves, 1 and 2 split the rest.
            let third = Double(counts[3, default: 0]) / 3000
            #expect(abs(third - share / 3) < 0.04, "\(counts) at \(share)")
            #expect(counts[1, default: 0] > 800 && counts[2, default: 0] > 800, "\(counts) at \(share)")
        }
        // Without a share the same tier is not paced, and all three are answered about equally.
        let plain = try #require(DecisionEngine.index([Fixture.campaign(1), Fixture.campaign(2), Fixture.campaign(3)], creatives: Fixture.held,
                                                      preparer: .json)["shop"])
        #expect(plain.tiers.allSatisfy { !$0.paced })
    }

    @Test("a share serves that share of devices (within 3 points over 4000), the same devices within an interval, others in the next",
          arguments: [0.1, 0.5, 0.83])
    func proportion(share: Double) {
        let first = Self.served(share: share)
        let rate = Double(first.filter { $0 }.count) / Double(first.count)
        #expect(abs(rate - share) < 0.03, "\(rate) for \(share)")
        // Later in the same interval: the same devices.
        let interval = DecisionEngine.pacingIntervalMilliseconds
        let start = Timestamp(milliseconds: Fixture.now.milliseconds / interval * interval)
        #expect(Self.served(share: share, now: start) == Self.served(share: share, now: start.adding(seconds: Double(interval) / 1000 - 1)))
        // The next interval draws again: about the same share, not the same devices.
        let next = Self.served(share: share, now: start.adding(seconds: Double(interval) / 1000))
        let nextRate = Double(next.filter { $0 }.count) / Double(next.count)
        #expect(abs(nextRate - share) < 0.03 && next != first)
    }

    @Test("launch.explain says paced for a campaign its share skips for the device, and served when the draw takes it")
    func explained() {
        for share in [0.0, 1.0] {
            let campaigns = Self.campaigns(share: share)
            let index = DecisionEngine.index(campaigns, creatives: Fixture.held, preparer: .json)["shop"]
            let (decision, explained) = DecisionEngine.explain(Fixture.request(), campaigns: campaigns, index: index, device: .unknown, now: Fixture.now)
            #expect(decision.campaign?.id == (share == 0 ? 2 : 1))
            #expect(explained.map(\.outcome) == (share == 0 ? [.paced, .served] : [.served, .lowerPriority]), "\(explained)")
        }
    }

    @Test("pacing sets a share on a campaign with a goal, its version and updatedAt kept, clamped to 0...1; the same share, a final campaign or one without a goal is left")
    func pace() throws {
        let campaign = Self.campaigns(share: nil)[0]
        let paced = try #require(CampaignRules.pace(campaign, share: 0.25))
        #expect(paced.share == 0.25 && paced.version == campaign.version && paced.updatedAt == campaign.updatedAt)
        #expect(CampaignRules.pace(paced, share: 0.25) == nil)
        #expect(CampaignRules.pace(paced, share: 7)?.share == 1)
        #expect(CampaignRules.pace(paced, share: -1)?.share == 0)
        #expect(CampaignRules.pace(paced, share: nil)?.share == nil)
        var expired = paced
        expired.state = .expired
        #expect(CampaignRules.pace(expired, share: 0) == nil)
        #expect(CampaignRules.pace(Fixture.campaign(3), share: 0.5) == nil)
    }

    @Test("a share of 1 is the bound that skips the draw (as no share); a small share keeps a bound above 0 and serves about its part of many devices")
    func bound() {
        #expect(DecisionEngine.shareBound(1) == .max && DecisionEngine.shareBound(nil) == .max && DecisionEngine.shareBound(0) == 0)
        #expect(DecisionEngine.shareBound(1e-12) == 1 && DecisionEngine.shareBound(0.5) == 1 << 31)
        // A share of 0.0004 (what a large campaign's small goal asks) serves about 0.04% of devices, not none.
        let bound = DecisionEngine.shareBound(0.0004)
        let served = (0..<200_000).filter { DecisionEngine.servesShare(1, below: bound, device: FNV1a.hash("device-\($0)"), Fixture.now) }.count
        #expect(served > 40 && served < 120, "\(served) of 200000")
    }

    @Test("a campaign held at a share of 0 is revoked in answers (a device must not show it from its cache, a deferred answer included) while it stays indexed; a share above 0 lifts it")
    func revokedAtZero() {
        let held = DecisionEngine.index(Self.campaigns(share: 0), creatives: Fixture.held, preparer: .json)
        #expect(held["shop"]?.revoked == [1] && held["shop"]?.candidates.count == 2)
        var lifted = Self.campaigns(share: 0)[0]
        lifted.share = 0.5
        let after = DecisionEngine.reindex(held, changed: [(before: Self.campaigns(share: 0)[0], after: lifted)], campaigns: [lifted, Self.campaigns(share: 0)[1]],
                                           creatives: Fixture.held, preparer: .json)
        #expect(after["shop"]?.revoked == [])
        var stopped = lifted
        stopped.share = 0
        let again = DecisionEngine.reindex(after, changed: [(before: lifted, after: stopped)], campaigns: [stopped, Self.campaigns(share: 0)[1]],
                                           creatives: Fixture.held, preparer: .json)
        #expect(again["shop"]?.revoked == [1])
    }

    @Test("a campaign held at a share of 0 is listed among the revoked ahead of paused, expired and deleted ones changed since, whatever its age")
    func stoppedListedFirst() throws {
        // As many expired campaigns as an answer lists, all changed after the paced one was last edited.
        let expired = (10...Int64(9 + DecisionEngine.revokedLimit)).map { id in
            var campaign = Fixture.campaign(id, state: .expired)
            campaign.updatedAt = Fixture.now.adding(seconds: Double(id))
            return campaign
        }
        var stopped = Self.campaigns(share: 0)[0]
        stopped.updatedAt = Fixture.now.adding(seconds: -86_400)
        let index = try #require(DecisionEngine.index(expired + [stopped], creatives: Fixture.held, preparer: .json)["shop"])
        #expect(index.revoked.count == DecisionEngine.revokedLimit)
        #expect(index.revoked.first == stopped.id, "\(index.revoked.prefix(3))")
        // The rest keep their order: the most recently changed first.
        #expect(Array(index.revoked.dropFirst()) == expired.reversed().prefix(DecisionEngine.revokedLimit - 1).map(\.id))
    }

    @Test("with several paced campaigns the device is drawn once for them all: the answer is the first, by priority, whose own draw serves it (a share of 0 never does)")
    func severalPaced() {
        let shares: [(id: Int64, priority: Int, share: Double)] = [(1, 90, 0.3), (2, 80, 0), (3, 70, 0.5)]
        let campaigns = shares.map { id, priority, share in
            var campaign = Fixture.campaign(id, priority: priority)
            campaign.goal = CampaignGoal(impressions: 1000, per: .day)
            campaign.share = share
            return campaign
        } + [Fixture.campaign(4, priority: 50)]
        let index = DecisionEngine.index(campaigns, creatives: Fixture.held, preparer: .json)["shop"]
        var answered: [Int64: Int] = [:]
        for device in 0..<2000 {
            let hash = FNV1a.hash("device-\(device)")
            let expected = shares.first { DecisionEngine.servesShare($0.id, below: DecisionEngine.shareBound($0.share), device: hash, Fixture.now) }?.id ?? 4
            let decision = DecisionEngine.decide(Fixture.request(device: "device-\(device)"), index: index, device: .unknown, now: Fixture.now)
            #expect(decision.campaign?.id == expected, "device-\(device)")
            answered[decision.campaign?.id ?? 0, default: 0] += 1
        }
        // About 0.3 for the first, 0.7 × 0.5 for the third, the rest for the unpaced one; none for the share of 0.
        #expect(answered[2] == nil && (500...700).contains(answered[1] ?? 0) && (600...800).contains(answered[3] ?? 0), "\(answered)")
    }
}
