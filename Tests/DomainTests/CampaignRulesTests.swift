import Foundation
import JSONRPC
import LaunchAdDomain
import SeededRandomness
import Testing

@Suite("Campaign rules", .timeLimit(.minutes(1)))
struct CampaignRulesTests {
    static let now = Timestamp(rfc3339: "2026-11-21T12:00:00Z")!
    static let known = String(repeating: "a", count: 64)
    static let other = String(repeating: "b", count: 64)

    static var valid: CampaignFields {
        CampaignFields(name: "Double 12", app: "shop", startsAt: now.adding(seconds: 3600), endsAt: now.adding(seconds: 7200),
                       creatives: [CreativeRef(sha256: known)])
    }

    static func create(_ change: (inout CampaignFields) -> Void) throws(FieldError) -> Campaign {
        var fields = valid
        change(&fields)
        return try CampaignRules.create(fields, id: 1, now: now, creativeExists: { $0 == known || $0 == other })
    }

    @Test("defaults fill what is absent")
    func defaults() throws {
        let campaign = try Self.create { _ in }
        #expect(campaign.priority == 50 && campaign.weight == 100 && campaign.countdown == 3)
        #expect(campaign.skippable && !campaign.forced && campaign.launchTypes == [.cold])
        #expect(campaign.jump == .none && campaign.targeting == .everyone && campaign.state == .scheduled && campaign.version == 1)
    }

    @Test("every rule is refused with its field", arguments: [
        ("name", with { (f: inout CampaignFields) in f.name = "  " }),
        ("name", with { (f: inout CampaignFields) in f.name = nil }),
        ("name", with { (f: inout CampaignFields) in f.name = String(repeating: "x", count: 201) }),
        ("app", with { (f: inout CampaignFields) in f.app = "Shop" }),
        ("app", with { (f: inout CampaignFields) in f.app = "" }),
        ("startsAt", with { (f: inout CampaignFields) in f.startsAt = nil }),
        ("endsAt", with { (f: inout CampaignFields) in f.endsAt = now.adding(seconds: 1800) }),
        ("endsAt", with { (f: inout CampaignFields) in f.startsAt = now.adding(seconds: -7200); f.endsAt = now.adding(seconds: -60) }),
        ("priority", with { (f: inout CampaignFields) in f.priority = 101 }),
        ("priority", with { (f: inout CampaignFields) in f.priority = -1 }),
        ("weight", with { (f: inout CampaignFields) in f.weight = 0 }),
        ("weight", with { (f: inout CampaignFields) in f.weight = 1001 }),
        ("countdown", with { (f: inout CampaignFields) in f.countdown = 11 }),
        ("countdown", with { (f: inout CampaignFields) in f.countdown = 0 }),
        ("skipAfter", with { (f: inout CampaignFields) in f.skipAfter = 4 }),
        ("skipAfter", with { (f: inout CampaignFields) in f.skippable = false; f.skipAfter = 1 }),
        ("launchTypes", with { (f: inout CampaignFields) in f.launchTypes = [] }),
        ("launchTypes", with { (f: inout CampaignFields) in f.launchTypes = [.cold, .cold] }),
        ("minBackgroundSeconds", with { (f: inout CampaignFields) in f.launchTypes = [.hot] }),
        ("minBackgroundSeconds", with { (f: inout CampaignFields) in f.minBackgroundSeconds = 30 }),
        ("jump.value", with { (f: inout CampaignFields) in f.jump = Jump(type: .url, value: "ftp://x") }),
        ("jump.value", with { (f: inout CampaignFields) in f.jump = Jump(type: .url, value: "https://") }),
        ("jump.value", with { (f: inout CampaignFields) in f.jump = Jump(type: .url, value: "https://a b") }),
        ("jump.value", with { (f: inout CampaignFields) in f.jump = Jump(type: .deeplink, value: "javascript:alert(1)") }),
        ("jump.value", with { (f: inout CampaignFields) in f.jump = Jump(type: .deeplink, value: "noscheme") }),
        ("jump.value", with { (f: inout CampaignFields) in f.jump = Jump(type: .none, value: "x") }),
        ("creatives", with { (f: inout CampaignFields) in f.creatives = [] }),
        ("creatives[0].sha256", with { (f: inout CampaignFields) in f.creatives = [CreativeRef(sha256: "ABC")] }),
        ("creatives[0].sha256", with { (f: inout CampaignFields) in f.creatives = [CreativeRef(sha256: String(repeating: "c", count: 64))] }),
        ("creatives[1].sha256", with { (f: inout CampaignFields) in f.creatives = [CreativeRef(sha256: known), CreativeRef(sha256: known)] }),
        ("creatives[1].weight", with { (f: inout CampaignFields) in f.creatives = [CreativeRef(sha256: known), CreativeRef(sha256: other, weight: 0)] }),
        ("targeting.platforms[1]", with { (f: inout CampaignFields) in f.targeting = Targeting(platforms: ["ios", "symbian"]) }),
        ("targeting.platforms", with { (f: inout CampaignFields) in f.targeting = Targeting(platforms: []) }),
        ("targeting.appVersions.min", with { (f: inout CampaignFields) in f.targeting = Targeting(appVersions: VersionRange(min: "5.x")) }),
        ("targeting.appVersions.max", with { (f: inout CampaignFields) in f.targeting = Targeting(appVersions: VersionRange(min: "5.2", max: "5.2.0")) }),
        ("targeting.regions[0]", with { (f: inout CampaignFields) in f.targeting = Targeting(regions: ["CN East"]) }),
        ("targeting.locales[0]", with { (f: inout CampaignFields) in f.targeting = Targeting(locales: ["chinese"]) }),
        ("targeting.regions", with { (f: inout CampaignFields) in f.targeting = Targeting(regions: (0...CampaignRules.maxTargets).map { "r\($0)" }) }),
        ("targeting.locales", with { (f: inout CampaignFields) in f.targeting = Targeting(locales: Array(repeating: "zh-CN", count: CampaignRules.maxTargets + 1)) }),
        ("frequencyCap.shows", with { (f: inout CampaignFields) in f.frequencyCap = FrequencyCap(shows: 0, hours: 24) }),
        ("frequencyCap.hours", with { (f: inout CampaignFields) in f.frequencyCap = FrequencyCap(shows: 1, hours: 721) }),
    ])
    func refuses(_ field: String, _ fields: CampaignFields) {
        do {
            _ = try CampaignRules.create(fields, id: 1, now: Self.now, creativeExists: { $0 == Self.known || $0 == Self.other })
            Issue.record("accepted")
        } catch {
            #expect(error.field == field, "\(error)")
        }
    }

    static func with(_ change: (inout CampaignFields) -> Void) -> CampaignFields {
        var fields = valid
        change(&fields)
        return fields
    }

    @Test("a full campaign round-trips every field through JSON")
    func roundTrip() throws {
        let campaign = try Self.create { fields in
            fields.priority = 90
            fields.weight = 7
            fields.forced = true
            fields.countdown = 5
            fields.skipAfter = 2
            fields.launchTypes = [.cold, .hot]
            fields.minBackgroundSeconds = 600
            fields.jump = Jump(type: .deeplink, value: "shop://promo/1212?x=1")
            fields.creatives = [CreativeRef(sha256: Self.known, weight: 3), CreativeRef(sha256: Self.other, weight: 1)]
            fields.targeting = Targeting(platforms: ["ios", "android"], appVersions: VersionRange(min: "5.0", max: "6"),
                                         regions: ["cn-east"], locales: ["zh-CN", "en"])
            fields.frequencyCap = FrequencyCap(shows: 2, hours: 24)
        }
        let json = try JSONValueEncoder().encode(campaign)
        #expect(json["startsAt"] == "2026-11-21T13:00:00Z")
        #expect(try JSONValueDecoder().decode(Campaign.self, from: json) == campaign)
    }

    @Test("the state machine allows what it should, and refuses the rest")
    func transitions() throws {
        var campaign = try Self.create { _ in }
        campaign = try CampaignRules.apply(.paused, to: campaign, now: Self.now)
        #expect(campaign.state == .paused && campaign.version == 2)
        #expect(throws: TransitionError.self) { try CampaignRules.apply(.paused, to: campaign, now: Self.now) }
        campaign = try CampaignRules.apply(.resumed, to: campaign, now: Self.now.adding(seconds: 4000))
        #expect(campaign.state == .live)
        campaign = try CampaignRules.apply(.forced, to: campaign, now: Self.now)
        #expect(campaign.forced)
        campaign = try CampaignRules.apply(.expired, to: campaign, now: Self.now)
        #expect(campaign.state == .expired)
        for operation in [CampaignOperation.forced, .paused, .resumed, .expired] {
            #expect(throws: TransitionError.self) { try CampaignRules.apply(operation, to: campaign, now: Self.now) }
        }
        #expect(throws: CampaignRuleError.self) {
            try CampaignRules.update(campaign, with: CampaignFields(name: "x"), now: Self.now, creativeExists: { _ in true })
        }
        campaign = try CampaignRules.apply(.deleted, to: campaign, now: Self.now)
        #expect(campaign.state == .deleted)
        #expect(throws: TransitionError.self) { try CampaignRules.apply(.deleted, to: campaign, now: Self.now) }
    }

    @Test("time makes a scheduled campaign live at its start and anything not final expired at its end")
    func timeTransitions() throws {
        let campaign = try Self.create { _ in }
        #expect(CampaignRules.timeTransition(of: campaign, now: Self.now) == nil)
        #expect(CampaignRules.nextTransition(of: campaign) == campaign.startsAt)
        let started = try #require(CampaignRules.timeTransition(of: campaign, now: campaign.startsAt))
        #expect(started.0 == .updated && started.1.state == .live)
        #expect(CampaignRules.nextTransition(of: started.1) == campaign.endsAt)
        let ended = try #require(CampaignRules.timeTransition(of: started.1, now: campaign.endsAt))
        #expect(ended.0 == .expired && ended.1.state == .expired)
        let paused = try CampaignRules.apply(.paused, to: campaign, now: Self.now)
        #expect(CampaignRules.timeTransition(of: paused, now: campaign.endsAt)?.1.state == .expired)
    }

    @Test("an update keeps other fields, grows the version and is validated whole")
    func update() throws {
        let campaign = try Self.create { _ in }
        let updated = try CampaignRules.update(campaign, with: CampaignFields(priority: 80), now: Self.now, creativeExists: { _ in true })
        #expect(updated.priority == 80 && updated.name == campaign.name && updated.version == 2)
        #expect(throws: CampaignRuleError.field(FieldError("priority", "must be between 0 and 100"))) {
            try CampaignRules.update(campaign, with: CampaignFields(priority: 500), now: Self.now, creativeExists: { _ in true })
        }
    }

    @Test("goal and pacing: even by default with a goal, asap when asked, kept by other updates; a pacing without a goal and a goal out of 1...10^12 refused naming the field")
    func goalAndPacing() throws {
        let plain = try Self.create { _ in }
        #expect(plain.goal == nil && plain.pacing == nil)
        let daily = CampaignGoal(impressions: 1_000_000, per: .day)
        let even = try Self.create { $0.goal = daily }
        #expect(even.goal == daily && even.pacing == .even)
        let asap = try Self.create { $0.goal = CampaignGoal(impressions: 1_000_000_000_000, per: .campaign); $0.pacing = .asap }
        #expect(asap.pacing == .asap && asap.goal?.per == .campaign)
        // A goal given later takes the default pacing; a rename keeps both.
        let paced = try CampaignRules.update(plain, with: CampaignFields(goal: daily), now: Self.now, creativeExists: { _ in true })
        #expect(paced.goal == daily && paced.pacing == .even)
        let renamed = try CampaignRules.update(asap, with: CampaignFields(name: "renamed"), now: Self.now, creativeExists: { _ in true })
        #expect(renamed.goal == asap.goal && renamed.pacing == .asap)

        #expect(throws: FieldError("pacing", "applies only with a goal")) { try Self.create { $0.pacing = .even } }
        #expect(throws: CampaignRuleError.field(FieldError("pacing", "applies only with a goal"))) {
            try CampaignRules.update(plain, with: CampaignFields(pacing: .asap), now: Self.now, creativeExists: { _ in true })
        }
        for impressions in [0, -1, 1_000_000_000_001] {
            #expect(throws: FieldError("goal.impressions", "must be between 1 and 1000000000000")) {
                try Self.create { $0.goal = CampaignGoal(impressions: impressions, per: .day) }
            }
        }
        #expect(try Self.create { $0.goal = CampaignGoal(impressions: 1, per: .day) }.goal?.impressions == 1)
    }

    @Test("display and clickArea: absent at create (the phone's defaults, full and button), set by an update, kept by the next")
    func displayAndClickArea() throws {
        let campaign = try Self.create { _ in }
        #expect(campaign.display == nil && campaign.clickArea == nil)
        let half = try CampaignRules.update(campaign, with: CampaignFields(display: .half, clickArea: .full), now: Self.now,
                                            creativeExists: { _ in true })
        #expect(half.display == .half && half.clickArea == .full)
        let renamed = try CampaignRules.update(half, with: CampaignFields(name: "renamed"), now: Self.now, creativeExists: { _ in true })
        #expect(renamed.display == .half && renamed.clickArea == .full)
        let created = try Self.create { $0.display = .half }
        #expect(created.display == .half && created.clickArea == nil)
    }

    @Test("videoSound: absent at create (muted), set and cleared by updates, kept by others, round-tripped; a non-boolean refused naming it")
    func videoSound() throws {
        let campaign = try Self.create { _ in }
        #expect(campaign.videoSound == nil)
        let sound = try CampaignRules.update(campaign, with: CampaignFields(videoSound: true), now: Self.now, creativeExists: { _ in true })
        #expect(sound.videoSound == true)
        let renamed = try CampaignRules.update(sound, with: CampaignFields(name: "renamed"), now: Self.now, creativeExists: { _ in true })
        #expect(renamed.videoSound == true)
        let muted = try CampaignRules.update(renamed, with: CampaignFields(videoSound: false), now: Self.now, creativeExists: { _ in true })
        #expect(muted.videoSound == false)
        #expect(try Self.create { $0.videoSound = true }.videoSound == true)

        // Through JSON: the campaign's own reader and its Codable conformance alike.
        let decoder = JSONValueDecoder()
        let bytes = try JSONValueEncoder().encodeJSON(sound)
        #expect(String(decoding: bytes, as: UTF8.self).contains(#""videoSound":true"#))
        #expect(try decoder.decode(Campaign.self, fromJSON: bytes) == sound)
        #expect(try decoder.decode(Campaign.self, from: JSONValueEncoder().encode(sound)) == sound)
        #expect(try decoder.decode(CampaignFields.self, fromJSON: Array(#"{"videoSound":true}"#.utf8)) == CampaignFields(videoSound: true))

        // A non-boolean is refused with the field named: in an operator's fields, and in a campaign read from a peer.
        var object = try #require(JSONValueEncoder().encode(sound).objectValue)
        for value in [JSONValue.string("yes"), .number(JSONNumber(1))] {
            object["videoSound"] = value
            let campaignText = Array(JSONValue.object(object).jsonText.utf8)
            let fieldsText = Array(JSONValue.object(["videoSound": value]).jsonText.utf8)
            for attempt in [{ _ = try decoder.decode(Campaign.self, fromJSON: campaignText) },
                            { _ = try decoder.decode(CampaignFields.self, fromJSON: fieldsText) }] as [() throws -> Void] {
                do {
                    try attempt()
                    Issue.record("\(value) taken")
                } catch let error as DecodingError {
                    #expect(error.fieldPath == "videoSound", "\(value): \(error)")
                } catch {
                    Issue.record("\(error)")
                }
            }
        }
    }
}

@Suite("Timestamps and versions", .timeLimit(.minutes(1)))
struct TimestampTests {
    @Test("RFC 3339 parses with offsets and fractions, and writes UTC", arguments: [
        ("2026-12-12T00:00:00Z", "2026-12-12T00:00:00Z"),
        ("2026-12-12T00:00:00+08:00", "2026-12-11T16:00:00Z"),
        ("2026-12-12T00:00:00.5-01:30", "2026-12-12T01:30:00.500Z"),
        ("1969-12-31T23:59:59.999Z", "1969-12-31T23:59:59.999Z"),
        ("2024-02-29T12:00:00z", "2024-02-29T12:00:00Z"),
    ])
    func parses(_ text: String, _ utc: String) throws {
        let timestamp = try #require(Timestamp(rfc3339: text))
        #expect(timestamp.rfc3339 == utc)
        #expect(Timestamp(rfc3339: utc) == timestamp)
    }

    @Test("written as the C library's calendar gives it, to the millisecond, years 0 to 9999 (seeded), and read back")
    func writesTheCalendar() throws {
        var random = SeededRandom(seed: 3339)
        let first: Int64 = -62_167_219_200_000, last: Int64 = 253_402_300_799_999  // 0000-01-01, 9999-12-31T23:59:59.999
        var samples: [Int64] = [first, last, 0, -1, 1, 951_782_400_000, -2_203_891_200_000, 1_790_000_000_123]
        for _ in 0..<20_000 {
            let value = first + Int64(bitPattern: random.next() % UInt64(last - first + 1))
            samples.append(random.chance(0.5) ? value - value % 1000 : value)
        }
        for milliseconds in samples {
            let seconds = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
            var time = time_t(seconds)
            var parts = tm()
            try #require(gmtime_r(&time, &parts) != nil)
            var expected = String(format: "%04d-%02d-%02dT%02d:%02d:%02d", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
                                  Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
            let millis = milliseconds - seconds * 1000
            if millis != 0 { expected += String(format: ".%03d", Int(millis)) }
            expected += "Z"
            let timestamp = Timestamp(milliseconds: milliseconds)
            #expect(timestamp.rfc3339 == expected)
            #expect(Timestamp(rfc3339: timestamp.rfc3339) == timestamp)
            if timestamp.rfc3339 != expected { return }
        }
        // Past year 9999 the year takes the digits it needs.
        #expect(Timestamp(milliseconds: last + 1).rfc3339 == "10000-01-01T00:00:00Z")
        #expect(Timestamp(milliseconds: last + 1 + 86_400_000 + 61_001).rfc3339 == "10000-01-02T00:01:01.001Z")
    }

    @Test("refuses what is not RFC 3339", arguments: ["2026-12-12", "2026-12-12T00:00Z", "2026-13-01T00:00:00Z",
                                                       "2025-02-29T00:00:00Z", "2026-12-12T24:00:00Z", "2026-12-12T00:00:00",
                                                       "2026-12-12T00:00:00+8:00", "2026-12-12T00:00:00.Z", "now", ""])
    func refuses(_ text: String) {
        #expect(Timestamp(rfc3339: text) == nil)
    }

    @Test("the wall clock read directly agrees with Date to the millisecond, and moves by its offset")
    func wallClock() throws {
        for _ in 0..<100 {
            let before = Timestamp(seconds: Date().timeIntervalSince1970)
            let now = Timestamp.now()
            let after = Timestamp(seconds: Date().timeIntervalSince1970)
            // Within a millisecond: Date's floating point can round a reading at a half millisecond the other way.
            #expect(before.milliseconds - 1 <= now.milliseconds && now.milliseconds <= after.milliseconds + 1, "\(before) \(now) \(after)")
        }
        let shifted = Timestamp.now(offset: 3600).milliseconds - Timestamp.now().milliseconds
        #expect(abs(shifted - 3_600_000) <= 5)
    }

    @Test("app versions compare number by number")
    func versions() throws {
        #expect(try #require(AppVersion("5.2")) == #require(AppVersion("5.2.0")))
        #expect(try #require(AppVersion("5.10")) > #require(AppVersion("5.9.9")))
        #expect(AppVersion("5..1") == nil && AppVersion("v5") == nil && AppVersion("1.2.3.4.5") == nil)
        for refused in ["", ".", "1.", ".1", "1234567890", "1.2.3.4.", "-1", " 1", "1 ", "1.2a", "١"] {
            #expect(AppVersion(refused) == nil, "\(refused)")
        }
        #expect(AppVersion("999999999.999999999.999999999.999999999")?.parts == [999_999_999, 999_999_999, 999_999_999, 999_999_999])
        #expect(AppVersion("007.1")?.parts == [7, 1])
    }

    @Test("app versions order, equal and hash as their numbers do, missing numbers counting as 0 (seeded)")
    func versionsAgainstNumbers() throws {
        var random = SeededRandom(seed: 7)
        func number() -> Int { [0, 1, 2, 9, 10, 99, 100, 999_999_999, Int.random(in: 0...999_999_999, using: &random)].randomElement(using: &random)! }
        let versions = (0..<300).map { _ in (0..<Int.random(in: 1...4, using: &random)).map { _ in number() } }
        func padded(_ parts: [Int]) -> [Int] { parts + Array(repeating: 0, count: 4 - parts.count) }
        for left in versions {
            let a = try #require(AppVersion(left.map(String.init).joined(separator: ".")))
            #expect(a.parts == left)
            for right in versions.prefix(60) {
                let b = try #require(AppVersion(right.map(String.init).joined(separator: ".")))
                #expect((a < b) == padded(left).lexicographicallyPrecedes(padded(right)))
                #expect((a == b) == (padded(left) == padded(right)))
                if a == b { #expect(a.hashValue == b.hashValue) }
            }
        }
    }
}
