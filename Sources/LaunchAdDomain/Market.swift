import Foundation

/// The market an app is published in, which decides the rules its campaigns must keep (``MarketRules``).
public enum Market: String, Sendable, Codable, CaseIterable, Hashable {
    /// Mainland China.
    case cn
    /// The European Union.
    case eu
    /// Anywhere else: no rule beyond the campaign's own.
    case global

    /// The market of an app never set.
    public static let `default` = Market.global
}

/// What campaignd knows of an app: its market and where its day begins.
public struct AppSettings: Sendable, Codable, Hashable {
    /// The app's id (``AppID``).
    public var app: String
    public var market: Market
    /// An IANA time zone name (``AppSettings/isKnownTimeZone(_:)``).
    public var timezone: String
    /// The sha256 of an uploaded creative: the logo shown below a `half` ad.
    public var logo: String?
    /// When it was last set; absent for an app never set (its defaults).
    public var updatedAt: Timestamp?

    /// The time zone of an app never set.
    public static let defaultTimeZone = "UTC"

    public init(app: String, market: Market = .default, timezone: String = AppSettings.defaultTimeZone, logo: String? = nil,
                updatedAt: Timestamp? = nil) {
        self.app = app
        self.market = market
        self.timezone = timezone
        self.logo = logo
        self.updatedAt = updatedAt
    }

    /// Whether `name` is a zone of the tz database (Foundation reads /usr/share/zoneinfo): only names, never an
    /// abbreviation or an offset Foundation would also take (`GMT+8`, `CST`), so a day's start is never a guess.
    public static func isKnownTimeZone(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= 64, TimeZone(identifier: name) != nil else { return false }
        return TimeZone.knownTimeZoneIdentifiers.contains(name) || name == defaultTimeZone
    }

    /// The app with the patch's fields set, the others kept; checked (an error names the field). Whether the logo
    /// is an uploaded creative is the store's to say.
    public func merging(_ patch: AppPatch) throws(FieldError) -> AppSettings {
        var next = self
        if let market = patch.market { next.market = market }
        if let timezone = patch.timezone {
            guard Self.isKnownTimeZone(timezone) else {
                throw FieldError("timezone", "must be an IANA time zone name of the tz database (such as Asia/Shanghai or UTC)")
            }
            next.timezone = timezone
        }
        if let logo = patch.logo {
            if logo.isEmpty {
                next.logo = nil
            } else {
                guard CampaignRules.isSHA256(logo) else { throw FieldError("logo", "must be an uploaded creative's sha256 (64 of 0-9, a-f), or \"\" to remove it") }
                next.logo = logo
            }
        }
        return next
    }
}

/// `app.set`'s fields: only those given change; an app never set starts from the defaults (`global`, `UTC`).
public struct AppPatch: Sendable, Codable, Hashable {
    public var app: String
    public var market: Market?
    public var timezone: String?
    /// A creative's sha256; `""` removes the logo.
    public var logo: String?

    public init(app: String, market: Market? = nil, timezone: String? = nil, logo: String? = nil) {
        self.app = app
        self.market = market
        self.timezone = timezone
        self.logo = logo
    }
}

/// One change to an app as kept in its log: who made it, when, and the app before and after it.
public struct AppChange: Sendable, Codable, Hashable {
    public var at: Timestamp
    public var actor: String
    /// Absent when the change first set the app.
    public var before: AppSettings?
    public var after: AppSettings

    public init(at: Timestamp, actor: String, before: AppSettings?, after: AppSettings) {
        self.at = at
        self.actor = actor
        self.before = before
        self.after = after
    }
}
