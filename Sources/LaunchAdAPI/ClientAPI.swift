import CampaignStore
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
    fileprivate static func compactScreen(_ reader: inout CompactReader) -> Screen? {
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
    fileprivate static func compactStrings(_ reader: inout CompactReader) -> [String]? {
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
    fileprivate static func platformName(_ utf8: UnsafeRawBufferPointer) -> String {
        CompactReader.equals(utf8, "ios") ? "ios" : CompactReader.equals(utf8, "android") ? "android" : String(decoding: utf8, as: UTF8.self)
    }

    /// The members after `deviceId`, decoded.
    private static func readRest(_ object: JSONObjectReader) throws
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
private struct CompactTarget {
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

/// Where an edge serves creatives: the start of every `imgUrl` it answers, escaped for JSON once (when the edge
/// learns its address) rather than in every answer.
public struct CreativeBase: Sendable {
    public let url: String
    /// `url` as the inside of a JSON string.
    let escaped: [UInt8]

    public init(_ url: String) {
        self.url = url
        var writer = JSONWriter(reservingCapacity: url.utf8.count + 8)
        writer.write(string: url)
        escaped = writer.withUnsafeBytes { Array($0.dropFirst().dropLast()) }  // without the quotes
    }
}

/// The state an edge answers from, as the launch answer's `epoch` and `seq`: written as JSON once per state rather
/// than in every answer.
public struct AnswerState: Sendable {
    public let epoch: String
    public let seq: Int64
    /// `,"epoch":"…","seq":…,"revoked":`
    let json: [UInt8]

    public init(epoch: String, seq: Int64) {
        self.epoch = epoch
        self.seq = seq
        var writer = JSONWriter(reservingCapacity: epoch.utf8.count + 48)
        writer.writeRaw(",\"epoch\":")
        writer.write(string: epoch)
        writer.writeRaw(",\"seq\":")
        writer.write(int: Int(seq))
        writer.writeRaw(",\"revoked\":")
        json = writer.bytes
    }
}

/// The launch answer, with the field names apps already parse.
public struct LaunchAnswer: Codable, Sendable, JSONWritable {
    /// The creative shown: what the edge knows of its bytes.
    public typealias Creative = CreativeFacts

    // A field changed after the answer was made from a decision drops the parts prepared with it, so what is
    // written stays what the fields say.
    public var hasAd: Bool { didSet { prepared = nil } }
    public var id: Int64? { didSet { prepared = nil } }
    public var version: Int? { didSet { prepared = nil } }
    public var imgUrl: String? { didSet { prepared = nil } }
    public var creative: Creative? { didSet { prepared = nil } }
    public var jumpType: String? { didSet { prepared = nil } }
    public var jumpValue: String? { didSet { prepared = nil } }
    public var showMoment: String? { didSet { prepared = nil } }
    public var countdown: Int? { didSet { prepared = nil } }
    public var skippable: Bool? { didSet { prepared = nil } }
    public var skipAfter: Int? { didSet { prepared = nil } }
    public var forced: Bool? { didSet { prepared = nil } }
    public var expiresAt: Timestamp? { didSet { prepared = nil; expiresAtText = nil } }
    public var epoch: String
    public var seq: Int64
    public var revoked: [Int64]
    /// `expiresAt` already as text, when the answer was made from a decision (saves formatting it per query).
    private var expiresAtText: String?
    /// The members prepared with the decision's creative, when the answer was made from a decision and none of
    /// the fields they hold was changed since.
    private var prepared: AnswerParts?
    /// Whether ``write(json:)`` writes from prepared parts (for tests).
    public var isPrepared: Bool { prepared != nil }
    private var creativeBase = CreativeBase("")

    enum CodingKeys: String, CodingKey {
        case hasAd, id, version, imgUrl, creative, jumpType, jumpValue, showMoment, countdown, skippable, skipAfter, forced,
             expiresAt, epoch, seq, revoked
    }

    /// An answer from its fields (examples and clients; the service makes its answers from decisions).
    public init(hasAd: Bool, id: Int64? = nil, version: Int? = nil, imgUrl: String? = nil, creative: Creative? = nil,
                jumpType: String? = nil, jumpValue: String? = nil, showMoment: String? = nil, countdown: Int? = nil,
                skippable: Bool? = nil, skipAfter: Int? = nil, forced: Bool? = nil, expiresAt: Timestamp? = nil,
                epoch: String, seq: Int64, revoked: [Int64]) {
        self.hasAd = hasAd
        self.id = id
        self.version = version
        self.imgUrl = imgUrl
        self.creative = creative
        self.jumpType = jumpType
        self.jumpValue = jumpValue
        self.showMoment = showMoment
        self.countdown = countdown
        self.skippable = skippable
        self.skipAfter = skipAfter
        self.forced = forced
        self.expiresAt = expiresAt
        self.epoch = epoch
        self.seq = seq
        self.revoked = revoked
    }

    /// The answer for a decision.
    public init(_ decision: Decision, epoch: String, seq: Int64, creativeBaseURL: String) {
        self.epoch = epoch
        self.seq = seq
        revoked = decision.revoked
        guard let candidate = decision.candidate, let held = decision.held else {
            hasAd = false
            return
        }
        let campaign = candidate.campaign
        let facts = held.facts
        hasAd = true
        id = campaign.id
        version = campaign.version
        imgUrl = creativeBaseURL + held.path
        creative = facts
        jumpType = campaign.jump.type.rawValue
        jumpValue = campaign.jump.value
        showMoment = candidate.showMoment
        countdown = campaign.countdown
        skippable = campaign.skippable
        skipAfter = campaign.skipAfter
        forced = campaign.forced
        expiresAt = campaign.endsAt
        expiresAtText = candidate.expiresAtText
        prepared = held.answerParts
        creativeBase = CreativeBase(creativeBaseURL)
    }

    /// Writes the answer for `decision` straight from the parts prepared with its campaign and creative, without
    /// making a ``LaunchAnswer``: what `LaunchAnswer(decision, …).write(json:)` writes, for the query path.
    public static func write(_ decision: Decision, state: AnswerState, creativeBase: CreativeBase, into json: inout JSONWriter) {
        guard decision.candidate != nil, let held = decision.held else {
            json.writeRaw("{\"hasAd\":false")
            writeState(state, revoked: decision.revoked, json: &json)
            return
        }
        writePrepared(held.answerParts, creativeBase: creativeBase, json: &json)
        writeState(state, revoked: decision.revoked, json: &json)
    }

    public func write(json: inout JSONWriter) {
        if hasAd, let prepared {
            Self.writePrepared(prepared, creativeBase: creativeBase, json: &json)
            Self.writeState(AnswerState(epoch: epoch, seq: seq), revoked: revoked, json: &json)
            return
        }
        json.writeObject { object in
            object.field("hasAd", hasAd)
            if hasAd {
                object.field("id", ifPresent: id.map(Int.init))
                object.field("version", ifPresent: version)
                object.field("imgUrl", ifPresent: imgUrl)
                if let creative {
                    object.field("creative") { writer in
                        writer.writeObject { inner in
                            inner.field("sha256", creative.sha256)
                            inner.field("contentType", creative.contentType)
                            inner.field("width", creative.width)
                            inner.field("height", creative.height)
                            inner.field("size", creative.size)
                        }
                    }
                }
                object.field("jumpType", ifPresent: jumpType)
                object.field("jumpValue", ifPresent: jumpValue)
                object.field("showMoment", ifPresent: showMoment)
                object.field("countdown", ifPresent: countdown)
                object.field("skippable", ifPresent: skippable)
                object.field("skipAfter", ifPresent: skipAfter)
                object.field("forced", ifPresent: forced)
                object.field("expiresAt", ifPresent: expiresAtText ?? expiresAt?.rfc3339)
            }
            object.field("epoch", epoch)
            object.field("seq", Int(seq))
            object.field("revoked") { writer in Self.writeRevoked(revoked, json: &writer) }
        }
    }

    /// `{"hasAd":true,` through `"expiresAt":"…"` (or a prefetch item's members): the members prepared with the
    /// campaign and creative, with the edge's base URL inside `imgUrl` (or `url`).
    static func writePrepared(_ parts: AnswerParts, creativeBase: CreativeBase, json: inout JSONWriter) {
        json.writeRaw(parts.head)
        json.writeRaw(creativeBase.escaped)
        json.writeRaw(parts.tail)
    }

    /// `,"epoch":…,"seq":…,"revoked":[…]}`: the end of an answer written from prepared parts.
    private static func writeState(_ state: AnswerState, revoked: [Int64], json: inout JSONWriter) {
        json.writeRaw(state.json)
        writeRevoked(revoked, json: &json)
        json.append(UInt8(ascii: "}"))
    }

    static func writeRevoked(_ revoked: [Int64], json writer: inout JSONWriter) {
        writer.writeArray(revoked) { writer, id in writer.write(int: Int(id)) }
    }
}

/// `edge.status`: what the edge answers from and how well it is in touch.
public struct EdgeStatus: Codable, Sendable {
    public var edgeId: String
    public var region: String
    public var epoch: String
    public var seq: Int64
    public var loaded: Bool
    public var stale: Bool
    public var skewSeconds: Double
    public var campaigns: Int
    public var creatives: Int
    public var resyncs: Int
    public var gaps: Int
    /// `false` while the edge cannot write its cache folder (a full or read-only disk): it answers from memory.
    public var cacheWritable: Bool

    public init(edgeId: String, region: String, epoch: String, seq: Int64, loaded: Bool, stale: Bool, skewSeconds: Double,
                campaigns: Int, creatives: Int, resyncs: Int, gaps: Int, cacheWritable: Bool = true) {
        self.edgeId = edgeId
        self.region = region
        self.epoch = epoch
        self.seq = seq
        self.loaded = loaded
        self.stale = stale
        self.skewSeconds = skewSeconds
        self.campaigns = campaigns
        self.creatives = creatives
        self.resyncs = resyncs
        self.gaps = gaps
        self.cacheWritable = cacheWritable
    }
}

/// The client socket's methods: public, so strictly validated; no admin method is reachable here.
public enum ClientAPI {
    public static let info = OpenRPCInfo(title: "deliveryd client", version: "1.0.0",
                                         description: "The apps' API of an edge: which launch ad to show now. Public: every param is validated, and messages over 64 KiB are refused by the socket. A call whose response makes its reply 64 KiB or more (a creative chunk, a large batch) is answered Busy (-32006) while the edge holds too many such replies that clients have not read.")
    typealias X = APIExamples

    public static let launchQuery = RPCMethod<LaunchQueryParams, LaunchAnswer>(
        "launch.query", summary: "Which launch ad to show now, and which cached ads to delete.",
        description: "Among the live campaigns that target the request and are under their cap for the device: forced ones first, then the highest priority, ties by weight (stable for a device until it reports an impression); the creative whose aspect ratio is nearest the screen, preferring one the client holds. Reported impressions take a device round the tied campaigns, and round a campaign's variants, each once per round; a new round never starts with the one shown last.",
        idempotent: true, errors: [APIError.busy],
        examples: [
            RPCExample("an ad", params: LaunchQueryParams(app: "com.example.shop", platform: "ios", appVersion: "6.1.0", region: "cn-east",
                                                          locale: "zh-CN", deviceId: "d41d8cd98f00b204", screen: X.screen,
                                                          launchType: .hot, backgroundSeconds: 1800, cached: [X.creative.sha256]),
                       result: LaunchAnswer(hasAd: true, id: 42, version: 2, imgUrl: "https://edge-sh-1.example.com/creatives/\(X.creative.sha256)",
                                            creative: .init(sha256: X.creative.sha256, contentType: "image/png", width: 1080, height: 1920, size: 41),
                                            jumpType: "url", jumpValue: "https://shop.example.com/double11", showMoment: "cold,hot",
                                            countdown: 5, skippable: true, skipAfter: 2, forced: true, expiresAt: X.campaign.endsAt,
                                            epoch: X.epoch, seq: 18, revoked: [7])),
            RPCExample("no ad", params: LaunchQueryParams(app: "com.example.news", platform: "android", appVersion: "3.4"),
                       result: LaunchAnswer(hasAd: false, epoch: X.epoch, seq: 18, revoked: [])),
        ])
    public static let edgeStatus = RPCMethod<NoParams, EdgeStatus>(
        "edge.status", summary: "The state the edge answers from and its contact with campaignd.", idempotent: true,
        errors: [APIError.busy],
        examples: [RPCExample("in touch", params: NoParams(), result: EdgeStatus(
            edgeId: "edge-sh-1", region: "cn-east", epoch: X.epoch, seq: 18, loaded: true, stale: false, skewSeconds: -0.012,
            campaigns: 2, creatives: 2, resyncs: 1, gaps: 0))])
}

/// One event an app reports.
public struct LaunchEvent: Codable, Sendable, Hashable, JSONReadable {
    public enum Kind: String, Codable, Sendable, CaseIterable {
        case impression, click, skip
    }

    /// Unique per event (a retry sends the same id; it is counted once).
    public var eventId: String
    public var type: Kind
    public var campaignId: Int64
    public var deviceId: String
    /// The variant shown, for the rotation.
    public var sha256: String?
    /// When it happened (default: when received).
    public var at: Timestamp?

    public init(eventId: String, type: Kind, campaignId: Int64, deviceId: String, sha256: String? = nil, at: Timestamp? = nil) {
        self.eventId = eventId
        self.type = type
        self.campaignId = campaignId
        self.deviceId = deviceId
        self.sha256 = sha256
        self.at = at
    }

    /// The members in the order the `Codable` conformance reads them (so errors come in the same order).
    private static let fields: [StaticString] = ["eventId", "type", "campaignId", "deviceId", "sha256", "at"]

    /// Read straight from the tape: what the `Codable` conformance gives, the same value or an error naming the same
    /// field (the type and the time go through it when they are not plain).
    public init(json: JSONReader) throws {
        let object = try json.object(fields: Self.fields)
        let eventId = try object.string(slot: 0)
        let typeReader = try object.require(slot: 1)
        let type = try Kind(rawValue: typeReader.string()) ?? typeReader.decode(Kind.self)
        let campaignId = try object.require(slot: 2).integer(Int64.self)
        let deviceId = try object.string(slot: 3)
        let sha256 = try object.optionalString(slot: 4)
        let at = try object.optional(slot: 5).map { try $0.decode(Timestamp.self) }
        self.init(eventId: eventId, type: type, campaignId: campaignId, deviceId: deviceId, sha256: sha256, at: at)
    }

    /// An event of a compact call's params, or `nil` when it is not compact, names a member twice or one that is
    /// not an event's, or holds a null, a value of another type or a time that is not one. What it gives is what
    /// ``init(json:)`` gives for the same bytes.
    init?(compact reader: inout CompactReader) {
        guard reader.take(UInt8(ascii: "{")) else { return nil }
        var seen: UInt64 = 0
        var eventId: UnsafeRawBufferPointer?, type: Kind?, campaignId: Int?, deviceId: UnsafeRawBufferPointer?
        var sha256: UnsafeRawBufferPointer?, at: Timestamp?
        repeat {
            guard let slot = reader.member(&seen, slot: Self.compactSlot) else { return nil }
            if slot == 2 {
                guard let value = reader.int() else { return nil }
                campaignId = value
                continue
            }
            guard let text = reader.string() else { return nil }
            switch slot {
            case 0: eventId = text
            case 1:
                guard let kind = CompactReader.equals(text, "impression") ? Kind.impression : CompactReader.equals(text, "click") ? .click
                        : CompactReader.equals(text, "skip") ? .skip : nil else { return nil }
                type = kind
            case 3: deviceId = text
            case 4: sha256 = text
            default:
                guard let time = Timestamp(rfc3339: String(decoding: text, as: UTF8.self)) else { return nil }
                at = time
            }
        } while reader.take(UInt8(ascii: ","))
        guard reader.take(UInt8(ascii: "}")), let eventId, let type, let campaignId, let deviceId else { return nil }
        self.init(eventId: String(decoding: eventId, as: UTF8.self), type: type, campaignId: Int64(campaignId),
                  deviceId: String(decoding: deviceId, as: UTF8.self), sha256: sha256.map { String(decoding: $0, as: UTF8.self) }, at: at)
    }

    /// The slot in `fields` of a member's name, or -1.
    private static func compactSlot(_ key: UnsafeRawBufferPointer) -> Int {
        switch key.count {
        case 2: CompactReader.equals(key, "at") ? 5 : -1
        case 4: CompactReader.equals(key, "type") ? 1 : -1
        case 6: CompactReader.equals(key, "sha256") ? 4 : -1
        case 7: CompactReader.equals(key, "eventId") ? 0 : -1
        case 8: CompactReader.equals(key, "deviceId") ? 3 : -1
        case 10: CompactReader.equals(key, "campaignId") ? 2 : -1
        default: -1
        }
    }
}

public struct LaunchReportParams: Codable, Sendable, JSONReadable {
    public var events: [LaunchEvent]
    public init(events: [LaunchEvent]) { self.events = events }

    private static let fields: [StaticString] = ["events"]

    /// Read straight from the tape: what the `Codable` conformance gives (see ``LaunchEvent/init(json:)``).
    public init(json: JSONReader) throws {
        let object = try json.object(fields: Self.fields)
        events = try object.require(slot: 0).array().map { try LaunchEvent(json: $0) }
    }

    /// The params of a compact call (see `CompactReader`): `{"events":[…]}` with each event compact, or `nil` for
    /// anything else (a member named twice or unknown, a null, a value of another type, a time that is not one):
    /// the call is then read the general way, which answers its errors. What it gives is what ``init(json:)`` gives
    /// for the same bytes.
    public init?(compact reader: inout CompactReader) {
        guard reader.take(UInt8(ascii: "{")), let key = reader.key(), CompactReader.equals(key, "events"),
              reader.take(UInt8(ascii: "[")) else { return nil }
        var events: [LaunchEvent] = []
        if !reader.take(UInt8(ascii: "]")) {
            repeat {
                guard let event = LaunchEvent(compact: &reader) else { return nil }
                events.append(event)
            } while reader.take(UInt8(ascii: ","))
            guard reader.take(UInt8(ascii: "]")) else { return nil }
        }
        guard reader.take(UInt8(ascii: "}")) else { return nil }
        self.init(events: events)
    }
}

public struct LaunchReportResult: Codable, Sendable, JSONWritable {
    /// Events counted now.
    public var accepted: Int
    /// Events already counted before (same event id).
    public var duplicates: Int
    public init(accepted: Int, duplicates: Int) {
        self.accepted = accepted
        self.duplicates = duplicates
    }

    /// The bytes of its `Codable` encoding, written directly.
    public func write(json: inout JSONWriter) {
        json.writeObject { object in
            object.field("accepted", accepted)
            object.field("duplicates", duplicates)
        }
    }
}

public struct LaunchPrefetchParams: Codable, Sendable, JSONReadable {
    public var app: String
    public var platform: String
    public var appVersion: String
    public var region: String?
    public var locale: String?
    /// The client's screen: each campaign then lists only its creatives nearest this aspect ratio (the ones a launch
    /// query from it may answer); without it, all of them.
    public var screen: LaunchQueryParams.Screen?
    /// How far ahead to look, in hours (default 24, at most 168).
    public var horizonHours: Int?
    /// Creatives the client holds now.
    public var cached: [String]?

    public init(app: String, platform: String, appVersion: String, region: String? = nil, locale: String? = nil,
                screen: LaunchQueryParams.Screen? = nil, horizonHours: Int? = nil, cached: [String]? = nil) {
        self.app = app
        self.platform = platform
        self.appVersion = appVersion
        self.region = region
        self.locale = locale
        self.screen = screen
        self.horizonHours = horizonHours
        self.cached = cached
    }

    /// The members in the order the `Codable` conformance reads them (so errors come in the same order).
    private static let fields: [StaticString] = ["app", "platform", "appVersion", "region", "locale", "screen", "horizonHours", "cached"]

    /// Read straight from the tape: what the `Codable` conformance gives, the same value or an error naming the same
    /// field.
    public init(json: JSONReader) throws {
        let object = try json.object(fields: Self.fields)
        let target = try LaunchQueryParams.readTarget(object)
        let screen = try object.optional(slot: 5).map(LaunchQueryParams.Screen.init(json:))
        let horizonHours = try object.optionalInt(slot: 6)
        let cached = try object.optional(slot: 7)?.array().map { try $0.string() }
        self.init(app: target.app, platform: target.platform, appVersion: target.appVersion, region: target.region,
                  locale: target.locale, screen: screen, horizonHours: horizonHours, cached: cached)
    }

    /// The params of a compact call (see `CompactReader`), or `nil` when they are not compact, or name a member twice
    /// or one that is not a param, or hold a null or a value of another type: the call is then read the general
    /// way, which answers its errors. What it gives is what ``init(json:)`` gives for the same bytes.
    public init?(compact reader: inout CompactReader) {
        guard reader.take(UInt8(ascii: "{")) else { return nil }
        var seen: UInt64 = 0
        var target = CompactTarget()
        var screen: LaunchQueryParams.Screen?, horizonHours: Int?, cached: [String]?
        repeat {
            guard let slot = reader.member(&seen, slot: Self.compactSlot) else { return nil }
            switch slot {
            case 0...4:
                guard target.read(slot: slot, &reader) else { return nil }
            case 5:
                guard let value = LaunchQueryParams.compactScreen(&reader) else { return nil }
                screen = value
            case 6:
                guard let value = reader.int() else { return nil }
                horizonHours = value
            default:
                guard let list = LaunchQueryParams.compactStrings(&reader) else { return nil }
                cached = list
            }
        } while reader.take(UInt8(ascii: ","))
        guard reader.take(UInt8(ascii: "}")), let app = target.app, let platform = target.platform, let appVersion = target.appVersion
        else { return nil }
        // The app, the region and the locale repeat from call to call: the reader's cache has their strings.
        self.init(app: reader.text(app), platform: LaunchQueryParams.platformName(platform),
                  appVersion: String(decoding: appVersion, as: UTF8.self), region: target.region.map(reader.text),
                  locale: target.locale.map(reader.text), screen: screen, horizonHours: horizonHours, cached: cached)
    }

    /// The slot in `fields` of a param's name, or -1.
    private static func compactSlot(_ key: UnsafeRawBufferPointer) -> Int {
        switch key.count {
        case 3: CompactReader.equals(key, "app") ? 0 : -1
        case 6: CompactReader.equals(key, "region") ? 3 : CompactReader.equals(key, "locale") ? 4 : CompactReader.equals(key, "screen") ? 5 : CompactReader.equals(key, "cached") ? 7 : -1
        case 8: CompactReader.equals(key, "platform") ? 1 : -1
        case 10: CompactReader.equals(key, "appVersion") ? 2 : -1
        case 12: CompactReader.equals(key, "horizonHours") ? 6 : -1
        default: -1
        }
    }
}

public struct PrefetchItem: Codable, Sendable, Hashable {
    public var campaignId: Int64
    public var sha256: String
    public var url: String
    public var contentType: String
    public var width: Int
    public var height: Int
    public var size: Int
    public var startsAt: Timestamp
    public var endsAt: Timestamp

    public init(campaignId: Int64, sha256: String, url: String, contentType: String, width: Int, height: Int, size: Int,
                startsAt: Timestamp, endsAt: Timestamp) {
        self.campaignId = campaignId
        self.sha256 = sha256
        self.url = url
        self.contentType = contentType
        self.width = width
        self.height = height
        self.size = size
        self.startsAt = startsAt
        self.endsAt = endsAt
    }
}

/// The answer of `launch.prefetch`. The edge writes it from parts prepared with its state
/// (``write(download:delete:revoked:epoch:seq:creativeBase:into:)``): it lists every creative of the campaigns ahead,
/// and encoding that through `Codable` cost more than all the launch queries between two prefetches.
public struct LaunchPrefetchResult: Codable, Sendable {
    /// What to download now and keep, with each campaign's window.
    public var download: [PrefetchItem]
    /// Cached creatives no campaign ahead uses: delete them.
    public var delete: [String]
    public var revoked: [Int64]
    public var epoch: String
    public var seq: Int64

    public init(download: [PrefetchItem], delete: [String], revoked: [Int64], epoch: String, seq: Int64) {
        self.download = download
        self.delete = delete
        self.revoked = revoked
        self.epoch = epoch
        self.seq = seq
    }

    /// The answer listing `download`'s creatives, each written from the parts prepared with the state
    /// (``HeldCreative/prefetchParts``) with `creativeBase` inside its `url`: the bytes of the `LaunchPrefetchResult`
    /// whose `download` holds their ``PrefetchItem``s, without making them. The edge's prefetch path.
    public static func write(download: [HeldCreative], delete: [String], revoked: [Int64], epoch: String, seq: Int64,
                             creativeBase: CreativeBase, into json: inout JSONWriter) {
        json.writeRaw("{\"download\":")
        json.writeArray(download) { writer, held in
            LaunchAnswer.writePrepared(held.prefetchParts, creativeBase: creativeBase, json: &writer)
        }
        json.writeRaw(",\"delete\":")
        json.writeArray(delete) { writer, sha256 in writer.write(string: sha256) }
        json.writeRaw(",\"revoked\":")
        LaunchAnswer.writeRevoked(revoked, json: &json)
        json.writeRaw(",\"epoch\":")
        json.write(string: epoch)
        json.writeRaw(",\"seq\":")
        json.write(int: Int(seq))
        json.append(UInt8(ascii: "}"))
    }
}

extension ClientAPI {
    public static let launchReport = RPCMethod<LaunchReportParams, LaunchReportResult>(
        "launch.report", summary: "Impressions, clicks and skips; idempotent by event id, also across restarts of the edge; they feed caps, rotation and stats.",
        idempotent: true, errors: [APIError.busy],
        examples: [RPCExample("an impression and a click, the impression sent before", params: LaunchReportParams(events: [
            LaunchEvent(eventId: "d41d8cd98f00b204-1731254400-1", type: .impression, campaignId: 42, deviceId: "d41d8cd98f00b204",
                        sha256: X.creative.sha256, at: Timestamp(rfc3339: "2026-11-10T16:00:05Z")!),
            LaunchEvent(eventId: "d41d8cd98f00b204-1731254400-2", type: .click, campaignId: 42, deviceId: "d41d8cd98f00b204"),
        ]), result: LaunchReportResult(accepted: 1, duplicates: 1))])
    public static let launchPrefetch = RPCMethod<LaunchPrefetchParams, LaunchPrefetchResult>(
        "launch.prefetch", summary: "What to download now (campaigns live or starting within a horizon) and what to delete.",
        idempotent: true, errors: [APIError.busy],
        examples: [RPCExample("the next two days", params: LaunchPrefetchParams(
            app: "com.example.shop", platform: "ios", appVersion: "6.1.0", region: "cn-east", locale: "zh-CN", screen: X.screen,
            horizonHours: 48, cached: [X.otherSHA256]), result: LaunchPrefetchResult(download: [
                PrefetchItem(campaignId: 42, sha256: X.creative.sha256, url: "https://edge-sh-1.example.com/creatives/\(X.creative.sha256)",
                             contentType: "image/png", width: 1080, height: 1920, size: 41, startsAt: X.campaign.startsAt, endsAt: X.campaign.endsAt),
            ], delete: [X.otherSHA256], revoked: [7], epoch: X.epoch, seq: 18))])
    public static let creativeGet = RPCMethod<CreativeChunkParams, CreativeChunk>(
        "creative.get", summary: "Bytes of a creative the edge holds, at most 1 MiB a call.", idempotent: true,
        errors: [APIError.creativeNotFound, APIError.busy],
        examples: [RPCExample("from an offset", params: CreativeChunkParams(sha256: X.creative.sha256, offset: 16, length: 1024),
                              result: CreativeChunk(sha256: X.creative.sha256, contentType: "image/png", width: 1080, height: 1920,
                                                    size: 41, offset: 16, data: "AAAEOAAAB4AIBgAAAAAAAABmaWxsZXItMA=="))])

    /// Every method of the client socket, as the OpenRPC document lists them.
    public static let methods: [MethodInfo] = [
        launchQuery.info, launchReport.info, launchPrefetch.info, creativeGet.info, edgeStatus.info,
    ]
}

/// Counts an edge ships to campaignd.
public struct EdgeReport: Codable, Sendable, Equatable {
    public var edgeId: String
    /// Increases by one per report, so a report sent twice is counted once.
    public var reportId: Int64
    /// Counts per campaign since the last report.
    public var counts: [CampaignStats]

    public init(edgeId: String, reportId: Int64, counts: [CampaignStats]) {
        self.edgeId = edgeId
        self.reportId = reportId
        self.counts = counts
    }
}

public struct EdgeReportResult: Codable, Sendable {
    /// Whether the counts were added now.
    public var accepted: Bool
    /// The last report id taken from this edge: equal to the report's when it had been taken before (a resend);
    /// greater when the report's id was too low (the edge's clock went back) and its counts were not taken.
    public var lastReportId: Int64
    public init(accepted: Bool, lastReportId: Int64) {
        self.accepted = accepted
        self.lastReportId = lastReportId
    }
}

extension SyncAPI {
    public static let report = RPCMethod<EdgeReport, EdgeReportResult>(
        "edge.report", summary: "An edge ships its impression, click and skip counts.", idempotent: true,
        examples: [RPCExample("counts since the last report", params: EdgeReport(edgeId: "edge-sh-1", reportId: 1731254460, counts: [
            CampaignStats(id: 42, impressions: 120, clicks: 4, skips: 31),
        ]), result: EdgeReportResult(accepted: true, lastReportId: 1731254460))])

    /// Every method of the sync socket, as the OpenRPC document lists them.
    public static let methods: [MethodInfo] = [snapshot.info, changes.info, creative.info, ack.info, report.info]
}
