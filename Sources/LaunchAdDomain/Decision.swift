/// What an edge knows of a creative's bytes (from campaignd, verified when downloaded).
public struct CreativeFacts: Sendable, Hashable, Codable {
    public var sha256: String
    public var contentType: String
    public var width: Int
    public var height: Int
    public var size: Int

    public init(sha256: String, contentType: String, width: Int, height: Int, size: Int) {
        self.sha256 = sha256
        self.contentType = contentType
        self.width = width
        self.height = height
        self.size = size
    }
}

/// A launch query, validated.
public struct LaunchRequest: Sendable {
    public var app: String
    public var platform: String
    public var appVersion: AppVersion
    public var region: String?
    public var locale: String?
    public var deviceId: String?
    public var screen: (width: Int, height: Int)?
    public var launchType: LaunchType
    public var backgroundSeconds: Int?
    public var cached: Set<String>

    public init(app: String, platform: String, appVersion: AppVersion, region: String? = nil, locale: String? = nil,
                deviceId: String? = nil, screen: (width: Int, height: Int)? = nil, launchType: LaunchType = .cold,
                backgroundSeconds: Int? = nil, cached: Set<String> = []) {
        self.app = app
        self.platform = platform
        self.appVersion = appVersion
        self.region = region
        self.locale = locale
        self.deviceId = deviceId
        self.screen = screen
        self.launchType = launchType
        self.backgroundSeconds = backgroundSeconds
        self.cached = cached
    }
}

/// What the engine knows of one device: impressions per campaign (for caps) and what it has seen in the current
/// rotation (so the rotation moves on after an impression and does not repeat before the others were seen).
public struct DeviceView: Sendable {
    /// Impression times per campaign.
    public var impressions: [Int64: [Timestamp]]
    /// Campaigns and variants seen since the rotation last started over.
    public var seenCampaigns: Set<Int64>
    public var seenVariants: Set<String>
    /// Grows with each impression: it moves the stable choice on.
    public var rotation: Int

    public init(impressions: [Int64: [Timestamp]] = [:], seenCampaigns: Set<Int64> = [], seenVariants: Set<String> = [], rotation: Int = 0) {
        self.impressions = impressions
        self.seenCampaigns = seenCampaigns
        self.seenVariants = seenVariants
        self.rotation = rotation
    }

    public static let unknown = DeviceView()

    /// Impressions of `campaign` within the last `hours` before `now`.
    public func shows(of campaign: Int64, hours: Int, now: Timestamp) -> Int {
        let since = now.milliseconds - Int64(hours) * 3_600_000
        return impressions[campaign]?.filter { $0.milliseconds > since }.count ?? 0
    }
}

/// The engine's answer: a campaign and one of its creatives, or none; and the ids the client must forget.
public struct Decision: Sendable {
    public var campaign: Campaign?
    public var creative: CreativeFacts?
    public var revoked: [Int64]
}

/// The campaigns of one app, indexed for the launch query. Immutable: the edge builds a new one per change.
public struct AppIndex: Sendable {
    /// Campaigns that may still serve (scheduled, live), forced first, then by priority, then by id.
    public var candidates: [Campaign]
    /// Expired and deleted campaigns, most recent first (bounded), for `revoked`.
    public var revoked: [Int64]
}

/// The launch decision: a pure function of the edge's campaigns, the request, the device's history and the time.
public enum DecisionEngine {
    /// At most this many revoked ids are returned per answer.
    public static let revokedLimit = 100

    /// Builds the per-app index from a set of campaigns.
    public static func index(_ campaigns: some Sequence<Campaign>) -> [String: AppIndex] {
        var candidates: [String: [Campaign]] = [:]
        var revoked: [String: [Campaign]] = [:]
        for campaign in campaigns {
            switch campaign.state {
            case .scheduled, .live: candidates[campaign.app, default: []].append(campaign)
            case .expired, .deleted: revoked[campaign.app, default: []].append(campaign)
            case .paused: continue
            }
        }
        var result: [String: AppIndex] = [:]
        for app in Set(candidates.keys).union(revoked.keys) {
            let sorted = (candidates[app] ?? []).sorted { a, b in
                if a.forced != b.forced { return a.forced }
                if a.priority != b.priority { return a.priority > b.priority }
                return a.id < b.id
            }
            let gone = (revoked[app] ?? []).sorted { $0.updatedAt > $1.updatedAt }.prefix(revokedLimit).map(\.id)
            result[app] = AppIndex(candidates: sorted, revoked: Array(gone))
        }
        return result
    }

    /// Decides the answer.
    /// - Parameters:
    ///   - now: the edge's clock.
    ///   - serviceNow: the edge's estimate of campaignd's clock; a campaign is over once either clock passed its end.
    ///   - creatives: facts of the creatives the edge holds (others cannot be served).
    public static func decide(_ request: LaunchRequest, index: AppIndex?, creatives: [String: CreativeFacts],
                              device: DeviceView, now: Timestamp, serviceNow: Timestamp? = nil) -> Decision {
        guard let index else { return Decision(campaign: nil, creative: nil, revoked: []) }
        let endClock = max(now, serviceNow ?? now)
        var revoked = index.revoked
        var eligible: [Campaign] = []
        for campaign in index.candidates {
            if campaign.endsAt <= endClock {
                if revoked.count < revokedLimit { revoked.append(campaign.id) }
                continue
            }
            guard campaign.startsAt <= now, matches(campaign, request), underCap(campaign, device, now),
                  campaign.creatives.contains(where: { creatives[$0.sha256] != nil }) else { continue }
            eligible.append(campaign)
        }
        guard let first = eligible.first else { return Decision(campaign: nil, creative: nil, revoked: revoked) }
        // The top group: same forced flag and priority as the best.
        let group = eligible.prefix { $0.forced == first.forced && $0.priority == first.priority }
        let unseen = group.filter { !device.seenCampaigns.contains($0.id) }
        let pool = unseen.isEmpty ? Array(group) : unseen
        let seed = stableSeed(request.deviceId, now: now, rotation: device.rotation)
        let campaign = pick(pool, weight: { $0.weight }, seed: seed)
        let creative = chooseCreative(campaign, request: request, creatives: creatives, device: device, seed: seed)
        return Decision(campaign: campaign, creative: creative, revoked: revoked)
    }

    /// Whether the campaign targets this request (platform, version range, region, locale, launch type).
    public static func matches(_ campaign: Campaign, _ request: LaunchRequest) -> Bool {
        guard campaign.launchTypes.contains(request.launchType) else { return false }
        if request.launchType == .hot {
            guard let seconds = request.backgroundSeconds, seconds >= (campaign.minBackgroundSeconds ?? 0) else { return false }
        }
        let targeting = campaign.targeting
        if let platforms = targeting.platforms, !platforms.contains(request.platform) { return false }
        if let range = targeting.appVersions {
            if let min = range.min.flatMap(AppVersion.init), request.appVersion < min { return false }
            if let max = range.max.flatMap(AppVersion.init), !(request.appVersion < max) { return false }
        }
        if let regions = targeting.regions {
            guard let region = request.region, regions.contains(region) else { return false }
        }
        if let locales = targeting.locales {
            guard let locale = request.locale?.lowercased(), locales.contains(where: { $0.lowercased() == locale }) else { return false }
        }
        return true
    }

    static func underCap(_ campaign: Campaign, _ device: DeviceView, _ now: Timestamp) -> Bool {
        guard let cap = campaign.frequencyCap else { return true }
        return device.shows(of: campaign.id, hours: cap.hours, now: now) < cap.shows
    }

    /// The creative whose aspect ratio is nearest the screen's; among the nearest, one the client holds, then the
    /// variants not yet seen, by weight.
    static func chooseCreative(_ campaign: Campaign, request: LaunchRequest, creatives: [String: CreativeFacts],
                               device: DeviceView, seed: UInt64) -> CreativeFacts? {
        let held = campaign.creatives.compactMap { ref in creatives[ref.sha256].map { (ref, $0) } }
        guard !held.isEmpty else { return nil }
        var nearest = held
        if let screen = request.screen, screen.width > 0, screen.height > 0 {
            let target = Double(screen.width) / Double(screen.height)
            func distance(_ facts: CreativeFacts) -> Double {
                abs(log(Double(facts.width) / Double(facts.height)) - log(target))
            }
            let best = held.map { distance($0.1) }.min()!
            nearest = held.filter { distance($0.1) <= best + 0.02 }
        }
        let cached = nearest.filter { request.cached.contains($0.0.sha256) }
        var pool = cached.isEmpty ? nearest : cached
        let unseen = pool.filter { !device.seenVariants.contains($0.0.sha256) }
        if !unseen.isEmpty { pool = unseen }
        return pick(pool, weight: { $0.0.weight }, seed: seed ^ 0x9E37_79B9_7F4A_7C15).1
    }

    /// A weighted choice driven by `seed`: the same seed, the same choice.
    static func pick<T>(_ items: [T], weight: (T) -> Int, seed: UInt64) -> T {
        let total = items.reduce(0) { $0 + max(1, weight($1)) }
        var point = Int(mix(seed) % UInt64(total))
        for item in items {
            point -= max(1, weight(item))
            if point < 0 { return item }
        }
        return items[items.count - 1]
    }

    /// A seed stable for a device within a UTC day and a rotation step (anonymous requests share one).
    public static func stableSeed(_ deviceId: String?, now: Timestamp, rotation: Int) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325  // FNV-1a
        for byte in (deviceId ?? "").utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        let day = UInt64(bitPattern: now.milliseconds / 86_400_000)
        return mix(hash ^ mix(day) ^ mix(UInt64(rotation) &+ 1))
    }

    static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
