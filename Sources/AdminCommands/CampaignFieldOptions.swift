import ArgumentParser
import Foundation
import JSONRPC
import LaunchAdDomain

/// Every campaign field as a flag (and `--file` for a JSON object of them).
struct CampaignFieldOptions: ParsableArguments {
    @Option(help: "A JSON file of campaign fields (flags override it).")
    var file: String?
    @Option(help: "The campaign's name.") var name: String?
    @Option(help: "The app it is for (\(AppID.rule)).") var app: String?
    @Option(help: "When it starts: RFC 3339, now, or +2h.") var starts: String?
    @Option(help: "When it ends: RFC 3339, now, or +2h.") var ends: String?
    @Option(help: "0 to 100 (default 50).") var priority: Int?
    @Option(help: "1 to 1000 among equal priorities (default 100).") var weight: Int?
    @Option(help: "Answer before anything else: true or false.") var forced: Bool?
    @Option(help: "Seconds shown, 1 to 10 (default 3).") var countdown: Int?
    @Option(help: "Whether the user may skip: true or false (default true).") var skippable: Bool?
    @Option(help: "Seconds before skipping is allowed.") var skipAfter: Int?
    @Option(help: "Launch types, comma-separated: cold, hot.") var launchTypes: String?
    @Option(help: "For hot launches: seconds in the background first.") var minBackground: Int?
    @Option(help: "On tap, open this http(s) URL.") var jumpUrl: String?
    @Option(help: "On tap, open this deep link (shop://...).") var jumpDeeplink: String?
    @Option(help: "A creative's sha256, with an optional weight (SHA:WEIGHT); repeat for variants.") var creative: [String] = []
    @Option(help: "Target platforms, comma-separated (ios, android, harmonyos).") var platforms: String?
    @Option(help: "Lowest app version, inclusive (5.2.0).") var minVersion: String?
    @Option(help: "Highest app version, exclusive (6.0).") var maxVersion: String?
    @Option(help: "Target regions, comma-separated (each \(Region.rule), kept in lower case).") var regions: String?
    @Option(help: "Target locales, comma-separated (zh-CN, en).") var locales: String?
    @Option(help: "Frequency cap per device: SHOWS/HOURS, as in 2/24.") var cap: String?
    @Option(help: "Who it is answered to: all (default) or test (only --test-devices).") var audience: String?
    @Option(help: "Test device ids, comma-separated (at most 100).") var testDevices: String?
    @Option(help: "How much of the screen the ad takes: full (default) or half (the app's logo strip below).") var display: String?
    @Option(help: "What a tap opens the jump from: button (default) or full (the whole ad).") var clickArea: String?
    @Flag(inversion: .prefixedNo, help: "Whether a video creative plays with its sound (default: muted).") var videoSound: Bool?
    @Option(help: "Who the ad is for, shown with it: 1 to 100 characters, no space at either end.") var advertiser: String?
    @Option(help: "Who paid for the ad, when not the advertiser (the same rule).") var paidBy: String?
    @Option(help: "A delivery goal: impressions per --per period (1 to 10^12).") var goal: Int?
    @Option(help: "The goal's period: day (in the app's time zone) or campaign (the whole flight); with --goal.") var per: String?
    @Option(help: "How the goal is spent: even (default with a goal) or asap.") var pacing: String?

    static func list(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// The fields given, on top of the file's; relative times (`+2h`) count from `now`.
    func fields(base: CampaignFields? = nil, now: Date = Date()) throws -> CampaignFields {
        var fields = base ?? CampaignFields()
        if let file {
            guard let data = FileManager.default.contents(atPath: file) else { throw ValidationError("cannot read \(file)") }
            do {
                fields = try JSONValueDecoder().decode(CampaignFields.self, fromJSON: [UInt8](data))
            } catch let error as DecodingError {
                throw ValidationError("\(file): \(error.fieldPath): \(error.reason)")
            } catch {
                throw ValidationError("\(file) is not JSON: \(error)")
            }
        }
        // Every field, so a new one does not compile until it says which flags set it.
        for key in CampaignFields.CodingKeys.allCases {
            switch key {
            case .name: if let name { fields.name = name }
            case .app: if let app { fields.app = app }
            case .startsAt: if let starts { fields.startsAt = try FriendlyTime.parse(starts, now: now) }
            case .endsAt: if let ends { fields.endsAt = try FriendlyTime.parse(ends, now: now) }
            case .priority: if let priority { fields.priority = priority }
            case .weight: if let weight { fields.weight = weight }
            case .forced: if let forced { fields.forced = forced }
            case .countdown: if let countdown { fields.countdown = countdown }
            case .skippable: if let skippable { fields.skippable = skippable }
            case .skipAfter: if let skipAfter { fields.skipAfter = skipAfter }
            case .launchTypes:
                if let launchTypes {
                    fields.launchTypes = try Self.list(launchTypes).map { value in
                        guard let type = LaunchType(rawValue: value) else { throw ValidationError("--launch-types: \(value) is not cold or hot") }
                        return type
                    }
                }
            case .minBackgroundSeconds: if let minBackground { fields.minBackgroundSeconds = minBackground }
            case .jump:
                if jumpUrl != nil && jumpDeeplink != nil { throw ValidationError("give --jump-url or --jump-deeplink, not both") }
                if let jumpUrl { fields.jump = Jump(type: .url, value: jumpUrl) }
                if let jumpDeeplink { fields.jump = Jump(type: .deeplink, value: jumpDeeplink) }
            case .creatives:
                if !creative.isEmpty {
                    fields.creatives = try creative.map { text in
                        let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
                        guard let sha = parts.first, !sha.isEmpty else { throw ValidationError("--creative needs a sha256") }
                        guard parts.count == 1 || Int(parts[1]) != nil else { throw ValidationError("--creative \(text): the weight after ':' must be a number") }
                        return CreativeRef(sha256: sha, weight: parts.count == 2 ? Int(parts[1])! : 100)
                    }
                }
            case .targeting:
                var targeting = fields.targeting ?? Targeting()
                var targeted = fields.targeting != nil
                if let platforms { targeting.platforms = Self.list(platforms); targeted = true }
                if minVersion != nil || maxVersion != nil {
                    targeting.appVersions = VersionRange(min: minVersion ?? targeting.appVersions?.min, max: maxVersion ?? targeting.appVersions?.max)
                    targeted = true
                }
                if let regions { targeting.regions = Self.list(regions); targeted = true }
                if let locales { targeting.locales = Self.list(locales); targeted = true }
                if targeted { fields.targeting = targeting }
            case .frequencyCap:
                if let cap {
                    let parts = cap.split(separator: "/")
                    guard parts.count == 2, let shows = Int(parts[0]), let hours = Int(parts[1]) else {
                        throw ValidationError("--cap \(cap): write SHOWS/HOURS, as in 2/24")
                    }
                    fields.frequencyCap = FrequencyCap(shows: shows, hours: hours)
                }
            case .audience:
                if let audience {
                    guard let value = Audience(rawValue: audience) else { throw ValidationError("--audience must be all or test (got \(audience))") }
                    fields.audience = value
                }
            case .testDevices: if let testDevices { fields.testDevices = Self.list(testDevices) }
            case .display:
                if let display {
                    guard let value = CampaignDisplay(rawValue: display) else { throw ValidationError("--display must be full or half (got \(display))") }
                    fields.display = value
                }
            case .clickArea:
                if let clickArea {
                    guard let value = CampaignClickArea(rawValue: clickArea) else {
                        throw ValidationError("--click-area must be button or full (got \(clickArea))")
                    }
                    fields.clickArea = value
                }
            case .videoSound: if let videoSound { fields.videoSound = videoSound }
            case .advertiser: if let advertiser { fields.advertiser = advertiser }
            case .paidBy: if let paidBy { fields.paidBy = paidBy }
            case .goal:
                if let per, goal == nil { throw ValidationError("--per \(per) needs --goal") }
                if let goal {
                    guard let per else { throw ValidationError("--goal needs --per day or --per campaign") }
                    guard let period = GoalPeriod(rawValue: per) else { throw ValidationError("--per must be day or campaign (got \(per))") }
                    fields.goal = CampaignGoal(impressions: goal, per: period)
                }
            case .pacing:
                if let pacing {
                    guard let value = CampaignPacing(rawValue: pacing) else { throw ValidationError("--pacing must be even or asap (got \(pacing))") }
                    fields.pacing = value
                }
            }
        }
        return fields
    }
}
