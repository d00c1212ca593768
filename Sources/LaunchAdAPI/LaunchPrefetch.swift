import JSONRPC
import LaunchAdDomain

public struct LaunchPrefetchParams: Codable, Sendable, JSONReadable, MemberReadable {
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

    /// The params, declared once, in the order the `Codable` conformance reads them (so every source's errors come
    /// in the same order): the `Codable` conformance's keys, the cases of the one reader (``read(_:)``) and the
    /// names its sources find (``fields``), the schema's properties (``schema(of:)``).
    public enum CodingKeys: Int, JSONFieldKey, LaunchTargetKey {
        case app, platform, appVersion, region, locale, screen, horizonHours, cached
    }
    public static let fields = JSONFields(CodingKeys.self)

    /// The bounds of the params of a prefetch's own (the others are the launch query's), written once: the edge's
    /// checks enforce them, the schema states them.
    enum Rules {
        /// How far ahead a prefetch looks when it does not say, in hours.
        static var defaultHorizonHours: Int { 24 }
        /// How far ahead a prefetch may look, in hours.
        static var horizonHours: ClosedRange<Int> { 1...168 }
    }

    /// How far ahead to look, in hours: ``horizonHours`` or the default, checked against ``Rules/horizonHours``.
    public func horizon() throws(JSONRPCError) -> Int {
        let horizon = horizonHours ?? Rules.defaultHorizonHours
        guard Rules.horizonHours.contains(horizon) else {
            throw .invalidParams(field: CodingKeys.horizonHours.stringValue, LaunchQueryParams.Rules.between(Rules.horizonHours))
        }
        return horizon
    }

    /// Read straight from the tape: what the `Codable` conformance gives, the same value or an error naming the same
    /// field.
    public init(json: JSONReader) throws {
        self = try Self.read(json: json)
    }

    /// The params of a compact call (see `CompactReader`), or `nil` when they are not compact, or name a member twice
    /// or one that is not a param, or hold a null or a value of another type: the call is then read the general
    /// way, which answers its errors. What it gives is what ``init(json:)`` gives for the same bytes: the same reader.
    public init?(compact reader: inout CompactReader) {
        guard let params = Self.read(compact: &reader) else { return nil }
        self = params
    }

    /// The params' one reader, whatever the source: every member read by its key (a new key does not compile until
    /// it is read here), the required ones then demanded.
    public static func read<Source: MemberSource>(_ source: inout Source) throws(Source.Failure) -> Self
        where Source.Key == CodingKeys {
        var target = LaunchTarget<CodingKeys>()
        var params = Self(app: "", platform: "", appVersion: "")
        while let key = try source.next() {
            switch key {
            case .app, .platform, .appVersion, .region, .locale: try target.read(key, &source)
            case .screen: params.screen = try source.optionalObject(LaunchQueryParams.Screen.self, text: { _ in nil }, textRule: "")
            case .horizonHours: params.horizonHours = try source.optionalInt(textRule: "must be a whole number of hours")
            case .cached: params.cached = try source.optionalStrings(separator: ",")
            }
        }
        (params.app, params.platform, params.appVersion) = try target.required(source)
        (params.region, params.locale) = (target.region, target.locale)
        return params
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
    /// How long the creative plays, in milliseconds (0 for a still image); `nil` from an older edge.
    public var durationMs: Int?
    public var startsAt: Timestamp
    public var endsAt: Timestamp

    public init(campaignId: Int64, sha256: String, url: String, contentType: String, width: Int, height: Int, size: Int,
                durationMs: Int? = nil, startsAt: Timestamp, endsAt: Timestamp) {
        self.campaignId = campaignId
        self.sha256 = sha256
        self.url = url
        self.contentType = contentType
        self.width = width
        self.height = height
        self.size = size
        self.durationMs = durationMs
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
