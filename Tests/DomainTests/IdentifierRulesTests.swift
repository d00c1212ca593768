import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import Testing

/// The names that come in under one rule each (``Region``, ``AppID``, ``EdgeID``): each rule's examples, the schema's
/// pattern stating the same rule, and the entry points that take one refusing the same values, each with its own
/// error naming its field. (The sync socket's refusals of a region are HostileNameTests', over ZeroMQ; the daemons'
/// `--region`, DaemonOptionsTests'.)
@Suite("region, app id and edge id rules", .timeLimit(.minutes(1)))
struct IdentifierRulesTests {
    static let now = Timestamp(rfc3339: "2026-11-21T12:00:00Z")!

    static let regions: [(String, Bool)] = [
        ("cn-east", true), ("CN-East", true), ("r", true), ("9", true), ("eu-central-1", true), ("cn-", true),
        (String(repeating: "r", count: 32), true),
        ("", false), ("-east", false), ("cn east", false), ("cn_east", false), ("cn.east", false), ("华东", false),
        ("é", false), ("\u{212A}A", false), ("ea\u{202E}st", false), ("ea\nst", false), ("east\u{0}", false), (String(repeating: "r", count: 33), false),
    ]
    static let apps: [(String, Bool)] = [
        ("shop", true), ("com.example.shop", true), ("my_app-2", true), ("9", true),
        // Launch queries and reports have always taken these, and campaignd keeps per-app counts of them.
        ("-shop", true), (".shop", true), ("_", true),
        (String(repeating: "a", count: 64), true),
        ("", false), ("Shop", false), ("shop!", false), ("shop app", false), ("shop/..", false), ("商店", false),
        ("shop\u{0}", false), ("sh\u{202E}op", false), (String(repeating: "a", count: 65), false),
    ]
    static var badRegions: [String] { regions.filter { !$0.1 }.map(\.0) }
    static var badApps: [String] { apps.filter { !$0.1 }.map(\.0) }

    /// Whether the schema's pattern, as a validator of the OpenRPC documents applies it, takes `text`.
    static func patternTakes(_ pattern: String, _ text: String) throws -> Bool {
        try NSRegularExpression(pattern: pattern).firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }

    @Test("a region is 1 to 32 ASCII letters, digits and '-', starting with a letter or digit, and never empty; the schema's pattern says the same",
          arguments: regions)
    func region(_ region: String, valid: Bool) throws {
        #expect(Region.isValid(region) == valid)
        #expect(try Self.patternTakes(Region.pattern, region) == valid)
        #expect(Region.schema().json["pattern"] == .string(Region.pattern))
    }

    @Test("an app id is 1 to 64 of a-z, 0-9, '.', '_' and '-', any of them first; the schema's pattern says the same", arguments: apps)
    func app(_ app: String, valid: Bool) throws {
        #expect(AppID.isValid(app) == valid)
        #expect(try Self.patternTakes(AppID.pattern, app) == valid)
        #expect(AppID.schema().json["pattern"] == .string(AppID.pattern))
    }

    @Test("the rules' words, as errors print them")
    func ruleText() {
        #expect(Region.rule == "1 to 32 of A-Z, a-z, 0-9 and '-', starting with a letter or digit")
        #expect(AppID.rule == "1 to 64 of a-z, 0-9, '.', '_' and '-'")
        #expect(throws: JSONRPCError.invalidParams(field: "acks[0].region", "must be \(Region.rule)")) { try Region.validate("", field: "acks[0].region") }
        #expect(throws: JSONRPCError.invalidParams(field: "app", "must be \(AppID.rule)")) { try AppID.validate("Shop", field: "app") }
    }

    static func campaign(app: String = "shop", regions: [String]? = nil) throws(FieldError) -> Campaign {
        let sha = String(repeating: "a", count: 64)
        let fields = CampaignFields(name: "n", app: app, startsAt: now.adding(seconds: 60), endsAt: now.adding(seconds: 3600),
                                    creatives: [CreativeRef(sha256: sha)], targeting: regions.map { Targeting(regions: $0) })
        return try CampaignRules.create(fields, id: 1, now: now, creativeExists: { $0 == sha })
    }

    @Test("launch.query, launch.report, app.stats, an edge's per-app counts and campaign.create take every good app and refuse every bad one, each naming its field")
    func appEntryPoints() throws {
        let rule = "must be \(AppID.rule)"
        let hour = HourlyCount.hour(of: Self.now)
        for (app, valid) in Self.apps {
            let query = { () throws(JSONRPCError) in _ = try LaunchQueryParams(app: app, platform: "ios", appVersion: "5.2.0").validated() }
            let event = LaunchEvent(eventId: "e", type: .request, campaignId: nil, deviceId: "d", app: app)
            let stats = { () throws(JSONRPCError) in _ = try AppStatsParams(app: app).query(now: Self.now) }
            let counts = EdgeReport(edgeId: "edge-1", reportId: 1, counts: [], apps: [AppHourlyCount(app: app, hour: hour, requests: 1)])
            if valid {
                try query()
                try event.check(at: 2, now: Self.now)
                try stats()
                try PeerNumbers.check(counts, now: Self.now, retention: 86_400)
                #expect(try Self.campaign(app: app).app == app)
            } else {
                #expect(throws: JSONRPCError.invalidParams(field: "app", rule), "\(app)") { try query() }
                #expect(throws: JSONRPCError.invalidParams(field: "events[2].app", rule), "\(app)") { try event.check(at: 2, now: Self.now) }
                #expect(throws: JSONRPCError.invalidParams(field: "app", rule), "\(app)") { try stats() }
                #expect(throws: JSONRPCError.invalidParams(field: "apps[0].app", rule), "\(app)") {
                    try PeerNumbers.check(counts, now: Self.now, retention: 86_400)
                }
                #expect(throws: FieldError("app", rule), "\(app)") { try Self.campaign(app: app) }
            }
        }
    }

    @Test("launch.query and campaign.create take every good region and refuse every bad one, each naming its field; a campaign keeps its regions in lower case")
    func regionEntryPoints() throws {
        let rule = "must be \(Region.rule)"
        for (region, valid) in Self.regions {
            let query = { () throws(JSONRPCError) in
                _ = try LaunchQueryParams(app: "shop", platform: "ios", appVersion: "5.2.0", region: region).validated()
            }
            if valid {
                try query()
                #expect(try Self.campaign(regions: ["cn-north", region]).targeting.regions == ["cn-north", region.lowercased()])
            } else {
                #expect(throws: JSONRPCError.invalidParams(field: "region", rule), "\(region)") { try query() }
                #expect(throws: FieldError("targeting.regions[1]", rule), "\(region)") { try Self.campaign(regions: ["cn-north", region]) }
            }
        }
        // An update's regions are kept in lower case too, and the engine matches a request's in any case.
        let created = try Self.campaign()
        let updated = try CampaignRules.update(created, with: CampaignFields(targeting: Targeting(regions: ["EU-West"])), now: Self.now,
                                               creativeExists: { _ in true })
        #expect(updated.targeting.regions == ["eu-west"])
    }

    @Test("an edge's or relay's id is 1 to 128 bytes of display text, its region keeps Region's rule, and a refusal names the field")
    func edgeIDs() {
        #expect(EdgeID.isValid("edge-sh-1") && EdgeID.isValid(String(repeating: "é", count: 64)) && EdgeID.isValid("边缘 1"))
        #expect(!EdgeID.isValid("") && !EdgeID.isValid(String(repeating: "x", count: 129)) && !EdgeID.isValid(String(repeating: "é", count: 65)))
        for hostile in ["edge\n1", "edge\u{1B}]0;x\u{07}", "edge\u{0}", "edge\u{85}", "\u{202E}1-egde", "\u{200B}", " "] {
            #expect(!EdgeID.isValid(hostile), "\(hostile.unicodeScalars.map(\.value))")
            #expect(!Region.isValid(hostile))
        }
        #expect(Region.isValid("cn-east") && !Region.isValid("") && !Region.isValid(String(repeating: "r", count: 33)))
        #expect(throws: JSONRPCError.invalidParams(field: "acks[2].edgeId", "must be \(EdgeID.rule)")) { try EdgeID.validate("a\nb", field: "acks[2].edgeId") }
        #expect(EdgeID.rule == "1 to 128 bytes, with a visible character and no control characters or bidirectional controls")
    }
}
