import JSONRPC
import LaunchAdDomain

/// `launch.query` params, validated strictly; read by one reader (``read(_:)``) from the tape, a compact call or
/// `GET /launch-ad`'s query string.
public struct LaunchQueryParams: Codable, Sendable, JSONReadable, MemberReadable {
    public struct Screen: Codable, Sendable, Hashable, JSONReadable, MemberReadable {
        public var width: Int
        public var height: Int
        public init(width: Int, height: Int) {
            self.width = width
            self.height = height
        }

        /// The members, declared once: the `Codable` conformance's keys, the reader's cases, the schema's properties.
        public enum CodingKeys: Int, JSONFieldKey {
            case width, height
        }
        public static let fields = JSONFields(CodingKeys.self)

        /// The pixels a side may have.
        static var sides: ClosedRange<Int> { 1...16_384 }

        /// Read straight from the tape: what the `Codable` conformance gives.
        public init(json: JSONReader) throws {
            self = try Self.read(json: json)
        }

        /// The screen's one reader: `{"width":…,"height":…}`, both integers.
        public static func read<Source: MemberSource>(_ source: inout Source) throws(Source.Failure) -> Self
            where Source.Key == CodingKeys {
            var width: Int?, height: Int?
            while let key = try source.next() {
                switch key {
                case .width: width = try source.int(textRule: Rules.between(sides))
                case .height: height = try source.int(textRule: Rules.between(sides))
                }
            }
            guard let width else { throw source.missing(.width) }
            guard let height else { throw source.missing(.height) }
            return Screen(width: width, height: height)
        }
    }

    // Constants: with `var` members, the value the reader makes was copied whole (each string retained and released)
    // on its way out, on every query.
    public let app: String
    public let platform: String
    public let appVersion: String
    public let region: String?
    public let locale: String?
    public let deviceId: String?
    public let screen: Screen?
    public let launchType: LaunchType?
    public let backgroundSeconds: Int?
    public let cached: [String]?

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

    /// The params, declared once, in the order the `Codable` conformance reads them (so every source's errors come
    /// in the same order): the `Codable` conformance's keys, the cases of the one reader (``read(_:)``) and the
    /// names its sources find (``fields``), the schema's properties (``schema(of:)``), `GET /launch-ad`'s parameters.
    public enum CodingKeys: Int, JSONFieldKey, LaunchTargetKey {
        case app, platform, appVersion, region, locale, deviceId, screen, launchType, backgroundSeconds, cached
    }
    public static let fields = JSONFields(CodingKeys.self)

    /// Read straight from the tape: what the `Codable` conformance gives, the same value or an error naming the same
    /// field.
    public init(json: JSONReader) throws {
        self = try Self.read(json: json)
    }

    /// The params as they are: what the one reader (``read(_:version:make:)``) reads, made into params.
    @inline(__always)
    public static func read<Source: MemberSource>(_ source: inout Source) throws(Source.Failure) -> Self
        where Source.Key == CodingKeys {
        try read(&source, version: { String(decoding: $0, as: UTF8.self) }) {
            app, platform, appVersion, region, locale, deviceId, screen, launchType, backgroundSeconds, cached throws(Source.Failure) in
            Self(app: app, platform: platform, appVersion: appVersion, region: region, locale: locale, deviceId: deviceId, screen: screen,
                 launchType: launchType, backgroundSeconds: backgroundSeconds, cached: cached)
        }
    }

    /// What the one reader hands on: every member, in the order of the keys, the version as the reader's `version`
    /// made it. The strings are owned, so that what is made of them (the params, a request) takes them without a
    /// copy.
    typealias Make<Version, Made, Failure: Error> = (_ app: consuming String, _ platform: consuming String, _ appVersion: Version,
                                                     _ region: consuming String?, _ locale: consuming String?,
                                                     _ deviceId: consuming String?, _ screen: Screen?, _ launchType: LaunchType?,
                                                     _ backgroundSeconds: Int?, _ cached: consuming [String]?) throws(Failure) -> Made

    /// The params' one reader, whatever the source and whatever is made of them: every member read by its key (a
    /// new key does not compile until it is read here), the required ones then demanded, and all handed to `make`,
    /// which makes the params (``read(_:)``) or the request they check into (``request(json:)``: made from the
    /// members read rather than from params made first, whose strings the request copied and which were then
    /// destroyed, on every query). The version is what `version` makes of its bytes: the request's ``AppVersion``
    /// parsed where it lies, without a string. A query string spells `screen` `WIDTHxHEIGHT` and `cached` `h1,h2`.
    @inline(__always)
    static func read<Source: MemberSource, Version, Made>(_ source: inout Source, version: (UnsafeRawBufferPointer) -> Version,
                                                         make: Make<Version, Made, Source.Failure>) throws(Source.Failure) -> Made
        where Source.Key == CodingKeys {
        // Read into locals, each moved once into what `make` makes (a holder of the shared members, or a value made
        // first and then assigned, cost copies of them on every query).
        var app: String?, platform: String?, appVersion: Version?, region: String?, locale: String?
        var deviceId: String?, screen: Screen?, launchType: LaunchType?, backgroundSeconds: Int?, cached: [String]?
        while let key = try source.next() {
            switch key {
            case .app: app = try source.string(repeats: true)
            case .platform: platform = try source.string(known: platformName)
            case .appVersion: appVersion = try source.utf8(version)
            case .region: region = try source.optionalString(repeats: true)
            case .locale: locale = try source.optionalString(repeats: true)
            case .deviceId: deviceId = try source.optionalString()
            case .screen:
                screen = try source.optionalObject(Screen.self, text: { text in
                    let sides = text.split(separator: "x", omittingEmptySubsequences: false)
                    guard sides.count == 2, let width = Int(sides[0]), let height = Int(sides[1]) else { return nil }
                    return Screen(width: width, height: height)
                }, textRule: "must be WIDTHxHEIGHT, such as 1179x2556")
            case .launchType: launchType = try source.optionalCase(LaunchType.self, rule: "must be cold or hot")
            case .backgroundSeconds: backgroundSeconds = try source.optionalInt(textRule: "must be a whole number of seconds")
            case .cached: cached = try source.optionalStrings(separator: ",")
            }
        }
        // Taken out of the locals (which are then done with), so that each string moves into `make` rather than being
        // retained for it and released with the local.
        guard let app = app.take() else { throw source.missing(.app) }
        guard let platform = platform.take() else { throw source.missing(.platform) }
        guard let appVersion else { throw source.missing(.appVersion) }
        return try make(app, platform, appVersion, region.take(), locale.take(), deviceId.take(), screen, launchType, backgroundSeconds,
                        cached.take())
    }

    /// The launch request read and checked: what decoding the params and then ``validated()`` give (the same
    /// request, or the same error). The query path's reader.
    public static func request(json: JSONReader) throws -> LaunchRequest {
        var source = try TapeMembers(json, fields)
        return try read(&source, version: AppVersion.init(utf8:), make: checked { $0 })
    }

    /// The launch request of a compact call's params (see `CompactReader`), or `nil` when they are not compact, or
    /// name a member twice or one that is not a param, or hold a null or anything `request(json:)` would refuse: the
    /// call is then read the general way, which answers its errors. What it gives is what `request(json:)` gives
    /// for the same bytes: the same reader and checks make it.
    public static func request(compact reader: inout CompactReader) -> LaunchRequest? {
        CompactMembers.reading(&reader, fields) { source throws(CompactMiss) in
            try read(&source, version: AppVersion.init(utf8:), make: checked { _ in CompactMiss() })
        }
    }

    /// What makes the one reader's request: the members read, checked as ``validated()`` checks params, a refusal
    /// said as `failure` says it for the source.
    @inline(__always)
    static func checked<Failure: Error>(_ failure: @escaping (JSONRPCError) -> Failure) -> Make<AppVersion?, LaunchRequest, Failure> {
        { app, platform, version, region, locale, deviceId, screen, launchType, backgroundSeconds, cached throws(Failure) in
            do throws(JSONRPCError) {
                return try check(app: app, platform: platform, version: version, region: region, locale: locale, deviceId: deviceId,
                                 screen: screen, launchType: launchType, backgroundSeconds: backgroundSeconds, cached: cached)
            } catch {
                throw failure(error)
            }
        }
    }

    /// The two common platforms' names, without making a string, when `utf8` spells one of them.
    @inline(__always)
    static func platformName(_ utf8: UnsafeRawBufferPointer) -> String? {
        CompactReader.equals(utf8, "ios") ? "ios" : CompactReader.equals(utf8, "android") ? "android" : nil
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

    /// Checks every param's range and shape; the request the engine takes (the checks are the one reader's request's
    /// too, so they are written once).
    public func validated() throws(JSONRPCError) -> LaunchRequest {
        try Self.check(app: app, platform: platform, version: AppVersion(appVersion), region: region, locale: locale, deviceId: deviceId,
                       screen: screen, launchType: launchType, backgroundSeconds: backgroundSeconds, cached: cached)
    }

    /// The checks of ``validated()`` and of the one reader's request (`version` is `nil` when the version did not
    /// parse). The strings are owned and moved into the request: borrowed, the request copied them and the reader
    /// then destroyed its own.
    private static func check(app: consuming String, platform: consuming String, version: AppVersion?, region: consuming String?,
                              locale: consuming String?, deviceId: consuming String?, screen: Screen?, launchType: LaunchType?,
                              backgroundSeconds: Int?, cached: consuming [String]?) throws(JSONRPCError) -> LaunchRequest {
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
        if let count = locale?.utf8.count, !Rules.localeLength.contains(count) { throw bad(.locale, Rules.locale) }
        if let count = deviceId?.utf8.count, !Rules.deviceIdLength.contains(count) { throw bad(.deviceId, Rules.deviceId) }
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
/// version, the region and the locale (the cases of each one's `CodingKeys`), which their schemas state alike.
protocol LaunchTargetKey: JSONFieldKey {
    static var app: Self { get }
    static var platform: Self { get }
    static var appVersion: Self { get }
    static var region: Self { get }
    static var locale: Self { get }
}

/// The members of a ``LaunchTargetKey`` as a params type's reader finds them, read the same way for both params.
struct LaunchTarget<Key: LaunchTargetKey> {
    var app: String?, platform: String?, appVersion: String?, region: String?, locale: String?

    /// Reads the member `key`, one of the target's. The app, the region and the locale repeat from call to call and
    /// are kept by a compact source's cache; the platform and the version, short, are made afresh (kept too, they
    /// would take the others' places in the cache).
    @inline(__always)
    mutating func read<Source: MemberSource>(_ key: Key, _ source: inout Source) throws(Source.Failure) where Source.Key == Key {
        switch key {
        case .app: app = try source.string(repeats: true)
        case .platform: platform = try source.string(known: LaunchQueryParams.platformName)
        case .appVersion: appVersion = try source.string(repeats: true)
        case .region: region = try source.optionalString(repeats: true)
        default: locale = try source.optionalString(repeats: true)
        }
    }

    /// The required members, once every member is read; the error of the first one missing.
    @inline(__always)
    func required<Source: MemberSource>(_ source: Source) throws(Source.Failure) -> (app: String, platform: String, appVersion: String)
        where Source.Key == Key {
        guard let app else { throw source.missing(.app) }
        guard let platform else { throw source.missing(.platform) }
        guard let appVersion else { throw source.missing(.appVersion) }
        return (app, platform, appVersion)
    }
}
