@testable import AdminCommands
import ArgumentParser
import Foundation
import LaunchAdDomain
import Testing

@Suite("adctl merges campaign flags and a JSON file into the fields it sends", .timeLimit(.minutes(1)))
struct CampaignFieldOptionsTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func fields(_ arguments: [String], base: CampaignFields? = nil) throws -> CampaignFields {
        try CampaignFieldOptions.parse(arguments).fields(base: base, now: now)
    }

    /// The reason the flags are refused, or nil when they are taken.
    static func refusal(_ arguments: [String]) -> String? {
        do {
            _ = try fields(arguments)
            return nil
        } catch let error as ValidationError {
            return error.message
        } catch {
            return "unexpected \(error)"
        }
    }

    /// A JSON file in a fresh folder, removed by `body`'s end.
    static func withFile<T>(_ json: String, _ body: (String) throws -> T) throws -> T {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("adctl-fields-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("campaign.json")
        try Data(json.utf8).write(to: file)
        return try body(file.path)
    }

    @Test("only the fields given are set: an update sends nothing else")
    func onlyGiven() throws {
        #expect(try Self.fields([]) == CampaignFields())
        #expect(try Self.fields(["--priority", "90"]) == CampaignFields(priority: 90))
        #expect(try Self.fields(["--forced", "false", "--skippable", "true"]) == CampaignFields(forced: false, skippable: true))
    }

    @Test("--video-sound and --no-video-sound set videoSound, the last one given winning; neither leaves it out, also over a file's")
    func videoSound() throws {
        #expect(try Self.fields(["--video-sound"]) == CampaignFields(videoSound: true))
        #expect(try Self.fields(["--no-video-sound"]) == CampaignFields(videoSound: false))
        #expect(try Self.fields(["--video-sound", "--no-video-sound"]).videoSound == false)
        #expect(try Self.fields(["--priority", "90"]).videoSound == nil)
        let fromFile = try Self.withFile(#"{"videoSound": true}"#) { path in
            (try Self.fields(["--file", path]).videoSound, try Self.fields(["--file", path, "--no-video-sound"]).videoSound)
        }
        #expect(fromFile.0 == true && fromFile.1 == false)
        #expect(Self.refusal(["--video-sound", "true"]) != nil)
    }

    @Test("--goal with --per sets goal, --pacing sets pacing; --goal without --per, --per without --goal and unknown words refused")
    func goalAndPacing() throws {
        #expect(try Self.fields(["--goal", "1000000", "--per", "day", "--pacing", "even"])
                == CampaignFields(goal: CampaignGoal(impressions: 1_000_000, per: .day), pacing: .even))
        #expect(try Self.fields(["--goal", "5", "--per", "campaign"]) == CampaignFields(goal: CampaignGoal(impressions: 5, per: .campaign)))
        #expect(try Self.fields(["--pacing", "asap"]) == CampaignFields(pacing: .asap))
        #expect(Self.refusal(["--goal", "5"]) == "--goal needs --per day or --per campaign")
        #expect(Self.refusal(["--per", "day"]) == "--per day needs --goal")
        #expect(Self.refusal(["--goal", "5", "--per", "week"]) == "--per must be day or campaign (got week)")
        #expect(Self.refusal(["--pacing", "fast"]) == "--pacing must be even or asap (got fast)")
    }

    @Test("--advertiser and --paid-by set advertiser and paidBy as given (untrimmed: campaignd judges them), over a file's")
    func parties() throws {
        #expect(try Self.fields(["--advertiser", "Shop <A> & \"B\""]) == CampaignFields(advertiser: "Shop <A> & \"B\""))
        #expect(try Self.fields(["--paid-by", " Payer "]) == CampaignFields(paidBy: " Payer "))
        #expect(try Self.fields(["--priority", "1"]).advertiser == nil)
        let fromFile = try Self.withFile(#"{"advertiser": "From file", "paidBy": "Payer"}"#) { path in
            try Self.fields(["--file", path, "--advertiser", "Flag"])
        }
        #expect(fromFile == CampaignFields(advertiser: "Flag", paidBy: "Payer"))
        #expect(Self.refusal(["--advertiser"]) != nil)
    }

    @Test("every flag lands in its field; times count from now, lists are split on commas and trimmed")
    func everyFlag() throws {
        let fields = try Self.fields([
            "--name", "Double 12", "--app", "shop", "--starts", "now", "--ends", "+2h", "--priority", "60", "--weight", "300",
            "--forced", "true", "--countdown", "5", "--skippable", "false", "--skip-after", "2", "--launch-types", "cold, hot",
            "--min-background", "600", "--jump-url", "https://shop.example.com/1212", "--creative", "aaa:3", "--creative", "bbb",
            "--platforms", "ios,android", "--min-version", "5.2.0", "--max-version", "6.0", "--regions", " cn-east ,,cn-north",
            "--locales", "zh-CN", "--cap", "3/24",
        ])
        let now = Timestamp(milliseconds: 1_800_000_000_000)
        #expect(fields == CampaignFields(
            name: "Double 12", app: "shop", startsAt: now, endsAt: now.adding(seconds: 7200), priority: 60, weight: 300,
            forced: true, countdown: 5, skippable: false, skipAfter: 2, launchTypes: [.cold, .hot], minBackgroundSeconds: 600,
            jump: Jump(type: .url, value: "https://shop.example.com/1212"),
            creatives: [CreativeRef(sha256: "aaa", weight: 3), CreativeRef(sha256: "bbb", weight: 100)],
            targeting: Targeting(platforms: ["ios", "android"], appVersions: VersionRange(min: "5.2.0", max: "6.0"),
                                 regions: ["cn-east", "cn-north"], locales: ["zh-CN"]),
            frequencyCap: FrequencyCap(shows: 3, hours: 24)))
        #expect(try Self.fields(["--jump-deeplink", "shop://sale"]).jump == Jump(type: .deeplink, value: "shop://sale"))
    }

    @Test("flags override the file's fields; the file's other fields, and its targeting, stay")
    func fileThenFlags() throws {
        let json = #"""
            {"name": "From file", "app": "shop", "priority": 10, "startsAt": "2026-12-12T00:00:00+08:00",
             "creatives": [{"sha256": "fff"}],
             "targeting": {"platforms": ["ios"], "appVersions": {"min": "5.0", "max": "7.0"}}}
            """#
        let fields = try Self.withFile(json) { path in
            try Self.fields(["--file", path, "--priority", "90", "--min-version", "5.1", "--regions", "cn-east"])
        }
        #expect(fields.name == "From file" && fields.app == "shop" && fields.priority == 90)
        #expect(fields.startsAt?.rfc3339 == "2026-12-11T16:00:00Z" && fields.endsAt == nil)
        #expect(fields.creatives == [CreativeRef(sha256: "fff", weight: 100)])
        // --min-version replaces the file's min and keeps its max; --regions joins the file's platforms.
        #expect(fields.targeting == Targeting(platforms: ["ios"], appVersions: VersionRange(min: "5.1", max: "7.0"), regions: ["cn-east"]))
    }

    @Test("--creative replaces the file's creatives, and --cap its cap")
    func replacingLists() throws {
        let json = #"{"creatives": [{"sha256": "fff", "weight": 5}], "frequencyCap": {"shows": 1, "hours": 1}}"#
        let fields = try Self.withFile(json) { try Self.fields(["--file", $0, "--creative", "ggg:7", "--cap", "2/48"]) }
        #expect(fields.creatives == [CreativeRef(sha256: "ggg", weight: 7)] && fields.frequencyCap == FrequencyCap(shows: 2, hours: 48))
    }

    @Test("without a file, flags go on top of the base; a file replaces the base")
    func base() throws {
        let base = CampaignFields(name: "base", priority: 20, targeting: Targeting(locales: ["en"]))
        #expect(try Self.fields(["--priority", "30", "--platforms", "android"], base: base)
            == CampaignFields(name: "base", priority: 30, targeting: Targeting(platforms: ["android"], locales: ["en"])))
        let fromFile = try Self.withFile(#"{"app": "news"}"#) { try Self.fields(["--file", $0], base: base) }
        #expect(fromFile == CampaignFields(app: "news"))
    }

    @Test("bad flags are refused with the flag and what to write", arguments: [
        (["--jump-url", "https://a.example", "--jump-deeplink", "shop://b"], "give --jump-url or --jump-deeplink, not both"),
        (["--launch-types", "cold,warm"], "--launch-types: warm is not cold or hot"),
        (["--creative", "aaa:x"], "--creative aaa:x: the weight after ':' must be a number"),
        (["--creative", ""], "--creative needs a sha256"),
        (["--cap", "2-24"], "--cap 2-24: write SHOWS/HOURS, as in 2/24"),
        (["--cap", "2/24/1"], "--cap 2/24/1: write SHOWS/HOURS, as in 2/24"),
        (["--starts", "tomorrow"], "tomorrow is not a time: use RFC 3339 (2026-12-12T00:00:00+08:00), now, or +2h / -30m / +1d"),
        (["--ends", "+3w"], "+3w: use s, m, h or d after the number, as in +2h"),
        (["--file", "/nonexistent/adctl/campaign.json"], "cannot read /nonexistent/adctl/campaign.json"),
    ])
    func refused(_ arguments: [String], _ reason: String) {
        #expect(Self.refusal(arguments) == reason)
    }

    @Test("a file that is not JSON, or holds a field of the wrong type, is refused naming the file and the field")
    func badFile() throws {
        let notJSON = try Self.withFile("name: x") { path in (path, Self.refusal(["--file", path])) }
        #expect(notJSON.1?.hasPrefix("\(notJSON.0) is not JSON: ") == true, "\(notJSON.1 ?? "taken")")
        let wrongType = try Self.withFile(#"{"priority": "high"}"#) { path in (path, Self.refusal(["--file", path])) }
        #expect(wrongType.1?.hasPrefix("\(wrongType.0): priority: ") == true, "\(wrongType.1 ?? "taken")")
        let nested = try Self.withFile(#"{"creatives": [{"weight": 3}]}"#) { path in (path, Self.refusal(["--file", path])) }
        #expect(nested.1 == "\(nested.0): creatives[0].sha256: is required")
    }

    @Test("--audience and --test-devices set the campaign's audience and its test devices; another audience is refused")
    func testDevices() throws {
        #expect(try Self.fields(["--audience", "test", "--test-devices", "qa-1, qa-2"]) == CampaignFields(audience: .test, testDevices: ["qa-1", "qa-2"]))
        #expect(try Self.fields(["--audience", "all"]) == CampaignFields(audience: .all))
        #expect(Self.refusal(["--audience", "staff"]) == "--audience must be all or test (got staff)")
    }
}
