/// A refused campaign field: which one, and the rule it broke.
public struct FieldError: Error, Sendable, Hashable, CustomStringConvertible {
    public var field: String
    public var rule: String

    public init(_ field: String, _ rule: String) {
        self.field = field
        self.rule = rule
    }

    public var description: String { "\(field): \(rule)" }
}

/// The changes a campaign goes through; each committed one gets the next sequence number.
public enum CampaignOperation: String, Sendable, Codable, CaseIterable {
    case created, updated, forced, unforced, paused, resumed, expired, deleted
}

/// An operation the campaign's state does not allow (pausing an expired campaign, say).
public struct TransitionError: Error, Sendable, Hashable, CustomStringConvertible {
    public var operation: CampaignOperation
    public var state: CampaignState

    public var description: String { "cannot apply \(operation.rawValue) to a campaign that is \(state.rawValue)" }
}

/// The rules of campaigns: validation of every field, defaults, and the state machine. Pure functions.
public enum CampaignRules {
    /// Platforms a campaign may target and a client may name.
    public static let platforms: Set<String> = ["ios", "android", "harmonyos"]
    /// The regions, and the locales, a campaign may target at most: enough for any real list, and a bound on the
    /// size of a campaign, which every snapshot page and change carries whole.
    public static let maxTargets = 1000
    /// The most creatives a campaign holds: variants in several screen shapes (17 variants in three shapes fit).
    public static let maxCreatives = 64
    /// The most test devices a campaign lists.
    public static let maxTestDevices = 100
    /// A name's bounds: in characters for people, in bytes for every edge and relay that holds a copy (200
    /// characters of CJK are 600 bytes).
    public static let maxNameCharacters = 200
    public static let maxNameBytes = 800
    /// An advertiser's or a payer's name: a display name shown next to the ad, shorter than a campaign's.
    public static let maxPartyCharacters = 100
    public static let maxPartyBytes = 400
    /// A goal's largest number of impressions: far above any real flight, and well inside every counter's range.
    public static let maxGoalImpressions = 1_000_000_000_000

    // MARK: Creating and updating

    /// A new campaign from an operator's fields, with defaults for what is absent; every field is validated.
    public static func create(_ fields: CampaignFields, id: Int64, now: Timestamp,
                              creativeExists: (String) -> Bool) throws(FieldError) -> Campaign {
        guard let name = fields.name else { throw FieldError("name", "is required") }
        guard let app = fields.app else { throw FieldError("app", "is required") }
        guard let startsAt = fields.startsAt else { throw FieldError("startsAt", "is required") }
        guard let endsAt = fields.endsAt else { throw FieldError("endsAt", "is required") }
        guard let creatives = fields.creatives else { throw FieldError("creatives", "is required: at least one uploaded creative") }
        // The defaults, overlaid by every field the operator gave.
        let defaults = Campaign(
            id: id, name: name, app: app, startsAt: startsAt, endsAt: endsAt, priority: 50, weight: 100, forced: false,
            countdown: 3, skippable: true, skipAfter: nil, launchTypes: [.cold], minBackgroundSeconds: nil, jump: .none,
            creatives: creatives, targeting: .everyone, frequencyCap: nil, state: initialState(startsAt: startsAt, endsAt: endsAt, now: now),
            version: 1, createdAt: now, updatedAt: now)
        var campaign = defaults.merging(fields)
        campaign.targeting = campaign.targeting.regionsLowercased
        campaign.pacing = defaultPacing(campaign)
        guard endsAt > now else { throw FieldError("endsAt", "is in the past (\(endsAt.rfc3339))") }
        try validate(campaign, creativeExists: creativeExists)
        return campaign
    }

    /// The campaign with the given fields changed (others kept), validated as a whole; `version` grows.
    public static func update(_ campaign: Campaign, with fields: CampaignFields, now: Timestamp,
                              creativeExists: (String) -> Bool) throws(CampaignRuleError) -> Campaign {
        guard !campaign.state.isFinal else { throw .transition(TransitionError(operation: .updated, state: campaign.state)) }
        var updated = campaign.merging(fields)
        updated.targeting = updated.targeting.regionsLowercased
        updated.pacing = defaultPacing(updated)
        if fields.endsAt != nil && updated.endsAt <= now {
            throw .field(FieldError("endsAt", "is in the past (\(updated.endsAt.rfc3339)); expire the campaign instead"))
        }
        do { try validate(updated, creativeExists: creativeExists) } catch { throw .field(error) }
        if updated.state != .paused { updated.state = initialState(startsAt: updated.startsAt, endsAt: updated.endsAt, now: now) }
        updated.version += 1
        updated.updatedAt = now
        return updated
    }

    /// A goal given without a pacing is paced `even`; without a goal, the pacing stays as given (and is refused).
    static func defaultPacing(_ campaign: Campaign) -> CampaignPacing? {
        campaign.goal != nil ? campaign.pacing ?? .even : campaign.pacing
    }

    /// Scheduled, live or expired, by the time.
    public static func initialState(startsAt: Timestamp, endsAt: Timestamp, now: Timestamp) -> CampaignState {
        if endsAt <= now { return .expired }
        return startsAt <= now ? .live : .scheduled
    }

    // MARK: Operations

    /// The campaign after an operator's operation (force, unforce, pause, resume, expire, delete).
    public static func apply(_ operation: CampaignOperation, to campaign: Campaign, now: Timestamp) throws(TransitionError) -> Campaign {
        var next = campaign
        let refused = TransitionError(operation: operation, state: campaign.state)
        switch operation {
        case .forced, .unforced:
            guard !campaign.state.isFinal else { throw refused }
            next.forced = operation == .forced
        case .paused:
            guard campaign.state == .scheduled || campaign.state == .live else { throw refused }
            next.state = .paused
        case .resumed:
            guard campaign.state == .paused else { throw refused }
            next.state = initialState(startsAt: campaign.startsAt, endsAt: campaign.endsAt, now: now)
        case .expired:
            guard !campaign.state.isFinal else { throw refused }
            next.state = .expired
        case .deleted:
            guard campaign.state != .deleted else { throw refused }
            next.state = .deleted
        case .created, .updated:
            throw refused
        }
        next.version += 1
        next.updatedAt = now
        return next
    }

    /// The campaign with its serve share set by pacing, or `nil` when that changes nothing: the share is the same, the
    /// campaign is final or has no goal (a share of a campaign without one would hold it back for nothing). Its
    /// `version` and `updatedAt` stay: they are the operator's, and the SDK keys what it learned of a campaign (its
    /// hot-launch delay, its cache) on the version, which a share moving every few minutes must not reset.
    public static func pace(_ campaign: Campaign, share: Double?) -> Campaign? {
        let share = share.map { min(1, max(0, $0)) }
        guard !campaign.state.isFinal, campaign.goal != nil || share == nil, campaign.share != share else { return nil }
        var next = campaign
        next.share = share
        return next
    }

    /// What time alone does to a campaign now: a scheduled one goes live at its start, anything not final
    /// expires at its end. `nil` when nothing changes.
    public static func timeTransition(of campaign: Campaign, now: Timestamp) -> (CampaignOperation, Campaign)? {
        guard !campaign.state.isFinal else { return nil }
        var next = campaign
        if campaign.endsAt <= now {
            next.state = .expired
            next.version += 1
            next.updatedAt = now
            return (.expired, next)
        }
        if campaign.state == .scheduled && campaign.startsAt <= now {
            next.state = .live
            next.version += 1
            next.updatedAt = now
            return (.updated, next)
        }
        return nil
    }

    /// When time will next change this campaign, if ever.
    public static func nextTransition(of campaign: Campaign) -> Timestamp? {
        switch campaign.state {
        case .scheduled: min(campaign.startsAt, campaign.endsAt)
        case .live, .paused: campaign.endsAt
        case .expired, .deleted: nil
        }
    }

    // MARK: Validation

    /// Checks every field of a campaign; the first broken rule is thrown, naming its field.
    public static func validate(_ campaign: Campaign, creativeExists: (String) -> Bool) throws(FieldError) {
        try DisplayText.validate(campaign.name, field: "name", maxCharacters: maxNameCharacters, maxBytes: maxNameBytes)
        guard AppID.isValid(campaign.app) else { throw FieldError("app", "must be \(AppID.rule)") }
        guard campaign.endsAt > campaign.startsAt else { throw FieldError("endsAt", "must be after startsAt") }
        guard (0...100).contains(campaign.priority) else { throw FieldError("priority", "must be between 0 and 100") }
        guard (1...1000).contains(campaign.weight) else { throw FieldError("weight", "must be between 1 and 1000") }
        guard (1...10).contains(campaign.countdown) else { throw FieldError("countdown", "must be between 1 and 10 seconds") }
        if let skipAfter = campaign.skipAfter {
            guard campaign.skippable else { throw FieldError("skipAfter", "applies only to skippable campaigns") }
            guard (0...campaign.countdown).contains(skipAfter) else {
                throw FieldError("skipAfter", "must be between 0 and countdown (\(campaign.countdown))")
            }
        }
        guard !campaign.launchTypes.isEmpty else { throw FieldError("launchTypes", "must name at least one of cold, hot") }
        guard Set(campaign.launchTypes).count == campaign.launchTypes.count else { throw FieldError("launchTypes", "must not repeat a type") }
        if campaign.launchTypes.contains(.hot) {
            guard let seconds = campaign.minBackgroundSeconds else {
                throw FieldError("minBackgroundSeconds", "is required with the hot launch type")
            }
            guard (0...86_400).contains(seconds) else { throw FieldError("minBackgroundSeconds", "must be between 0 and 86400") }
        } else if campaign.minBackgroundSeconds != nil {
            throw FieldError("minBackgroundSeconds", "applies only with the hot launch type")
        }
        try validate(jump: campaign.jump)
        try validate(creatives: campaign.creatives, creativeExists: creativeExists)
        try validate(targeting: campaign.targeting)
        if let cap = campaign.frequencyCap {
            guard (1...1000).contains(cap.shows) else { throw FieldError("frequencyCap.shows", "must be between 1 and 1000") }
            guard (1...720).contains(cap.hours) else { throw FieldError("frequencyCap.hours", "must be between 1 and 720") }
        }
        try validate(audience: campaign.audience, testDevices: campaign.testDevices)
        try validate(party: campaign.advertiser, field: "advertiser")
        try validate(party: campaign.paidBy, field: "paidBy")
        try validate(goal: campaign.goal, pacing: campaign.pacing)
    }

    /// A goal of 1 to ``maxGoalImpressions``; a pacing only with a goal, since there is nothing to pace without one.
    static func validate(goal: CampaignGoal?, pacing: CampaignPacing?) throws(FieldError) {
        guard let goal else {
            if pacing != nil { throw FieldError("pacing", "applies only with a goal") }
            return
        }
        guard (1...maxGoalImpressions).contains(goal.impressions) else {
            throw FieldError("goal.impressions", "must be between 1 and \(maxGoalImpressions)")
        }
    }

    /// An advertiser's or payer's name is kept as given, so it is refused rather than trimmed when a space begins or
    /// ends it: what the operator reads back is what they sent and what people see.
    static func validate(party: String?, field: String) throws(FieldError) {
        guard let party else { return }
        try DisplayText.validate(party, field: field, maxCharacters: maxPartyCharacters, maxBytes: maxPartyBytes)
        if party.first?.isWhitespace == true || party.last?.isWhitespace == true {
            throw FieldError(field, "must not begin or end with a space")
        }
    }

    /// At most ``maxTestDevices`` ids of 1 to 128 bytes, no repeats; a test audience needs at least one.
    static func validate(audience: Audience?, testDevices: [String]?) throws(FieldError) {
        let devices = testDevices ?? []
        guard devices.count <= maxTestDevices else { throw FieldError("testDevices", "must list at most \(maxTestDevices) device ids") }
        for (index, device) in devices.enumerated() {
            try DisplayText.validate(device, field: "testDevices[\(index)]", maxCharacters: 128, maxBytes: 128)
        }
        guard Set(devices).count == devices.count else { throw FieldError("testDevices", "must not repeat a device id") }
        if audience == .test && devices.isEmpty { throw FieldError("testDevices", "must list at least one device id when audience is test") }
    }

    static func validate(jump: Jump) throws(FieldError) {
        guard jump.value.utf8.count <= 2048 else { throw FieldError("jump.value", "must be at most 2048 bytes") }
        guard !jump.value.contains(where: { $0.isWhitespace || $0.unicodeScalars.contains(where: DisplayText.isUnsafe) }) else {
            throw FieldError("jump.value", "must not contain spaces, control characters or bidirectional controls")
        }
        switch jump.type {
        case .none:
            guard jump.value.isEmpty else { throw FieldError("jump.value", "must be empty when jump.type is none") }
        case .url:
            let lower = jump.value.lowercased()
            let rest: Substring
            if lower.hasPrefix("https://") { rest = jump.value.dropFirst(8) }
            else if lower.hasPrefix("http://") { rest = jump.value.dropFirst(7) }
            else { throw FieldError("jump.value", "must be an http or https URL") }
            let host = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
            guard !host.isEmpty, !host.hasPrefix("@"), !host.hasPrefix(":") else { throw FieldError("jump.value", "must be an http or https URL with a host") }
        case .deeplink:
            guard let colon = jump.value.firstIndex(of: ":") else {
                throw FieldError("jump.value", "must be a deep link with a scheme, such as shop://promo")
            }
            let scheme = jump.value[..<colon].lowercased()
            guard matches(scheme, first: "abcdefghijklmnopqrstuvwxyz", rest: lowerDigit + "+.-", maxLength: 32) else {
                throw FieldError("jump.value", "must be a deep link with a scheme, such as shop://promo")
            }
            guard !["javascript", "data", "file", "vbscript", "http", "https"].contains(scheme) else {
                throw FieldError("jump.value", "the scheme \(scheme) is not allowed for a deep link (use type url for web pages)")
            }
            guard jump.value.index(after: colon) < jump.value.endIndex else { throw FieldError("jump.value", "must have something after the scheme") }
        }
    }

    static func validate(creatives: [CreativeRef], creativeExists: (String) -> Bool) throws(FieldError) {
        guard !creatives.isEmpty else { throw FieldError("creatives", "must list at least one uploaded creative") }
        guard creatives.count <= maxCreatives else { throw FieldError("creatives", "must list at most \(maxCreatives) creatives") }
        var seen = Set<String>()
        for (index, creative) in creatives.enumerated() {
            let field = "creatives[\(index)]"
            guard isSHA256(creative.sha256) else { throw FieldError("\(field).sha256", "must be 64 lowercase hex characters") }
            guard seen.insert(creative.sha256).inserted else { throw FieldError("\(field).sha256", "repeats another variant") }
            guard creativeExists(creative.sha256) else { throw FieldError("\(field).sha256", "is not an uploaded creative") }
            guard (1...1000).contains(creative.weight) else { throw FieldError("\(field).weight", "must be between 1 and 1000") }
        }
    }

    static func validate(targeting: Targeting) throws(FieldError) {
        if let platforms = targeting.platforms {
            guard !platforms.isEmpty else { throw FieldError("targeting.platforms", "must not be empty (leave it out to target all)") }
            for (index, platform) in platforms.enumerated() where !Self.platforms.contains(platform) {
                throw FieldError("targeting.platforms[\(index)]", "unknown platform \(platform); one of \(Self.platforms.sorted().joined(separator: ", "))")
            }
            guard Set(platforms).count == platforms.count else { throw FieldError("targeting.platforms", "must not repeat a platform") }
        }
        if let range = targeting.appVersions {
            var bounds: [AppVersion] = []
            for (name, text) in [("min", range.min), ("max", range.max)] {
                guard let text else { continue }
                guard let version = AppVersion(text) else {
                    throw FieldError("targeting.appVersions.\(name)", "must be a dotted numeric version such as 5.2.0")
                }
                bounds.append(version)
            }
            if range.min != nil, range.max != nil, bounds.count == 2, !(bounds[0] < bounds[1]) {
                throw FieldError("targeting.appVersions.max", "must be greater than min (max is exclusive)")
            }
        }
        if let regions = targeting.regions {
            guard !regions.isEmpty else { throw FieldError("targeting.regions", "must not be empty (leave it out to target all)") }
            guard regions.count <= maxTargets else { throw FieldError("targeting.regions", "must list at most \(maxTargets) regions") }
            for (index, region) in regions.enumerated() where !Region.isValid(region) {
                throw FieldError("targeting.regions[\(index)]", "must be \(Region.rule)")
            }
        }
        if let locales = targeting.locales {
            guard !locales.isEmpty else { throw FieldError("targeting.locales", "must not be empty (leave it out to target all)") }
            guard locales.count <= maxTargets else { throw FieldError("targeting.locales", "must list at most \(maxTargets) locales") }
            for (index, locale) in locales.enumerated() where !isLocale(locale) {
                throw FieldError("targeting.locales[\(index)]", "must be a language tag such as zh-CN or en")
            }
        }
    }

    // MARK: Character rules

    static let lowerDigit = "abcdefghijklmnopqrstuvwxyz0123456789"

    static func matches(_ text: some StringProtocol, first: String, rest: String, maxLength: Int) -> Bool {
        guard let head = text.first, text.count <= maxLength, first.contains(head) else { return false }
        return text.dropFirst().allSatisfy { rest.contains($0) }
    }

    /// 64 lowercase hexadecimal characters.
    public static func isSHA256(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }
    }

    /// A language tag: 2 or 3 lowercase letters, then `-` and 2 to 8 letters or digits, repeated.
    static func isLocale(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard let language = parts.first, (2...3).contains(language.count), language.allSatisfy({ $0.isASCII && $0.isLowercase }) else {
            return false
        }
        return parts.dropFirst().allSatisfy { part in (2...8).contains(part.count) && part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }
    }
}

/// Either a field's rule or the state machine refused an update.
public enum CampaignRuleError: Error, Sendable, Hashable {
    case field(FieldError)
    case transition(TransitionError)
}

/// A dotted numeric app version (`5.2.0`), compared number by number, missing parts counting as 0.
public struct AppVersion: Sendable, Hashable, Comparable {
    /// The numbers packed two to a word, most significant first (each is below 10⁹, so fits 32 bits); a missing
    /// number is 0, so `5.2` and `5.2.0` are the same version. Parsing and comparing allocate nothing.
    private let high: UInt64
    private let low: UInt64
    private let count: UInt8

    /// The numbers as written.
    public var parts: [Int] {
        let all = [high >> 32, high & 0xFFFF_FFFF, low >> 32, low & 0xFFFF_FFFF].map(Int.init)
        return Array(all.prefix(Int(count)))
    }

    /// Parses 1 to 4 dot-separated numbers of 1 to 9 digits each.
    public init?(_ text: String) {
        var text = text
        guard let version = text.withUTF8({ AppVersion(utf8: UnsafeRawBufferPointer($0)) }) else { return nil }
        self = version
    }

    /// Parses UTF-8 bytes as ``init(_:)`` parses a string.
    public init?(utf8 bytes: UnsafeRawBufferPointer) {
        // Each number, once finished, goes into its place: numbers 0 and 1 in `high`, 2 and 3 in `low`.
        var high: UInt64 = 0, low: UInt64 = 0
        var count = 0
        var value: UInt64 = 0
        var digits = 0
        func place(_ value: UInt64, at position: Int) {
            let shift = UInt64(position % 2 == 0 ? 32 : 0)
            if position < 2 { high |= value << shift } else { low |= value << shift }
        }
        // Wrapping arithmetic: the guards bound every sum (at most 4 numbers of at most 9 digits), so checking each
        // for overflow only cost instructions per byte.
        for byte in bytes {
            if byte == UInt8(ascii: ".") {
                guard digits > 0, count < 3 else { return nil }
                place(value, at: count)
                count &+= 1
                value = 0
                digits = 0
            } else {
                let digit = byte &- UInt8(ascii: "0")
                guard digit <= 9, digits < 9 else { return nil }
                value = value &* 10 &+ UInt64(digit)
                digits &+= 1
            }
        }
        guard digits > 0 else { return nil }
        place(value, at: count)
        self.high = high
        self.low = low
        self.count = UInt8(count + 1)
    }

    public static func < (lhs: AppVersion, rhs: AppVersion) -> Bool {
        lhs.high != rhs.high ? lhs.high < rhs.high : lhs.low < rhs.low
    }

    public static func == (lhs: AppVersion, rhs: AppVersion) -> Bool { lhs.high == rhs.high && lhs.low == rhs.low }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(high)
        hasher.combine(low)
    }
}
