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

        private static let fields: [StaticString] = ["width", "height"]

        /// Read straight from the tape: what the `Codable` conformance gives.
        public init(json: JSONReader) throws {
            let fields = try json.object(fields: Self.fields)
            self.init(width: try fields.int(slot: 0), height: try fields.int(slot: 1))
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

    /// The params' names, in the order the `Codable` conformance reads them (so errors come in the same order).
    private static let fields: [StaticString] = ["app", "platform", "appVersion", "region", "locale", "deviceId", "screen",
                                                 "launchType", "backgroundSeconds", "cached"]

    public init(json: JSONReader) throws {
        // Members are found by their slot in `fields`, the order of the list above. Read into locals and made in
        // one step (assigning to `self` field by field costs a copy of the whole value).
        let object = try json.object(fields: Self.fields)
        let target = try Self.readTarget(object)
        let deviceId = try object.optionalString(slot: 5)
        let rest = try Self.readRest(object)
        self.init(app: target.app, platform: target.platform, appVersion: target.appVersion, region: target.region,
                  locale: target.locale, deviceId: deviceId, screen: rest.screen, launchType: rest.launchType,
                  backgroundSeconds: rest.backgroundSeconds, cached: rest.cached)
    }

    /// The members a launch query's and a prefetch's params both begin with, in slots 0 to 4 of their fields: the
    /// app, the platform, the version, the region and the locale, as their `Codable` conformances read them.
    static func readTarget(_ object: JSONObjectReader) throws
        -> (app: String, platform: String, appVersion: String, region: String?, locale: String?) {
        (try object.string(slot: 0), try object.string(slot: 1), try object.string(slot: 2), try object.optionalString(slot: 3),
         try object.optionalString(slot: 4))
    }

    /// The launch request read and checked in one pass: what decoding the params and then ``validated()`` give
    /// (the same request, or the same error), without making the params first. The platform and the version are
    /// taken from the request's bytes, without strings of their own. The query path's reader.
    public static func request(json: JSONReader) throws -> LaunchRequest {
        let object = try json.object(fields: fields)
        let app = try object.string(slot: 0)
        let platform: String
        if let utf8 = try object.plainUTF8(slot: 1) {
            platform = platformName(utf8)
        } else {
            platform = try object.string(slot: 1)
        }
        let version: AppVersion?
        if let utf8 = try object.plainUTF8(slot: 2) {
            version = AppVersion(utf8: utf8)
        } else {
            version = AppVersion(try object.string(slot: 2))
        }
        let region = try object.optionalString(slot: 3)
        let locale = try object.optionalString(slot: 4)
        let deviceId = try object.optionalString(slot: 5)
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
        var seen: UInt64 = 0
        var target = CompactTarget(), deviceId: UnsafeRawBufferPointer?
        var screen: Screen?, launchType: LaunchType?, backgroundSeconds: Int?, cached: [String]?
        repeat {
            guard let slot = reader.member(&seen, slot: compactSlot) else { return nil }
            // A member of a type it cannot have is left to the general way, which names it.
            switch slot {
            case 0...4:
                guard target.read(slot: slot, &reader) else { return nil }
            case 5:
                guard let text = reader.string() else { return nil }
                deviceId = text
            case 6:
                guard let value = compactScreen(&reader) else { return nil }
                screen = value
            case 7:
                guard let text = reader.string() else { return nil }
                guard let type = CompactReader.equals(text, "cold") ? LaunchType.cold : CompactReader.equals(text, "hot") ? .hot : nil
                else { return nil }
                launchType = type
            case 8:
                guard let value = reader.int() else { return nil }
                backgroundSeconds = value
            default:
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

    /// The slot in `fields` of a param's name, or -1.
    private static func compactSlot(_ key: UnsafeRawBufferPointer) -> Int {
        switch key.count {
        case 3: CompactReader.equals(key, "app") ? 0 : -1
        case 6: CompactReader.equals(key, "region") ? 3 : CompactReader.equals(key, "locale") ? 4 : CompactReader.equals(key, "screen") ? 6 : CompactReader.equals(key, "cached") ? 9 : -1
        case 8: CompactReader.equals(key, "platform") ? 1 : CompactReader.equals(key, "deviceId") ? 5 : -1
        case 10: CompactReader.equals(key, "appVersion") ? 2 : CompactReader.equals(key, "launchType") ? 7 : -1
        case 17: CompactReader.equals(key, "backgroundSeconds") ? 8 : -1
        default: -1
        }
    }

    /// `{"width":…,"height":…}` in either order, both integers.
    static func compactScreen(_ reader: inout CompactReader) -> Screen? {
        guard reader.take(UInt8(ascii: "{")) else { return nil }
        var width: Int?, height: Int?
        repeat {
            guard let key = reader.key() else { return nil }
            if CompactReader.equals(key, "width") && width == nil {
                guard let value = reader.int() else { return nil }
                width = value
            } else if CompactReader.equals(key, "height") && height == nil {
                guard let value = reader.int() else { return nil }
                height = value
            } else {
                return nil
            }
        } while reader.take(UInt8(ascii: ","))
        guard reader.take(UInt8(ascii: "}")), let width, let height else { return nil }
        return Screen(width: width, height: height)
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
    static func readRest(_ object: JSONObjectReader) throws
        -> (screen: Screen?, launchType: LaunchType?, backgroundSeconds: Int?, cached: [String]?) {
        let screen = try object.optional(slot: 6).map(Screen.init(json:))
        var launchType: LaunchType?
        if let type = object.optional(slot: 7) {
            let text = try type.string()
            guard let value = LaunchType(rawValue: text) else {
                throw DecodingError.dataCorrupted(.init(codingPath: type.codingPath, debugDescription: "must be cold or hot"))
            }
            launchType = value
        }
        let backgroundSeconds = try object.optionalInt(slot: 8)
        let cached = try object.optional(slot: 9)?.array().map { try $0.string() }
        return (screen, launchType, backgroundSeconds, cached)
    }

    /// Whether every byte is one of a-z, 0-9, '.', '_', '-'.
    private static func isAppName(_ name: String) -> Bool {
        var name = name
        return name.withUTF8 { utf8 in
            for byte in utf8 where !((byte >= 97 && byte <= 122) || (byte >= 48 && byte <= 57) || byte == 46 || byte == 95 || byte == 45) {
                return false
            }
            return true
        }
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
        func bad(_ field: String, _ rule: String) -> JSONRPCError { .invalidParams(field: field, rule) }
        guard !app.isEmpty, app.utf8.count <= 64, isAppName(app) else {
            throw bad("app", "must be 1 to 64 of a-z, 0-9, '.', '_', '-'")
        }
        guard platform == "ios" || platform == "android" || CampaignRules.platforms.contains(platform) else {
            throw bad("platform", "unknown platform; one of \(CampaignRules.platforms.sorted().joined(separator: ", "))")
        }
        guard let version else { throw bad("appVersion", "must be a dotted numeric version such as 5.2.0") }
        if let region, region.isEmpty || region.utf8.count > 32 { throw bad("region", "must be 1 to 32 characters") }
        if let locale, locale.isEmpty || locale.utf8.count > 35 { throw bad("locale", "must be a language tag such as zh-CN") }
        if let deviceId, deviceId.isEmpty || deviceId.utf8.count > 128 { throw bad("deviceId", "must be 1 to 128 bytes") }
        if let screen {
            guard (1...16_384).contains(screen.width) else { throw bad("screen.width", "must be between 1 and 16384") }
            guard (1...16_384).contains(screen.height) else { throw bad("screen.height", "must be between 1 and 16384") }
        }
        let type = launchType ?? .cold
        if let backgroundSeconds, !(0...31_536_000).contains(backgroundSeconds) {
            throw bad("backgroundSeconds", "must be between 0 and 31536000")
        }
        if type == .hot && backgroundSeconds == nil { throw bad("backgroundSeconds", "is required for a hot launch") }
        if let cached {
            guard cached.count <= 64 else { throw bad("cached", "must list at most 64 creatives") }
            for (index, sha256) in cached.enumerated() where !CampaignRules.isSHA256(sha256) {
                throw bad("cached[\(index)]", "must be 64 lowercase hex characters")
            }
        }
        return LaunchRequest(app: app, platform: platform, appVersion: version, region: region, locale: locale, deviceId: deviceId,
                             screen: screen.map { (width: $0.width, height: $0.height) }, launchType: type,
                             backgroundSeconds: backgroundSeconds, cached: cached.map(Set.init) ?? [])
    }
}

/// The members a launch query's and a prefetch's params begin with (slots 0 to 4 of their fields: the app, the
/// platform, the version, the region and the locale), as their compact readers find them: each a compact string's
/// bytes.
struct CompactTarget {
    var app: UnsafeRawBufferPointer?, platform: UnsafeRawBufferPointer?, appVersion: UnsafeRawBufferPointer?
    var region: UnsafeRawBufferPointer?, locale: UnsafeRawBufferPointer?

    /// Reads the member of `slot` (0 to 4); false when its value is not a compact string.
    @inline(__always)
    mutating func read(slot: Int, _ reader: inout CompactReader) -> Bool {
        guard let text = reader.string() else { return false }
        switch slot {
        case 0: app = text
        case 1: platform = text
        case 2: appVersion = text
        case 3: region = text
        default: locale = text
        }
        return true
    }
}
