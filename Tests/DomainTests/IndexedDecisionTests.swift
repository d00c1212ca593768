@testable import LaunchAdDomain
import SeededRandomness
import Testing

/// The indexed engine against the plain scan (``PlainScanEngine``) over seeded random states, devices and requests:
/// the same campaign, creative and revoked list every time, for an index built at once and for one kept through
/// changes (``DecisionEngine/reindex(_:changed:campaigns:creatives:preparer:)`` and
/// ``DecisionEngine/reindex(_:apps:campaigns:creatives:changedCreatives:preparer:)``).
@Suite("Indexed decision against the plain scan", .timeLimit(.minutes(3)))
struct IndexedDecisionTests {
    static let now = Timestamp(rfc3339: "2026-11-21T12:00:00Z")!
    static let facts = [(1179, 2556), (1080, 1920), (1000, 1000), (1242, 2208)].enumerated().map { index, shape in
        CreativeFacts(sha256: String(repeating: "abcd".map(String.init)[index], count: 64), contentType: "image/png",
                      width: shape.0, height: shape.1, size: 100)
    }
    static let platforms = ["ios", "android", "harmonyos"]
    static let regions = ["cn-east", "cn-north", "cn-south", "us-west", "eu"]
    static let versions = ["4.2", "4.8.0", "5.0", "5.1.3", "5.2.0", "5.2.1", "6"]
    static let locales = ["zh-cn", "en-us", "zh-tw"]

    static func subset<T>(_ values: [T], _ random: inout SeededRandom) -> [T] {
        let picked = values.filter { _ in random.chance(0.4) }
        return picked.isEmpty ? [values[random.index(values.count)]] : picked
    }

    static func campaign(_ id: Int64, app: String, priorities: [Int], _ random: inout SeededRandom) -> Campaign {
        var targeting = Targeting()
        if random.chance(0.35) { targeting.platforms = subset(platforms, &random) }
        if random.chance(0.25) { targeting.regions = subset(regions, &random) }
        if random.chance(0.25) {
            // Now and then a range no version is in (min at or above max), as an unchecked state could hold.
            targeting.appVersions = VersionRange(min: random.chance(0.7) ? versions[random.index(versions.count)] : nil,
                                                 max: random.chance(0.7) ? versions[random.index(versions.count)] : nil)
        }
        if random.chance(0.15) { targeting.locales = subset(locales, &random).map { $0 == "zh-cn" ? "zh-CN" : $0 } }
        let launchTypes: [[LaunchType]] = [[.cold], [.cold], [.cold], [.hot], [.cold, .hot]]
        let states: [CampaignState] = [.live, .live, .live, .live, .scheduled, .paused, .expired, .deleted]
        // Mostly held creatives; now and then one the edge lacks, or none held at all.
        var refs = subset(facts, &random).map { CreativeRef(sha256: $0.sha256, weight: 1 + random.index(5)) }
        if random.chance(0.1) { refs.append(CreativeRef(sha256: String(repeating: "e", count: 64))) }
        if random.chance(0.03) { refs = [CreativeRef(sha256: String(repeating: "f", count: 64))] }
        return Campaign(id: id, name: "c\(id)", app: app, startsAt: now.adding(seconds: Double(random.index(4000)) - 3600),
                        endsAt: now.adding(seconds: Double(random.index(4000)) - 300), priority: priorities[random.index(priorities.count)],
                        weight: random.index(300), forced: random.chance(0.08), countdown: 3, skippable: true, skipAfter: nil,
                        launchTypes: launchTypes[random.index(launchTypes.count)], minBackgroundSeconds: random.chance(0.5) ? random.index(60) : nil,
                        jump: .none, creatives: refs, targeting: targeting,
                        frequencyCap: random.chance(0.2) ? FrequencyCap(shows: 1 + random.index(3), hours: 1 + random.index(24)) : nil,
                        state: states[random.index(states.count)], version: 1, createdAt: now,
                        updatedAt: now.adding(seconds: Double(random.index(1000))))
    }

    static func device(_ ids: [Int64], _ random: inout SeededRandom) -> DeviceView {
        guard !ids.isEmpty, random.chance(0.7) else { return .unknown }
        var seen = ids.filter { _ in random.chance(0.5) }
        seen.shuffle(using: &random)
        var impressions: [Int64: [Timestamp]] = [:]
        for id in ids where random.chance(0.3) {
            impressions[id] = (0..<(1 + random.index(3))).map { _ in now.adding(seconds: -Double(random.index(30 * 3600))) }
        }
        let variants = facts.filter { _ in random.chance(0.4) }.map { DeviceView.variantKey($0.sha256) }
        return DeviceView.make(impressions: impressions, seenCampaigns: seen, variantKeys: variants, rotation: random.index(10))
    }

    static func request(_ random: inout SeededRandom) -> LaunchRequest {
        let regionChoices: [String?] = regions + ["CN-East", "Cn-North", "xx", nil]
        let localeChoices: [String?] = ["zh-CN", "zh-cn", "en-US", "zh-TW", "fr", nil]
        let hot = random.chance(0.3)
        return LaunchRequest(app: "shop", platform: platforms[random.index(platforms.count)],
                             appVersion: AppVersion(versions[random.index(versions.count)] + (random.chance(0.3) ? ".1" : ""))!,
                             region: regionChoices[random.index(regionChoices.count)], locale: localeChoices[random.index(localeChoices.count)],
                             deviceId: random.chance(0.9) ? "d-\(random.index(50))" : nil,
                             screen: random.chance(0.8) ? [(1179, 2556), (1080, 1920), (1000, 1000)].map { (width: $0.0, height: $0.1) }[random.index(3)] : nil,
                             launchType: hot ? .hot : .cold, backgroundSeconds: hot ? random.index(90) : nil,
                             cached: random.chance(0.3) ? [facts[random.index(facts.count)].sha256] : [])
    }

    /// The two engines' answers to `count` random requests over `index`, which must be the same.
    static func compare(_ index: AppIndex?, ids: [Int64], requests count: Int, _ random: inout SeededRandom, _ label: String) -> Int {
        var answered = 0
        for _ in 0..<count {
            let request = request(&random), device = device(ids, &random)
            let now = now.adding(seconds: Double(random.index(600)) - 300)
            let serviceNow: Timestamp? = random.chance(0.3) ? now.adding(seconds: Double(random.index(20)) - 5) : nil
            let indexed = DecisionEngine.decide(request, index: index, device: device, now: now, serviceNow: serviceNow)
            let scanned = PlainScanEngine.decide(request, index: index, device: device, now: now, serviceNow: serviceNow)
            #expect(indexed.campaign?.id == scanned.campaign?.id, "\(label): campaign")
            #expect(indexed.creative?.sha256 == scanned.creative?.sha256, "\(label): creative")
            #expect(indexed.revoked == scanned.revoked, "\(label): revoked")
            #expect(indexed.showMoment == scanned.showMoment, "\(label): showMoment")
            if let campaign = indexed.campaign {
                answered += 1
                #expect(DecisionEngine.rotationGroup(of: campaign, in: index) == PlainScanEngine.rotationGroup(of: campaign, in: index), "\(label): group")
            }
        }
        return answered
    }

    @Test("2,000 random states, from one to two hundred campaigns in tiers of up to a hundred and more, answer as the plain scan does")
    func randomStates() {
        var random = SeededRandom(seed: 0x1DE7)
        var answered = 0
        for state in 0..<2000 {
            // Few priorities, so tiers hold many members (past one 64-bit word of a member set), or many.
            let large = state % 20 == 0
            let priorities = large ? [50, 50, 60] : random.chance(0.5) ? [10, 50, 90] : Array(0...100)
            let count = large ? 100 + random.index(100) : 1 + random.index(40)
            let campaigns = (1...count).map { Self.campaign(Int64($0), app: "shop", priorities: priorities, &random) }
            let held = Dictionary(uniqueKeysWithValues: Self.facts.filter { _ in random.chance(0.9) }.map { ($0.sha256, $0) })
            let index = DecisionEngine.index(campaigns, creatives: held, preparer: .json)["shop"]
            answered += Self.compare(index, ids: campaigns.map(\.id), requests: large ? 20 : 4, &random, "state \(state)")
        }
        #expect(answered > 2000)  // the states answer often enough for the comparison to mean something
    }

    @Test("an index kept through random changes of campaigns and creatives answers as a fresh one and the plain scan do")
    func keptThroughChanges() {
        var random = SeededRandom(seed: 0xC4A6)
        var campaigns: [Int64: Campaign] = [:]
        var held = Dictionary(uniqueKeysWithValues: Self.facts.map { ($0.sha256, $0) })
        var index = DecisionEngine.index([], creatives: held, preparer: .json)
        let priorities = [20, 50, 50, 80]
        for step in 0..<400 {
            var apps = Set<String>(), changed = Set<String>(), before: [Int64: Campaign?] = [:]
            for change in 0..<(1 + random.index(4)) {
                let app = random.chance(0.8) ? "shop" : "other"
                let id = Int64(1 + random.index(150))
                var campaign = Self.campaign(id, app: app, priorities: priorities, &random)
                if let old = campaigns[id], random.chance(0.5) {
                    // A small change of a campaign the index holds, or none at all.
                    campaign = old
                    switch random.index(4) {
                    case 0: campaign.priority = priorities[random.index(priorities.count)]
                    case 1: campaign.weight = random.index(300)
                    case 2: campaign.targeting.regions = random.chance(0.5) ? nil : Self.subset(Self.regions, &random)
                    default: break
                    }
                }
                campaign.updatedAt = Self.now.adding(seconds: Double(step * 4 + change))  // the revoked lists' order, without ties
                let old = campaigns.updateValue(campaign, forKey: id)
                if before[id] == nil { before[id] = .some(old) }
            }
            // Changes of campaigns go through the index's update of the changed campaigns alone; then, now and
            // then, a change of creatives through the rebuild of the apps using them.
            index = DecisionEngine.reindex(index, changed: before.map { id, old in (before: old, after: campaigns[id]!) },
                                           campaigns: campaigns.values, creatives: held, preparer: .json)
            if random.chance(0.1) {
                // A creative's bytes arrive or go: every campaign using it is prepared again.
                let facts = Self.facts[random.index(Self.facts.count)]
                held[facts.sha256] = held[facts.sha256] == nil ? facts : nil
                changed.insert(facts.sha256)
                for campaign in campaigns.values where campaign.creatives.contains(where: { $0.sha256 == facts.sha256 }) { apps.insert(campaign.app) }
            }
            index = DecisionEngine.reindex(index, apps: apps, campaigns: campaigns.values, creatives: held, changedCreatives: changed,
                                           preparer: .json)
            let fresh = DecisionEngine.index(campaigns.values, creatives: held, preparer: .json)
            #expect(index.mapValues { $0.candidates.map(\.campaign.id) } == fresh.mapValues { $0.candidates.map(\.campaign.id) }, "step \(step)")
            #expect(index.mapValues { $0.candidates.map { $0.held.map(\.facts.sha256) } }
                    == fresh.mapValues { $0.candidates.map { $0.held.map(\.facts.sha256) } }, "step \(step): creatives")
            #expect(index.mapValues(\.revoked) == fresh.mapValues(\.revoked), "step \(step): revoked")
            _ = Self.compare(index["shop"], ids: Array(campaigns.keys), requests: 3, &random, "step \(step)")
        }
    }

    @Test("a change keeps the prepared candidates and tiers it does not touch")
    func changeKeepsTheRest() throws {
        var random = SeededRandom(seed: 7)
        var campaigns = Dictionary(uniqueKeysWithValues: (1...300).map { id in
            var campaign = Self.campaign(Int64(id), app: "shop", priorities: [10, 20, 30], &random)
            campaign.state = .live
            campaign.forced = false
            return (campaign.id, campaign)
        })
        let held = Dictionary(uniqueKeysWithValues: Self.facts.map { ($0.sha256, $0) })
        let before = try #require(DecisionEngine.index(campaigns.values, creatives: held, preparer: .json)["shop"])
        var changed = try #require(campaigns[1])
        changed.weight += 1
        campaigns[1] = changed
        let after = try #require(DecisionEngine.reindex(["shop": before], apps: ["shop"], campaigns: campaigns.values, creatives: held,
                                                        preparer: .json)["shop"])
        let kept = zip(before.candidates, after.candidates).filter { pair in pair.0 === pair.1 }.count
        #expect(kept == before.candidates.count - 1)
        #expect(after.candidates.first { $0.campaign.id == 1 }?.campaign.weight == changed.weight)
        // Three tiers; only campaign 1's is built again.
        #expect(before.tiers.count == 3 && after.tiers.count == 3)
        #expect(zip(before.tiers, after.tiers).filter { pair in pair.0 === pair.1 }.count == 2)
    }
}
