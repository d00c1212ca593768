import JSONRPC

/// Where a campaign is in its life.
public enum CampaignState: String, Sendable, Codable, CaseIterable {
    /// Accepted, not yet started.
    case scheduled
    /// Between its start and its end, serving.
    case live
    /// Held by an operator.
    case paused
    /// Past its end, or taken down by an operator: never served again.
    case expired
    /// Removed; kept as a tombstone so edges tell clients to delete it.
    case deleted

    /// Whether nothing can change it any more.
    public var isFinal: Bool { self == .expired || self == .deleted }
}

/// When a campaign may show: at a cold start, or also at a hot start after enough time in the background.
public enum LaunchType: String, Sendable, Codable, CaseIterable {
    case cold, hot
}

/// What a tap on the ad does.
public struct Jump: Sendable, Codable, Hashable {
    public enum Kind: String, Sendable, Codable, CaseIterable {
        case none, url, deeplink
    }
    public var type: Kind
    public var value: String

    /// The members, declared once: the `Codable` conformance's keys and the reader's slots.
    public enum CodingKeys: Int, JSONFieldKey { case type, value }

    public init(type: Kind, value: String = "") {
        self.type = type
        self.value = value
    }

    public static let none = Jump(type: .none)
}

/// One uploaded variant of the ad, by the sha256 of its bytes, with its share of the rotation.
public struct CreativeRef: Sendable, Codable, Hashable {
    public var sha256: String
    public var weight: Int

    public init(sha256: String, weight: Int = 100) {
        self.sha256 = sha256
        self.weight = weight
    }

    /// The members, declared once: the `Codable` conformance's keys and the reader's slots.
    public enum CodingKeys: Int, JSONFieldKey { case sha256, weight }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        sha256 = try container.decode(String.self, forKey: .sha256)
        weight = try container.decodeIfPresent(Int.self, forKey: .weight) ?? 100
    }
}

/// App versions from `min` (inclusive) to `max` (exclusive), dotted numbers such as `5.2.0`.
public struct VersionRange: Sendable, Codable, Hashable {
    public var min: String?
    public var max: String?

    /// The members, declared once: the `Codable` conformance's keys and the reader's slots.
    public enum CodingKeys: Int, JSONFieldKey { case min, max }

    public init(min: String? = nil, max: String? = nil) {
        self.min = min
        self.max = max
    }
}

/// Who a campaign is for; every part is optional, and absent means everyone.
public struct Targeting: Sendable, Codable, Hashable {
    public var platforms: [String]?
    public var appVersions: VersionRange?
    public var regions: [String]?
    public var locales: [String]?

    /// The members, declared once: the `Codable` conformance's keys and the reader's slots.
    public enum CodingKeys: Int, JSONFieldKey { case platforms, appVersions, regions, locales }

    public init(platforms: [String]? = nil, appVersions: VersionRange? = nil, regions: [String]? = nil, locales: [String]? = nil) {
        self.platforms = platforms
        self.appVersions = appVersions
        self.regions = regions
        self.locales = locales
    }

    public static let everyone = Targeting()
}

/// At most `shows` impressions per device in any `hours` window.
public struct FrequencyCap: Sendable, Codable, Hashable {
    public var shows: Int
    public var hours: Int

    /// The members, declared once: the `Codable` conformance's keys and the reader's slots.
    public enum CodingKeys: Int, JSONFieldKey { case shows, hours }

    public init(shows: Int, hours: Int) {
        self.shows = shows
        self.hours = hours
    }
}

/// Who a campaign is answered to: every device it targets, or only its test devices.
public enum Audience: String, Sendable, Codable, CaseIterable {
    case all, test
}

/// How much of the screen a campaign's ad takes (DESIGN, "Apps and the rules of their markets").
public enum CampaignDisplay: String, Sendable, Codable, CaseIterable {
    /// The whole screen (the default).
    case full
    /// The top of the screen, the app's logo strip below (the ad at least 75% of the height).
    case half
}

/// What a tap on a campaign's ad opens its jump from.
public enum CampaignClickArea: String, Sendable, Codable, CaseIterable {
    /// A button on the ad (the default; what markets that forbid a whole-screen jump require).
    case button
    /// The whole ad.
    case full
}

/// The period a delivery goal counts over.
public enum GoalPeriod: String, Sendable, Codable, CaseIterable {
    /// Each day, in the app's time zone: the count starts again at its midnight.
    case day
    /// The whole flight, from `startsAt` to `endsAt`.
    case campaign
}

/// A number of impressions a campaign is to deliver in each period (DESIGN, "Delivery goals and pacing").
public struct CampaignGoal: Sendable, Codable, Hashable {
    public var impressions: Int
    public var per: GoalPeriod

    /// The members, declared once: the `Codable` conformance's keys and the reader's slots.
    public enum CodingKeys: Int, JSONFieldKey { case impressions, per }

    public init(impressions: Int, per: GoalPeriod) {
        self.impressions = impressions
        self.per = per
    }
}

/// How a campaign with a goal spends it over its period.
public enum CampaignPacing: String, Sendable, Codable, CaseIterable {
    /// Spread over the period's time left (the default with a goal).
    case even
    /// As fast as traffic allows, until the goal is met.
    case asap
}

/// A launch-ad campaign, with every field DESIGN names.
public struct Campaign: Sendable, Codable, Hashable {
    public var id: Int64
    public var name: String
    public var app: String
    public var startsAt: Timestamp
    public var endsAt: Timestamp
    public var priority: Int
    public var weight: Int
    public var forced: Bool
    public var countdown: Int
    public var skippable: Bool
    public var skipAfter: Int?
    public var launchTypes: [LaunchType]
    public var minBackgroundSeconds: Int?
    public var jump: Jump
    public var creatives: [CreativeRef]
    public var targeting: Targeting
    public var frequencyCap: FrequencyCap?
    /// `test`: answered only to `testDevices` (absent: `all`).
    public var audience: Audience?
    /// Device ids a test audience is answered to (at most ``CampaignRules/maxTestDevices``).
    public var testDevices: [String]?
    /// `half`: the top of the screen with the app's logo below (absent: `full`).
    public var display: CampaignDisplay?
    /// `full`: a tap anywhere on the ad opens the jump (absent: `button`).
    public var clickArea: CampaignClickArea?
    /// `true`: a video creative plays with its sound (absent or `false`: muted, what users expect of a launch ad).
    public var videoSound: Bool?
    /// Who the ad is for, as shown to people ("Ad by …"); absent until a market requires it.
    public var advertiser: String?
    /// Who paid for the ad, when not the advertiser.
    public var paidBy: String?
    /// Impressions to deliver per day or per flight; absent: no goal, no pacing.
    public var goal: CampaignGoal?
    /// How the goal is spent; set (`even` by default) exactly when there is a goal.
    public var pacing: CampaignPacing?
    public var state: CampaignState
    /// Grows by one with each change.
    public var version: Int
    public var createdAt: Timestamp
    public var updatedAt: Timestamp
    /// The share of devices it is answered to, 0 to 1, set by campaignd's pacing for a campaign with a goal (absent:
    /// every device; 0: the goal is met for the period). Not an operator's field: the controller's changes carry it.
    public var share: Double?

    /// The members, in the order the `Codable` conformance reads them (so the reader's errors come in the same
    /// order): the `Codable` conformance's keys and the reader's slots. Between `id` and `state` come the operator's
    /// fields, ``CampaignFields/CodingKeys``, in their order and under their names, each one slot further on
    /// (``CampaignFields/CodingKeys/campaignKey``; ``Campaign/fields`` checks it when first used).
    public enum CodingKeys: Int, JSONFieldKey {
        case id, name, app, startsAt, endsAt, priority, weight, forced, countdown, skippable, skipAfter, launchTypes
        case minBackgroundSeconds, jump, creatives, targeting, frequencyCap, audience, testDevices, display, clickArea
        case videoSound, advertiser, paidBy, goal, pacing, state, version, createdAt, updatedAt, share
    }

    public init(id: Int64, name: String, app: String, startsAt: Timestamp, endsAt: Timestamp, priority: Int, weight: Int, forced: Bool, countdown: Int, skippable: Bool, skipAfter: Int?, launchTypes: [LaunchType], minBackgroundSeconds: Int?, jump: Jump, creatives: [CreativeRef], targeting: Targeting, frequencyCap: FrequencyCap?, state: CampaignState, version: Int, createdAt: Timestamp, updatedAt: Timestamp, audience: Audience? = nil, testDevices: [String]? = nil, display: CampaignDisplay? = nil, clickArea: CampaignClickArea? = nil, videoSound: Bool? = nil) {
        self.id = id
        self.name = name
        self.app = app
        self.startsAt = startsAt
        self.endsAt = endsAt
        self.priority = priority
        self.weight = weight
        self.forced = forced
        self.countdown = countdown
        self.skippable = skippable
        self.skipAfter = skipAfter
        self.launchTypes = launchTypes
        self.minBackgroundSeconds = minBackgroundSeconds
        self.jump = jump
        self.creatives = creatives
        self.targeting = targeting
        self.frequencyCap = frequencyCap
        self.audience = audience
        self.testDevices = testDevices
        self.display = display
        self.clickArea = clickArea
        self.videoSound = videoSound
        self.state = state
        self.version = version
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// The fields an operator gives to create or update a campaign; absent fields keep their default (create) or
/// their current value (update).
public struct CampaignFields: Sendable, Codable, Hashable {
    public var name: String?
    public var app: String?
    public var startsAt: Timestamp?
    public var endsAt: Timestamp?
    public var priority: Int?
    public var weight: Int?
    public var forced: Bool?
    public var countdown: Int?
    public var skippable: Bool?
    public var skipAfter: Int?
    public var launchTypes: [LaunchType]?
    public var minBackgroundSeconds: Int?
    public var jump: Jump?
    public var creatives: [CreativeRef]?
    public var targeting: Targeting?
    public var frequencyCap: FrequencyCap?
    public var audience: Audience?
    public var testDevices: [String]?
    public var display: CampaignDisplay?
    public var clickArea: CampaignClickArea?
    public var videoSound: Bool?
    public var advertiser: String?
    public var paidBy: String?
    public var goal: CampaignGoal?
    public var pacing: CampaignPacing?

    /// The fields, declared once, in their wire order: the `Codable` conformance's keys, and the one list every
    /// other place that handles each field follows through an exhaustive `switch` (``CampaignField``).
    public enum CodingKeys: Int, JSONFieldKey {
        case name, app, startsAt, endsAt, priority, weight, forced, countdown, skippable, skipAfter, launchTypes
        case minBackgroundSeconds, jump, creatives, targeting, frequencyCap, audience, testDevices, display, clickArea
        case videoSound, advertiser, paidBy, goal, pacing
    }

    public init(name: String? = nil, app: String? = nil, startsAt: Timestamp? = nil, endsAt: Timestamp? = nil,
                priority: Int? = nil, weight: Int? = nil, forced: Bool? = nil, countdown: Int? = nil,
                skippable: Bool? = nil, skipAfter: Int? = nil, launchTypes: [LaunchType]? = nil,
                minBackgroundSeconds: Int? = nil, jump: Jump? = nil, creatives: [CreativeRef]? = nil,
                targeting: Targeting? = nil, frequencyCap: FrequencyCap? = nil, audience: Audience? = nil, testDevices: [String]? = nil,
                display: CampaignDisplay? = nil, clickArea: CampaignClickArea? = nil, videoSound: Bool? = nil,
                advertiser: String? = nil, paidBy: String? = nil, goal: CampaignGoal? = nil, pacing: CampaignPacing? = nil) {
        self.name = name
        self.app = app
        self.startsAt = startsAt
        self.endsAt = endsAt
        self.priority = priority
        self.weight = weight
        self.forced = forced
        self.countdown = countdown
        self.skippable = skippable
        self.skipAfter = skipAfter
        self.launchTypes = launchTypes
        self.minBackgroundSeconds = minBackgroundSeconds
        self.jump = jump
        self.creatives = creatives
        self.targeting = targeting
        self.frequencyCap = frequencyCap
        self.audience = audience
        self.testDevices = testDevices
        self.display = display
        self.clickArea = clickArea
        self.videoSound = videoSound
        self.advertiser = advertiser
        self.paidBy = paidBy
        self.goal = goal
        self.pacing = pacing
    }
}
