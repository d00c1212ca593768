import Foundation
import LaunchAdAPI
@testable import LaunchAdDomain
import SeededRandomness
import Testing

@Suite("Decision engine", .timeLimit(.minutes(1)))
struct DecisionEngineTests {
    static let now = Timestamp(rfc3339: "2026-11-21T12:00:00Z")!
    static let tall = CreativeFacts(sha256: String(repeating: "a", count: 64), contentType: "image/png", width: 1179, height: 2556, size: 100)
    static let wide = CreativeFacts(sha256: String(repeating: "b", count: 64), contentType: "image/png", width: 1080, height: 1920, size: 100)
    static let square = CreativeFacts(sha256: String(repeating: "c", count: 64), contentType: "image/png", width: 1000, height: 1000, size: 100)
    static let held = [tall.sha256: tall, wide.sha256: wide, square.sha256: square]

    static func campaign(_ id: Int64, priority: Int = 50, weight: Int = 100, forced: Bool = false, state: CampaignState = .live,
                         start: Double = -3600, end: Double = 3600, creatives: [CreativeFacts] = [tall],
                         targeting: Targeting = .everyone, launchTypes: [LaunchType] = [.cold], minBackground: Int? = nil,
                         cap: FrequencyCap? = nil) -> Campaign {
        Campaign(id: id, name: "c\(id)", app: "shop", startsAt: now.adding(seconds: start), endsAt: now.adding(seconds: end),
                 priority: priority, weight: weight, forced: forced, countdown: 3, skippable: true, skipAfter: nil,
                 launchTypes: launchTypes, minBackgroundSeconds: minBackground, jump: .none,
                 creatives: creatives.map { CreativeRef(sha256: $0.sha256) }, targeting: targeting, frequencyCap: cap,
                 state: state, version: 1, createdAt: now, updatedAt: now)
    }

    static func request(platform: String = "ios", version: String = "5.2.0", region: String? = "cn-east", locale: String? = "zh-CN",
                        device: String? = "d-1", screen: (Int, Int)? = (1179, 2556), launchType: LaunchType = .cold,
                        background: Int? = nil, cached: Set<String> = []) -> LaunchRequest {
        LaunchRequest(app: "shop", platform: platform, appVersion: AppVersion(version)!, region: region, locale: locale,
                      deviceId: device, screen: screen.map { (width: $0.0, height: $0.1) }, launchType: launchType,
                      backgroundSeconds: background, cached: cached)
    }

    static func decide(_ campaigns: [Campaign], _ request: LaunchRequest = request(), device: DeviceView = .unknown,
                       now: Timestamp = now, serviceNow: Timestamp? = nil, creatives: [String: CreativeFacts] = held) -> Decision {
        DecisionEngine.decide(request, index: DecisionEngine.index(campaigns, creatives: creatives, preparer: .json)["shop"], device: device,
                              now: now, serviceNow: serviceNow)
    }

    @Test("the live window is read on the edge's clock; an ended campaign is revoked")
    func window() {
        #expect(Self.decide([Self.campaign(1, start: 60)]).campaign == nil)
        let ended = Self.decide([Self.campaign(1, end: -1)])
        #expect(ended.campaign == nil && ended.revoked == [1])
        #expect(Self.decide([Self.campaign(1)]).campaign?.id == 1)
    }

    @Test("campaigns ended by the clock are revoked from their exact end, whichever candidate ends first, and after the candidates change")
    func endedByClock() throws {
        let campaigns = [Self.campaign(1, priority: 90, end: 30), Self.campaign(2, priority: 50, end: 10), Self.campaign(3, priority: 10, end: 20)]
        var index = try #require(DecisionEngine.index(campaigns, creatives: Self.held, preparer: .json)["shop"])
        func revoked(at seconds: Double) -> [Int64] {
            DecisionEngine.decide(Self.request(), index: index, device: .unknown, now: Self.now.adding(seconds: seconds)).revoked
        }
        #expect(revoked(at: 9.999) == [])
        #expect(revoked(at: 10) == [2])
        #expect(revoked(at: 20) == [2, 3])
        #expect(revoked(at: 30) == [1, 2, 3])
        index = AppIndex(candidates: index.candidates.filter { $0.campaign.id != 2 }, revoked: index.revoked)  // the earliest end is now campaign 3's
        #expect(revoked(at: 19.999) == [])
        #expect(revoked(at: 20) == [3])
        let early = try #require(DecisionEngine.index([Self.campaign(4, priority: 5, end: 5)], creatives: Self.held, preparer: .json)["shop"])
        index = AppIndex(candidates: index.candidates + early.candidates, revoked: index.revoked)  // and now campaign 4's, earlier than any before
        #expect(revoked(at: 4.999) == [])
        #expect(revoked(at: 5) == [4])
    }

    @Test("a campaign ended by the clock is revoked first, even when the app already has as many revoked ids as an answer lists")
    func endedByClockFirst() throws {
        let expired = (1...Int64(DecisionEngine.revokedLimit)).map { Self.campaign($0, state: .expired) }
        let index = try #require(DecisionEngine.index(expired + [Self.campaign(500, end: 10)], creatives: Self.held, preparer: .json)["shop"])
        #expect(index.revoked.count == DecisionEngine.revokedLimit)
        let before = DecisionEngine.decide(Self.request(), index: index, device: .unknown, now: Self.now.adding(seconds: 9))
        #expect(before.campaign?.id == 500 && before.revoked == index.revoked)
        let after = DecisionEngine.decide(Self.request(), index: index, device: .unknown, now: Self.now.adding(seconds: 10))
        #expect(after.campaign == nil)
        #expect(after.revoked.count == DecisionEngine.revokedLimit)
        #expect(after.revoked.first == 500)
        #expect(Array(after.revoked.dropFirst()) == Array(index.revoked.prefix(DecisionEngine.revokedLimit - 1)))
    }

    @Test("a campaign is over once either clock passed its end")
    func skew() {
        let decision = Self.decide([Self.campaign(1, end: 1)], serviceNow: Self.now.adding(seconds: 2))
        #expect(decision.campaign == nil && decision.revoked == [1])
    }

    @Test("paused, expired and deleted campaigns are not served, and are revoked: a paused one while it is paused")
    func states() {
        let decision = Self.decide([Self.campaign(1, state: .paused), Self.campaign(2, state: .expired), Self.campaign(3, state: .deleted)])
        #expect(decision.campaign == nil && Set(decision.revoked) == [1, 2, 3])
    }

    @Test("a campaign paused is revoked at once, and resumed it is served and no longer revoked (the index kept through the changes)")
    func pauseAndResume() {
        let live = Self.campaign(1)
        var paused = live
        paused.state = .paused
        let start = DecisionEngine.index([live], creatives: Self.held, preparer: .json)
        let whilePaused = DecisionEngine.reindex(start, changed: [(live, paused)], campaigns: [paused], creatives: Self.held, preparer: .json)
        var decision = DecisionEngine.decide(Self.request(), index: whilePaused["shop"], device: .unknown, now: Self.now)
        #expect(decision.campaign == nil && decision.revoked == [1])
        let resumed = DecisionEngine.reindex(whilePaused, changed: [(paused, live)], campaigns: [live], creatives: Self.held, preparer: .json)
        decision = DecisionEngine.decide(Self.request(), index: resumed["shop"], device: .unknown, now: Self.now)
        #expect(decision.campaign?.id == 1 && decision.revoked == [])
    }

    @Test("targeting: platform, version range (max exclusive), region, locale", arguments: [
        (Targeting(platforms: ["android"]), false), (Targeting(platforms: ["ios", "android"]), true),
        (Targeting(appVersions: VersionRange(min: "5.2")), true), (Targeting(appVersions: VersionRange(min: "5.3")), false),
        (Targeting(appVersions: VersionRange(max: "5.2.0")), false), (Targeting(appVersions: VersionRange(max: "5.2.1")), true),
        (Targeting(regions: ["cn-north"]), false), (Targeting(regions: ["cn-east"]), true),
        (Targeting(locales: ["en"]), false), (Targeting(locales: ["zh-cn"]), true),
    ])
    func targeting(_ targeting: Targeting, _ served: Bool) {
        #expect((Self.decide([Self.campaign(1, targeting: targeting)]).campaign != nil) == served)
    }

    @Test("a locale matches a targeted one in any case of its ASCII letters, and nothing else does", arguments: [
        ("zh-CN", true), ("zh-cn", true), ("ZH-CN", true), ("Zh-cN", true), ("zh-CN-x", false), ("zh-C", false),
        ("zh_CN", false), ("zh-CM", false), ("zh\u{2010}CN", false), ("zh-ÇN", false), ("", false), ("SK", true),
        // The Kelvin sign lower-cases to an ASCII "k", but it is not the letter.
        ("s\u{212A}", false), ("\u{212A}", false),
    ])
    func localeCase(_ locale: String, _ served: Bool) {
        // The reference: a targeted tag lower-cased, of the same length as the request's tag, equal to it lower-cased.
        #expect(["zh-cn", "en", "sk"].contains { $0.utf8.count == locale.utf8.count && $0 == locale.lowercased() } == served)
        let campaign = Self.campaign(1, targeting: Targeting(locales: ["zh-CN", "en", "sk"]))
        #expect((Self.decide([campaign], Self.request(locale: locale)).campaign != nil) == served)
    }

    @Test("a region matches a targeted one in any case of its ASCII letters, and nothing else does", arguments: [
        ("cn-east", true), ("CN-East", true), ("CN-EAST", true), ("cn-north", true), ("cn-eas", false), ("cn-east-1", false),
        ("cn_east", false), ("cn east", false), ("cn-\u{212A}ast", false), ("", false),
    ])
    func regionCase(_ region: String, _ served: Bool) {
        let campaign = Self.campaign(1, targeting: Targeting(regions: ["cn-east", "cn-north"]))
        #expect((Self.decide([campaign], Self.request(region: region)).campaign != nil) == served)
    }

    @Test("a region-targeted campaign needs the request's region")
    func regionRequired() {
        #expect(Self.decide([Self.campaign(1, targeting: Targeting(regions: ["cn-east"]))], Self.request(region: nil)).campaign == nil)
    }

    @Test("hot launches need the hot type and enough time in the background")
    func hot() {
        let hot = Self.campaign(1, launchTypes: [.hot], minBackground: 300)
        #expect(Self.decide([hot]).campaign == nil)  // a cold launch
        #expect(Self.decide([hot], Self.request(launchType: .hot, background: 100)).campaign == nil)
        #expect(Self.decide([hot], Self.request(launchType: .hot, background: 300)).campaign?.id == 1)
        #expect(Self.decide([Self.campaign(2)], Self.request(launchType: .hot, background: 1000)).campaign == nil)
    }

    @Test("frequency caps count the device's impressions in the window")
    func caps() {
        let capped = Self.campaign(1, cap: FrequencyCap(shows: 2, hours: 24))
        let twice = DeviceView.make(impressions: [1: [Self.now.adding(seconds: -3600), Self.now.adding(seconds: -60)]])
        #expect(Self.decide([capped], device: twice).campaign == nil)
        let longAgo = DeviceView.make(impressions: [1: [Self.now.adding(seconds: -90_000), Self.now.adding(seconds: -60)]])
        #expect(Self.decide([capped], device: longAgo).campaign?.id == 1)
    }

    @Test("forced first, then the highest priority")
    func order() {
        #expect(Self.decide([Self.campaign(1, priority: 90), Self.campaign(2, priority: 10, forced: true)]).campaign?.id == 2)
        #expect(Self.decide([Self.campaign(1, priority: 10), Self.campaign(2, priority: 90)]).campaign?.id == 2)
    }

    @Test("a creative the edge does not hold cannot be served")
    func heldOnly() {
        #expect(Self.decide([Self.campaign(1)], creatives: [:]).campaign == nil)
    }

    @Test("ties go by weight, within statistical bounds over many devices")
    func weights() {
        let campaigns = [Self.campaign(1, weight: 300), Self.campaign(2, weight: 100)]
        var first = 0
        let devices = 20_000
        // One index for all the devices (building it per decision would cost most of the test's time).
        let index = DecisionEngine.index(campaigns, creatives: Self.held, preparer: .json)["shop"]
        for device in 0..<devices
        where DecisionEngine.decide(Self.request(device: "d-\(device)"), index: index, device: .unknown, now: Self.now).campaign?.id == 1 {
            first += 1
        }
        // Expected 0.75; five standard deviations of a binomial over 20,000 is about 0.015.
        let share = Double(first) / Double(devices)
        #expect(abs(share - 0.75) < 0.015, "share \(share)")
    }

    @Test("the same device gets the same answer on retry, and the rotation moves on after an impression without repeats")
    func stability() {
        let campaigns = (1...4).map { Self.campaign(Int64($0)) }
        for device in 0..<50 {
            let request = Self.request(device: "d-\(device)")
            let first = Self.decide(campaigns, request).campaign?.id
            #expect(Self.decide(campaigns, request).campaign?.id == first)
            var view = DeviceView.unknown
            var seen: [Int64] = []
            for _ in 0..<4 {
                let id = Self.decide(campaigns, request, device: view).campaign!.id
                seen.append(id)
                view = DeviceView.make(seenCampaigns: view.seenCampaigns + [id], rotation: view.rotation + 1)
            }
            #expect(Set(seen) == [1, 2, 3, 4], "device \(device) saw \(seen)")
        }
    }

    @Test("rotation after rotation, a group's campaigns and a campaign's variants each show once per round, a new round never starting with the one shown last")
    func rotationRounds() throws {
        // Three creatives of one shape, and three campaigns of one priority whose weights differ: weights order a
        // round, they do not make a campaign repeat within one.
        let shape = (1...3).map { CreativeFacts(sha256: String(repeating: "\($0)", count: 64), contentType: "image/png", width: 1179, height: 2556, size: 100) }
        let creatives = Dictionary(uniqueKeysWithValues: shape.map { ($0.sha256, $0) })
        let campaigns = [Self.campaign(1, weight: 300, creatives: shape), Self.campaign(2, weight: 200, creatives: shape),
                         Self.campaign(3, weight: 100, creatives: shape)]
        let index = try #require(DecisionEngine.index(campaigns, creatives: creatives, preparer: .json)["shop"])
        let variantKeys = shape.map { DeviceView.variantKey($0.sha256) }
        for device in 0..<40 {
            let request = Self.request(device: "d-\(device)")
            var view = DeviceView.unknown
            var shown: [Int64] = [], variants: [UInt64] = []
            for _ in 0..<30 {
                let decision = DecisionEngine.decide(request, index: index, device: view, now: Self.now)
                let campaign = try #require(decision.campaign), variant = try #require(decision.held?.variantKey)
                shown.append(campaign.id)
                variants.append(variant)
                let next = DeviceView.rotated(campaigns: view.seenCampaigns, variants: view.variantKeys, after: campaign.id, variant: variant,
                                              group: { DecisionEngine.rotationGroup(of: campaign, in: index) }, campaignVariants: { variantKeys })
                view = DeviceView.make(seenCampaigns: next.campaigns, variantKeys: next.variants, rotation: view.rotation + 1)
            }
            for round in stride(from: 0, to: 30, by: 3) {
                #expect(Set(shown[round..<round + 3]) == [1, 2, 3], "device \(device) was shown \(shown)")
                #expect(Set(variants[round..<round + 3]) == Set(variantKeys), "device \(device) was shown variants \(variants)")
            }
            // Nor twice in a row, where one round ends and the next begins.
            #expect(zip(shown, shown.dropFirst()).allSatisfy { $0 != $1 }, "device \(device) was shown \(shown)")
            #expect(zip(variants, variants.dropFirst()).allSatisfy { $0 != $1 }, "device \(device) was shown variants \(variants)")
        }
    }

    @Test("a repeat starts the rotation of what it repeats over: the campaign's group, or the campaign's variants, and nothing else")
    func rotatedLists() {
        let none = DeviceView.rotated(campaigns: [4, 1, 2], variants: [40, 10], after: 3, variant: 30, group: { Issue.record("asked"); return [] },
                                      campaignVariants: { Issue.record("asked"); return [] })
        #expect(none.campaigns == [4, 1, 2, 3] && none.variants == [40, 10, 30])
        let again = DeviceView.rotated(campaigns: [4, 1, 2, 3], variants: [40, 10, 20, 30], after: 2, variant: 10, group: { [1, 2, 3] },
                                       campaignVariants: { [10, 20, 30] })
        #expect(again.campaigns == [4, 2] && again.variants == [40, 10])
        // A campaign no longer in any group (ended since) still moves to the end; full lists start over first.
        #expect(DeviceView.rotated(campaigns: [7, 8], variants: [], after: 7, variant: nil, group: { [] }, campaignVariants: { [] }).campaigns == [8, 7])
        let full = DeviceView.rotated(campaigns: (1...64).map(Int64.init), variants: (1...64).map(UInt64.init), after: 5, variant: 5,
                                      group: { [5] }, campaignVariants: { [5] })
        #expect(full.campaigns == [5] && full.variants == [5])
    }

    @Test("a device's view keeps its facts in one piece: campaigns and variants seen, impressions by campaign, the rotation")
    func deviceView() {
        let now = Self.now
        let sha256 = String(repeating: "0123456789abcdef", count: 4)
        let view = DeviceView.make(impressions: [7: [now.adding(seconds: -10), now.adding(seconds: -7200)], -1: [now], 3: []],
                                   seenCampaigns: [5, 9, 5, Int64.min], seenVariants: [sha256, "not hex", sha256], rotation: 12)
        #expect(view.rotation == 12)
        #expect(view.seenCampaigns == [5, 9, Int64.min])
        #expect(view.variantKeys == [0x0123_4567_89AB_CDEF, DeviceView.variantKey("not hex")])
        #expect(view.impressions == [7: [now.adding(seconds: -7200), now.adding(seconds: -10)], -1: [now]])
        #expect(view.shows(of: 7, hours: 1, now: now) == 1)
        #expect(view.shows(of: 7, hours: 3, now: now) == 2)
        #expect(view.shows(of: -1, hours: 1, now: now) == 1)
        #expect(view.shows(of: 3, hours: 3, now: now) == 0)
        #expect(view.hasSeen(variant: DeviceView.variantKey(sha256)))
        #expect(!view.hasSeen(variant: 0x0123_4567_89AB_CDEE))
        // Texts that are not sha256 digests (upper case, short, long) are hashed whole, never taken for a digest.
        #expect(DeviceView.variantKey("0123456789ABCDEF") != 0x0123_4567_89AB_CDEF)
        #expect(DeviceView.variantKey("0123") != DeviceView.variantKey("00123"))
        #expect(DeviceView.variantKey("") != DeviceView.variantKey("0"))
        #expect(DeviceView.variantKey(sha256 + "0") != DeviceView.variantKey(sha256))
        #expect(DeviceView.unknown.seenCampaigns.isEmpty && DeviceView.unknown.impressions.isEmpty && DeviceView.unknown.rotation == 0)
    }

    @Test("an uncapped impression written straight from a device's view gives the view that make gives for the same facts")
    func seeingUncapped() {
        var random = SeededRandom(seed: 0x5EE1)
        let now = Self.now
        for step in 0..<400 {
            // Up to 70 campaigns and variants seen (so past the rotation's limit at times) and a few campaigns' times.
            let seen = (0..<random.index(71)).map { _ in Int64(random.index(1_000)) }
            let variants = (0..<random.index(71)).map { _ in UInt64(random.index(1_000)) &* 0x9E37_79B9_7F4A_7C15 }
            var impressions: [Int64: [Timestamp]] = [:]
            for _ in 0..<random.index(12) {
                impressions[Int64(random.index(8)) * 125, default: []].append(now.adding(seconds: -Double(random.index(20_000))))
            }
            let view = step == 0 ? DeviceView.unknown
                : DeviceView.make(impressions: impressions, seenCampaigns: seen, variantKeys: variants, rotation: random.index(1_000))
            let campaign: Int64
            switch random.index(3) {
            case 0: campaign = seen.isEmpty ? 3 : seen[random.index(seen.count)]
            case 1: campaign = impressions.keys.sorted().first ?? 4
            default: campaign = Int64(random.index(1_000))
            }
            let variant: UInt64? = random.chance(0.2) ? nil
                : random.chance(0.5) && !variants.isEmpty ? variants[random.index(variants.count)] : UInt64(random.index(1_000)) &* 3
            let fast = view.seeing(uncapped: campaign, variant: variant)
            // The same facts the general way.
            var times = view.impressions
            times[campaign] = nil
            var campaigns = view.seenCampaigns, keys = view.variantKeys
            if campaigns.count >= DeviceView.rotationLimit { campaigns.removeAll() }
            if keys.count >= DeviceView.rotationLimit { keys.removeAll() }
            campaigns.append(campaign)
            if let variant { keys.append(variant) }
            let general = DeviceView.make(impressions: times, seenCampaigns: campaigns, variantKeys: keys, rotation: view.rotation + 1)
            #expect(fast.rotation == general.rotation && fast.seenCampaigns == general.seenCampaigns, "step \(step)")
            #expect(fast.variantKeys == general.variantKeys && fast.impressions == general.impressions, "step \(step)")
            // The times are laid out as the count of shows expects: grouped by campaign, oldest first.
            for id in stride(from: Int64(0), through: 875, by: 125) {
                #expect(fast.shows(of: id, hours: 3, now: now) == general.shows(of: id, hours: 3, now: now), "step \(step), campaign \(id)")
            }
        }
    }

    @Test("a device's impressions in a window are counted as the times themselves say, for any campaign")
    func showsCounted() {
        var random = SeededRandom(seed: 11)
        for _ in 0..<300 {
            var impressions: [Int64: [Timestamp]] = [:]
            for _ in 0..<random.index(6) {
                let campaign = Int64(random.index(9)) - 4
                impressions[campaign, default: []].append(Self.now.adding(seconds: -Double(random.index(100_000))))
            }
            let view = DeviceView.make(impressions: impressions)
            for campaign in -5...5 {
                let hours = 1 + random.index(30)
                let since = Self.now.milliseconds - Int64(hours) * 3_600_000
                let expected = impressions[Int64(campaign)]?.filter { $0.milliseconds > since }.count ?? 0
                #expect(view.shows(of: Int64(campaign), hours: hours, now: Self.now) == expected, "\(impressions), \(campaign)")
            }
        }
    }

    @Test("variants rotate without repeats: a variant the device has seen goes after those it has not")
    func variants() {
        let twin = CreativeFacts(sha256: String(repeating: "d", count: 64), contentType: "image/png", width: 1179, height: 2556, size: 1)
        let campaign = Self.campaign(1, creatives: [Self.tall, twin])
        var creatives = Self.held
        creatives[twin.sha256] = twin
        for device in 0..<40 {
            let request = Self.request(device: "d-\(device)")
            let first = Self.decide([campaign], request, creatives: creatives).creative!
            let other = first == twin ? Self.tall : twin
            let seenFirst = DeviceView.make(seenCampaigns: [1], seenVariants: [first.sha256], rotation: 1)
            #expect(Self.decide([campaign], request, device: seenFirst, creatives: creatives).creative == other)
            let seenBoth = DeviceView.make(seenCampaigns: [1], seenVariants: [first.sha256, other.sha256], rotation: 2)
            #expect(Self.decide([campaign], request, device: seenBoth, creatives: creatives).creative != nil)
        }
    }

    @Test("the creative nearest the screen's aspect ratio, preferring one the client holds")
    func creatives() {
        let campaign = Self.campaign(1, creatives: [Self.tall, Self.wide, Self.square])
        #expect(Self.decide([campaign], Self.request(screen: (1179, 2556))).creative == Self.tall)
        #expect(Self.decide([campaign], Self.request(screen: (1080, 1920))).creative == Self.wide)
        #expect(Self.decide([campaign], Self.request(screen: (2000, 2000))).creative == Self.square)
        // Two variants of the same shape: the one the client holds.
        let twin = CreativeFacts(sha256: String(repeating: "d", count: 64), contentType: "image/png", width: 1179, height: 2556, size: 1)
        let both = Self.campaign(2, creatives: [Self.tall, twin])
        var creatives = Self.held
        creatives[twin.sha256] = twin
        for device in 0..<20 {
            #expect(Self.decide([both], Self.request(device: "d-\(device)", cached: [twin.sha256]), creatives: creatives).creative == twin)
        }
    }

    @Test("showMoment: now when forced or when the client holds the creative chosen, later when it holds none or only others")
    func showMoment() {
        for creatives in [[Self.tall], [Self.tall, Self.wide, Self.square]] {
            let campaign = Self.campaign(1, creatives: creatives), forced = Self.campaign(2, forced: true, creatives: creatives)
            let cases: [(Set<String>, ShowMoment)] = [
                ([], .later), ([Self.tall.sha256], .now), ([Self.wide.sha256, Self.tall.sha256], .now), ([Self.wide.sha256], .later),
                ([String(repeating: "e", count: 64)], .later),
            ]
            for (cached, moment) in cases {
                let decision = Self.decide([campaign], Self.request(cached: cached))
                #expect(decision.creative == Self.tall && decision.showMoment == moment, "\(creatives.count) creatives, cached \(cached)")
                #expect(Self.decide([forced], Self.request(cached: cached)).showMoment == .now)
            }
        }
        #expect(Self.decide([]).campaign == nil && Self.decide([]).showMoment == .later)
    }

    @Test("a screen's creatives: the nearest shape (all without a screen), and every creative a query from it is answered with")
    func creativesForScreen() throws {
        let twin = CreativeFacts(sha256: String(repeating: "d", count: 64), contentType: "image/png", width: 1170, height: 2532, size: 1)
        var creatives = Self.held
        creatives[twin.sha256] = twin
        let campaign = Self.campaign(1, creatives: [Self.tall, Self.wide, Self.square, twin])
        let candidate = try #require(DecisionEngine.index([campaign], creatives: creatives, preparer: .json)["shop"]?.candidates.first)
        func shas(_ screen: (width: Int, height: Int)?) -> [String] { DecisionEngine.creatives(of: candidate, for: screen).map(\.facts.sha256) }
        // 1179x2556 and 1170x2532 differ by 0.1% in shape: both are the nearest, in the campaign's order.
        #expect(shas((width: 1179, height: 2556)) == [Self.tall.sha256, twin.sha256])
        #expect(shas((width: 1080, height: 1920)) == [Self.wide.sha256])
        #expect(shas((width: 1440, height: 2560)) == [Self.wide.sha256])  // the same shape, larger
        #expect(shas((width: 2000, height: 2000)) == [Self.square.sha256])
        #expect(shas((width: 4000, height: 1000)) == [Self.square.sha256])  // nothing close: still the nearest
        #expect(shas(nil) == [Self.tall.sha256, Self.wide.sha256, Self.square.sha256, twin.sha256])
        #expect(shas((width: 0, height: 100)) == shas(nil))
        let single = try #require(DecisionEngine.index([Self.campaign(2, creatives: [Self.square])], creatives: creatives, preparer: .json)["shop"]?.candidates.first)
        #expect(DecisionEngine.creatives(of: single, for: (width: 1179, height: 2556)).map(\.facts.sha256) == [Self.square.sha256])
        // What a query answers is always among what the same screen's list holds, whatever the device, the screen
        // and the creatives it holds.
        var random = SeededRandom(seed: 0xA5BEC7)
        for step in 0..<500 {
            let screen = (200 + random.index(2801), 200 + random.index(2801))
            let cached: Set<String> = random.chance(0.3) ? [Self.square.sha256, twin.sha256] : []
            let answer = Self.decide([campaign], Self.request(device: "d-\(step)", screen: screen, cached: cached), creatives: creatives)
            let listed = shas((width: screen.0, height: screen.1))
            #expect(answer.creative.map { listed.contains($0.sha256) } == true, "screen \(screen)")
        }
    }

    @Test("the nearest shape, compared by ratios of aspect ratios, is the nearest by their logarithms' distance, tolerance included")
    func nearestShapeByRatios() throws {
        // The rule as written: a creative is among the nearest when |log(its aspect) − log(the screen's)| is at most
        // the nearest one's plus the tolerance. Seeded shapes land around that bound (each a step of 0.5% from the
        // screen's shape), on both sides of it, so a rule that added the tolerance to a ratio would be caught.
        // The factor the rule compares ratios with is the tolerance's exponential (a literal in the engine).
        #expect(DecisionEngine.aspectFactor == exp(DecisionEngine.aspectTolerance))
        var random = SeededRandom(seed: 0x5A4E)
        for step in 0..<400 {
            let screen = (width: 300 + random.index(2700), height: 300 + random.index(2700))
            let screenLog = log(Double(screen.width) / Double(screen.height))
            let facts = (0..<(2 + random.index(4))).map { offset in
                let height = 500 + random.index(2500)
                let width = max(1, Int((exp(screenLog + Double(random.index(17) - 8) * 0.005) * Double(height)).rounded()))
                let sha = String(step * 8 + offset, radix: 16)
                return CreativeFacts(sha256: String(repeating: "0", count: 64 - sha.count) + sha, contentType: "image/png",
                                     width: width, height: height, size: 1)
            }
            let campaign = Self.campaign(1, creatives: facts)
            let index = DecisionEngine.index([campaign], creatives: Dictionary(uniqueKeysWithValues: facts.map { ($0.sha256, $0) }), preparer: .json)
            let candidate = try #require(index["shop"]?.candidates.first)
            let distances = facts.map { abs(log(Double($0.width) / Double($0.height)) - screenLog) }
            let limit = distances.min()! + 0.02
            let expected = zip(facts, distances).filter { $0.1 <= limit }.map(\.0.sha256)
            #expect(DecisionEngine.creatives(of: candidate, for: screen).map(\.facts.sha256) == expected, "screen \(screen), shapes \(facts.map { ($0.width, $0.height) })")
        }
    }

    @Test("reindexing the apps a change touches gives the index built from scratch")
    func reindex() {
        // A seeded walk of 400 changes over 40 campaigns in 5 apps: new campaigns, moves between apps, every state,
        // priority and forced changes; after each, the kept index and a fresh one must agree app by app.
        var seed: UInt64 = 0x5EED
        func next(_ bound: Int) -> Int {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Int((seed >> 33) % UInt64(bound))
        }
        func shape(_ index: [String: AppIndex]) -> [String: [[Int64]]] {
            index.mapValues { [$0.candidates.map(\.campaign.id), $0.revoked] }
        }
        var campaigns: [Int64: Campaign] = [:]
        var index = DecisionEngine.index([], creatives: Self.held, preparer: .json)
        let states: [CampaignState] = [.scheduled, .live, .paused, .expired, .deleted]
        for step in 0..<400 {
            var campaign = Self.campaign(Int64(next(40)), priority: next(5), forced: next(4) == 0, state: states[next(states.count)])
            campaign.app = "app-\(next(5))"
            campaign.updatedAt = Self.now.adding(seconds: Double(step))
            var touched: Set<String> = [campaign.app]
            if let old = campaigns.updateValue(campaign, forKey: campaign.id) { touched.insert(old.app) }
            index = DecisionEngine.reindex(index, apps: touched, campaigns: campaigns.values, creatives: Self.held, preparer: .json)
            let fresh = DecisionEngine.index(campaigns.values, creatives: Self.held, preparer: .json)
            #expect(shape(index) == shape(fresh), "after change \(step)")
        }
        #expect(!index.isEmpty)
    }
}
