import JSONRPC
import LaunchAdDomain

/// `launch.query` params, validated strictly; read through the fast path.
public struct LaunchQueryParams: Codable, Sendable, JSONReadable {
    public struct Screen: Codable, Sendable, Hashable, JSONReadable {
        public var width: Int
        public var height: Int
        public init(width: Int, height: Int) {
            self.width = width
            self.height = height
        }

        /// The members, declared once: the `Codable` conformance's keys, the readers' slots, the schema's properties.
        public enum CodingKeys: Int, JSONFieldKey {
            case width, height
        }
        static let fields = JSONFields(CodingKeys.self)

        /// The pixels a side may have.
        static var sides: ClosedRange<Int> { 1...16_384 }

        /// Read straight from the tape: what the `Codable` conformance gives.
        public init(json: JSONReader) throws {
            let object = try json.object(Self.fields)
            self.init(width: try object.int(.width), height: try object.int(.height))
        }

        /// `{"width":…,"height":…}` in either order, both integers; `nil` for anything else.
        init?(compact reader: inout CompactReader) {
            guard reader.take(UInt8(ascii: "{")) else { return nil }
            let fields = Self.fields
            var seen: UInt64 = 0
            var width: Int?, height: Int?
            repeat {
                guard let key = reader.member(&seen, in: fields), let value = reader.int() else { return nil }
                switch key {
                case .width: width = value
                case .height: height = value
                }
            } while reader.take(UInt8(ascii: ","))
            guard reader.take(UInt8(ascii: "}")), let width, let height else { return nil }
            self.init(width: width, height: height)
        }
    }

    public var app: String
    public var platform: String
    public var appVersion: String
    public var region: String?
    public var locale: String?
    public var deviceId: String?
    public var screen: Screen?
    public var launchType: LaunchType?
    public var backgroundSeconds: Int?
    public var cached: [String]?

    public init(app: String, platform: String, appVersion: String, region: String? = nil, locale: String? = nil,
                deviceId: String? = nil, screen: Screen? = nil, launchType: LaunchType? = nil, backgroundSeconds: Int? = nil,
                cached: [String]? = nil) {
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

    /// The params, declared once, in the order the `Codable` conformance reads them (so every reader's errors come
    /// in the same order): the `Codable` conformance's keys, the tape and compact readers' slots (``fields``), the
    /// schema's properties (``schema(of:)``).
    public enum CodingKeys: Int, JSONFieldKey, LaunchTargetKey {
        case app, platform, appVersion, region, locale, deviceId, screen, launchType, backgroundSeconds, cached
    }
    static let fields = JSONFields(CodingKeys.self)

    public init(json: JSONReader) throws {
        // Read into locals and made in one step (assigning to `self` field by field costs a copy of the whole value).
        let object = try json.object(Self.fields)
        let target = try Self.readTarget(object)
        let deviceId = try object.optionalString(.deviceId)
        let rest = try Self.readRest(object)
        self.init(app: target.app, platform: target.platform, appVersion: target.appVersion, region: target.region,
                  locale: target.locale, deviceId: deviceId, screen: rest.screen, launchType: rest.launchType,
                  backgroundSeconds: rest.backgroundSeconds, cached: rest.cached)
    }

    /// The members a launch query's and a prefetch's params both begin with: the app, the platform, the version,
    /// the region and the locale, as their `Codable` conformances read them.
    static func readTarget<Key: LaunchTargetKey>(_ object: JSONObjectReader<Key>) throws
        -> (app: String, platform: String, appVersion: String, region: String?, locale: String?) {
        (try object.string(.app), try object.string(.platform), try object.string(.appVersion), try object.optionalString(.region),
         try object.optionalString(.locale))
    }

    /// The launch request read and checked in one pass: what decoding the params and then ``validated()`` give
    /// (the same request, or the same error), without making the params first. The platform and the version are
    /// taken from the request's bytes, without strings of their own. The query path's reader.
    public static func request(json: JSONReader) throws -> LaunchRequest {
        let object = try json.object(fields)
        let app = try object.string(.app)
        let platform: String
        if let utf8 = try object.plainUTF8(.platform) {
            platform = platformName(utf8)
        } else {
            platform = try object.string(.platform)
        }
        let version: AppVersion?
        if let utf8 = try object.plainUTF8(.appVersion) {
            version = AppVersion(utf8: utf8)
        } else {
            version = AppVersion(try object.string(.appVersion))
        }
        let region = try object.optionalString(.region)
        let locale = try object.optionalString(.locale)
        let deviceId = try object.optionalString(.deviceId)
        let rest = try readRest(object)
        return try check(app: app, platform: platform, version: version, region: region, locale: locale, deviceId: deviceId,
                         screen: rest.screen, launchType: rest.launchType, backgroundSeconds: rest.backgroundSeconds, cached: rest.cached)
    }

    /// The launch request of a compact call's params (see `CompactReader`), or `nil` when they are not compact, or
    /// name a member twice or one that is not a param, or hold a null or anything `request(json:)` would refuse: the
    /// call is then read the general way, which answers its errors. What it gives is what `request(json:)` gives
    /// for the same bytes: the same checks make it.
    public static func request(compact reader: inout CompactReader) -> LaunchRequest? {
        guard reader.take(UInt8(ascii: "{")) else { return nil }
        let fields = Self.fields
        var seen: UInt64 = 0
        var target = CompactTarget(), deviceId: UnsafeRawBufferPointer?
        var screen: Screen?, launchType: LaunchType?, backgroundSeconds: Int?, cached: [String]?
        repeat {
            guard let key = reader.member(&seen, in: fields) else { return nil }
            // A member of a type it cannot have is left to the general way, which names it.
            switch key {
            case .app, .platform, .appVersion, .region, .locale:
                guard target.read(key, &reader) else { return nil }
            case .deviceId:
                guard let text = reader.string() else { return nil }
                deviceId = text
            case .screen:
                guard let value = Screen(compact: &reader) else { return nil }
                screen = value
            case .launchType:
                guard let text = reader.string() else { return nil }
                guard let type = CompactReader.equals(text, "cold") ? LaunchType.cold : CompactReader.equals(text, "hot") ? .hot : nil
                else { return nil }
                launchType = type
            case .backgroundSeconds:
                guard let value = reader.int() else { return nil }
                backgroundSeconds = value
            case .cached:
                guard let list = compactStrings(&reader) else { return nil }
                cached = list
            }
        } while reader.take(UInt8(ascii: ","))
        guard reader.take(UInt8(ascii: "}")), let app = target.app, let platform = target.platform, let appVersion = target.appVersion
        else { return nil }
        // The app, the region and the locale repeat from call to call: the reader's cache has their strings.
        return try? check(app: reader.text(app), platform: platformName(platform), version: AppVersion(utf8: appVersion),
                          region: target.region.map(reader.text), locale: target.locale.map(reader.text),
                          deviceId: deviceId.map { String(decoding: $0, as: UTF8.self) }, screen: screen, launchType: launchType,
                          backgroundSeconds: backgroundSeconds, cached: cached)
    }

    /// An array of strings.
    static func compactStrings(_ reader: inout CompactReader) -> [String]? {
        guard reader.take(UInt8(ascii: "[")) else { return nil }
        var list: [String] = []
        if reader.take(UInt8(ascii: "]")) { return list }
        repeat {
            guard let text = reader.string() else { return nil }
            list.append(String(decoding: text, as: UTF8.self))
        } while reader.take(UInt8(ascii: ","))
        return reader.take(UInt8(ascii: "]")) ? list : nil
    }

    /// A platform's name from its bytes, the two common ones without making a string.
    static func platformName(_ utf8: UnsafeRawBufferPointer) -> String {
        CompactReader.equals(utf8, "ios") ? "ios" : CompactReader.equals(utf8, "android") ? "android" : String(decoding: utf8, as: UTF8.self)
    }

    /// The members after `deviceId`, decoded.
    static func readRest(_ object: JSONObjectReader<CodingKeys>) throws
        -> (screen: Screen?, launchType: LaunchType?, backgroundSeconds: Int?, cached: [String]?) {
        let screen = try object.optional(.screen).map(Screen.init(json:))
        var launchType: LaunchType?
        if let type = object.optional(.launchType) {
            let text = try type.string()
            guard let value = LaunchType(rawValue: text) else {
                throw DecodingError.dataCorrupted(.init(codingPath: type.codingPath, debugDescription: "must be cold or hot"))
            }
            launchType = value
        }
        let backgroundSeconds = try object.optionalInt(.backgroundSeconds)
        let cached = try object.optional(.cached)?.array().map { try $0.string() }
        return (screen, launchType, backgroundSeconds, cached)
    }

    /// The bounds and rules of the params, written once: ``validated()`` enforces them, the schema states them.
    enum Rules {
        /// An app id and a region: ``AppID``'s and ``Region``'s rules, which campaigns keep too.
        static var app: String { "must be \(AppID.rule)" }
        static var appVersion: String { "must be a dotted numeric version such as 5.2.0" }
        static var region: String { "must be \(Region.rule)" }
        static var localeLength: ClosedRange<Int> { 1...35 }
        static var locale: String { "must be a language tag such as zh-CN" }
        static var deviceIdLength: ClosedRange<Int> { 1...128 }
        static var deviceId: String { "must be \(deviceIdLength.lowerBound) to \(deviceIdLength.upperBound) bytes" }
        /// A screen's side, in pixels.
        static var screenSide: ClosedRange<Int> { Screen.sides }
        static var backgroundSeconds: ClosedRange<Int> { 0...31_536_000 }
        static var hotNeedsBackground: String { "is required for a hot launch" }
        /// The most creatives `cached` lists.
        static var cachedCount: Int { 64 }
        static var cached: String { "must list at most \(cachedCount) creatives" }
        static var sha256: String { "must be 64 lowercase hex characters" }

        /// The rule of a bounded integer.
        static func between(_ bounds: ClosedRange<Int>) -> String { "must be between \(bounds.lowerBound) and \(bounds.upperBound)" }
    }

    /// Checks every param's range and shape; the request the engine takes.
    public func validated() throws(JSONRPCError) -> LaunchRequest {
        try Self.check(app: app, platform: platform, version: AppVersion(appVersion), region: region, locale: locale,
                       deviceId: deviceId, screen: screen, launchType: launchType, backgroundSeconds: backgroundSeconds, cached: cached)
    }

    /// The checks of ``validated()``, on the decoded params (`version` is `nil` when `appVersion` did not parse).
    private static func check(app: String, platform: String, version: AppVersion?, region: String?, locale: String?,
                              deviceId: String?, screen: Screen?, launchType: LaunchType?, backgroundSeconds: Int?,
                              cached: [String]?) throws(JSONRPCError) -> LaunchRequest {
        func bad(_ field: CodingKeys, _ rule: String) -> JSONRPCError { .invalidParams(field: field.stringValue, rule) }
        func badMember(_ field: CodingKeys, _ member: String, _ rule: String) -> JSONRPCError {
            .invalidParams(field: field.stringValue + member, rule)
        }
        guard AppID.isValid(app) else { throw bad(.app, Rules.app) }
        guard platform == "ios" || platform == "android" || CampaignRules.platforms.contains(platform) else {
            throw bad(.platform, "unknown platform; one of \(CampaignRules.platforms.sorted().joined(separator: ", "))")
        }
        guard let version else { throw bad(.appVersion, Rules.appVersion) }
        if let region, !Region.isValid(region) { throw bad(.region, Rules.region) }
        if let locale, !Rules.localeLength.contains(locale.utf8.count) { throw bad(.locale, Rules.locale) }
        if let deviceId, !Rules.deviceIdLength.contains(deviceId.utf8.count) { throw bad(.deviceId, Rules.deviceId) }
        if let screen {
            guard Rules.screenSide.contains(screen.width) else {
                throw badMember(.screen, "." + Screen.CodingKeys.width.stringValue, Rules.between(Rules.screenSide))
            }
            guard Rules.screenSide.contains(screen.height) else {
                throw badMember(.screen, "." + Screen.CodingKeys.height.stringValue, Rules.between(Rules.screenSide))
            }
        }
        let type = launchType ?? .cold
        if let backgroundSeconds, !Rules.backgroundSeconds.contains(backgroundSeconds) {
            throw bad(.backgroundSeconds, Rules.between(Rules.backgroundSeconds))
        }
        if type == .hot && backgroundSeconds == nil { throw bad(.backgroundSeconds, Rules.hotNeedsBackground) }
        if let cached {
            guard cached.count <= Rules.cachedCount else { throw bad(.cached, Rules.cached) }
            for (index, sha256) in cached.enumerated() where !CampaignRules.isSHA256(sha256) {
                throw badMember(.cached, "[\(index)]", Rules.sha256)
            }
        }
        return LaunchRequest(app: app, platform: platform, appVersion: version, region: region, locale: locale, deviceId: deviceId,
                             screen: screen.map { (width: $0.width, height: $0.height) }, launchType: type,
                             backgroundSeconds: backgroundSeconds, cached: cached.map(Set.init) ?? [])
    }
}

/// The keys of the members a launch query's and a prefetch's params both begin with: the app, the platform, the
/// version, the region and the locale (the cases of each one's `CodingKeys`).
protocol LaunchTargetKey: JSONFieldKey {
    static var app: Self { get }
    static var platform: Self { get }
    static var appVersion: Self { get }
    static var region: Self { get }
    static var locale: Self { get }
}

/// The members a launch query's and a prefetch's params begin with, as their compact readers find them: each a
/// compact string's bytes.
struct CompactTarget {
    var app: UnsafeRawBufferPointer?, platform: UnsafeRawBufferPointer?, appVersion: UnsafeRawBufferPointer?
    var region: UnsafeRawBufferPointer?, locale: UnsafeRawBufferPointer?

    /// Reads the member `key` (one of the target's); false when its value is not a compact string.
    @inline(__always)
    mutating func read<Key: LaunchTargetKey>(_ key: Key, _ reader: inout CompactReader) -> Bool {
        guard let text = reader.string() else { return false }
        switch key {
        case .app: app = text
        case .platform: platform = text
        case .appVersion: appVersion = text
        case .region: region = text
        default: locale = text
        }
        return true
    }
}
