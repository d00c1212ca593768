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
    /// An IANA time zone name (``AppSettings/isKnownTimeZone(_:)``): where the app's day begins: its stats by day
    /// (`app.stats`, one campaign's `campaign.stats`) and its goals by day.
    public var timezone: String
    /// The sha256 of an uploaded creative: the logo shown below a `half` ad.
    public var logo: String?
    /// When it was last set; absent for an app never set (its defaults).
    public var updatedAt: Timestamp?
    /// The threshold on reports (`launch.report` kind `reported`): campaignd pauses a live campaign of the app (actor
    /// `rules`) when a report brings its reports of the current or previous UTC hour to this number, hours before
    /// the campaign's last resume not counted; absent: never.
    public var reportPause: Int?

    /// The time zone of an app never set.
    public static let defaultTimeZone = "UTC"
    /// The thresholds `reportPause` takes (0 in a patch turns it off).
    public static let reportPauseRange: ClosedRange<Int> = 1...1_000_000

    public init(app: String, market: Market = .default, timezone: String = AppSettings.defaultTimeZone, logo: String? = nil,
                updatedAt: Timestamp? = nil, reportPause: Int? = nil) {
        self.app = app
        self.market = market
        self.timezone = timezone
        self.logo = logo
        self.updatedAt = updatedAt
        self.reportPause = reportPause
    }

    /// Whether `name` is a zone of the tz database, by one rule: it has a tz name's shape (`UTC`, or `Area/Location`
    /// or `Area/Location/Sub` whose parts each begin with a capital A-Z followed by letters, digits, `_`, `+` or `-`,
    /// 64 bytes at most), Foundation makes a zone of it, and, where the tz database is installed
    /// (`/usr/share/zoneinfo`), it is a file there (not a directory). So an abbreviation or an offset Foundation would
    /// also take (`GMT+8`, `CST`, `+08:00`) is refused and a day's start is never a guess, while every current and
    /// backward name is taken (`Asia/Kolkata` and `Asia/Calcutta` alike: Foundation's own list on Linux leaves some
    /// out). The shape admits no `.` and no empty part, so the path never leaves the database's folder.
    public static func isKnownTimeZone(_ name: String) -> Bool {
        guard name.utf8.count <= 64, hasTimeZoneShape(name), TimeZone(identifier: name) != nil else { return false }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: zoneinfo, isDirectory: &isDirectory), isDirectory.boolValue else { return true }
        return FileManager.default.fileExists(atPath: zoneinfo + "/" + name, isDirectory: &isDirectory) && !isDirectory.boolValue
    }

    /// Where the tz database is installed on the systems campaignd runs on.
    static let zoneinfo = "/usr/share/zoneinfo"

    private static func hasTimeZoneShape(_ name: String) -> Bool {
        if name == defaultTimeZone { return true }
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        return (2...3).contains(parts.count) && parts.allSatisfy { part in
            guard let first = part.unicodeScalars.first, ("A"..."Z").contains(first) else { return false }
            return part.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "_+-".unicodeScalars.contains($0)) }
        }
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
        if let reportPause = patch.reportPause {
            guard reportPause == 0 || Self.reportPauseRange.contains(reportPause) else {
                throw FieldError("reportPause", "must be \(Self.reportPauseRange.lowerBound) to \(Self.reportPauseRange.upperBound) reports in an hour, or 0 to turn it off")
            }
            next.reportPause = reportPause == 0 ? nil : reportPause
        }
        return next
    }
}

/// `app.set`'s fields: only those given change; the first `app.set` of an app must give its market (campaignd
/// refuses it otherwise) and starts from the default time zone `UTC` and no logo.
public struct AppPatch: Sendable, Codable, Hashable {
    public var app: String
    public var market: Market?
    public var timezone: String?
    /// A creative's sha256; `""` removes the logo.
    public var logo: String?
    /// The threshold on reports of the current or previous UTC hour that pauses a campaign of the app (as
    /// ``AppSettings/reportPause``, in ``AppSettings/reportPauseRange``); 0 turns it off.
    public var reportPause: Int?

    public init(app: String, market: Market? = nil, timezone: String? = nil, logo: String? = nil, reportPause: Int? = nil) {
        self.app = app
        self.market = market
        self.timezone = timezone
        self.logo = logo
        self.reportPause = reportPause
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
