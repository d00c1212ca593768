import JSONRPC
import LaunchAdDomain

/// `launch.why` params: the launch query's identity of the device (its app, platform, version, region, locale and
/// id, checked by the launch query's rules) and the campaign it asks about.
public struct LaunchWhyParams: Codable, Sendable, JSONReadable, MemberReadable {
    public var app: String
    public var platform: String
    public var appVersion: String
    public var region: String?
    public var locale: String?
    public var deviceId: String
    /// The campaign the device was answered (the launch answer's `id`).
    public var id: Int64

    public init(app: String, platform: String, appVersion: String, region: String? = nil, locale: String? = nil, deviceId: String, id: Int64) {
        self.app = app
        self.platform = platform
        self.appVersion = appVersion
        self.region = region
        self.locale = locale
        self.deviceId = deviceId
        self.id = id
    }

    /// The params, declared once, in the order the `Codable` conformance reads them: the `Codable` conformance's
    /// keys, the cases of the one reader (``read(_:)``) and the names its sources find (``fields``), the schema's
    /// properties (``schema(of:)``).
    public enum CodingKeys: Int, JSONFieldKey, LaunchTargetKey {
        case app, platform, appVersion, region, locale, deviceId, id
    }
    public static let fields = JSONFields(CodingKeys.self)

    /// Read straight from the tape: what the `Codable` conformance gives, the same value or an error naming the same
    /// field.
    public init(json: JSONReader) throws {
        self = try Self.read(json: json)
    }

    /// The params' one reader, whatever the source: every member read by its key (a new key does not compile until
    /// it is read here), the required ones then demanded.
    public static func read<Source: MemberSource>(_ source: inout Source) throws(Source.Failure) -> Self
        where Source.Key == CodingKeys {
        var target = LaunchTarget<CodingKeys>()
        var deviceId: String?, id: Int64?
        while let key = try source.next() {
            switch key {
            case .app, .platform, .appVersion, .region, .locale: try target.read(key, &source)
            case .deviceId: deviceId = try source.string()
            case .id: id = try source.optionalInteger(Int64.self, textRule: "must be a whole number")
            }
        }
        let (app, platform, appVersion) = try target.required(source)
        guard let deviceId else { throw source.missing(.deviceId) }
        guard let id else { throw source.missing(.id) }
        return Self(app: app, platform: platform, appVersion: appVersion, region: target.region, locale: target.locale,
                    deviceId: deviceId, id: id)
    }

    /// The launch request whose decision is explained (a cold launch, with no screen and no cache: neither chooses a
    /// campaign), checked by the launch query's rules, and the campaign's id, checked positive.
    public func validated() throws(JSONRPCError) -> LaunchRequest {
        let request = try LaunchQueryParams(app: app, platform: platform, appVersion: appVersion, region: region, locale: locale,
                                            deviceId: deviceId).validated()
        guard id >= 1 else { throw .invalidParams(field: CodingKeys.id.stringValue, "must be positive") }
        return request
    }
}

/// `launch.why`'s answer: who the ad is for, who paid for it, and the main parameters by which the device was
/// chosen (DSA Art. 26; Apple's guideline 2.5.18).
public struct LaunchWhyResult: Codable, Sendable, Hashable {
    public var id: Int64
    /// The campaign's `advertiser`, absent when it names none.
    public var advertiser: String?
    /// The campaign's `paidBy`, absent when it names none (the advertiser paid).
    public var paidBy: String?
    public var reasons: [WhyReason]

    public init(id: Int64, advertiser: String? = nil, paidBy: String? = nil, reasons: [WhyReason]) {
        self.id = id
        self.advertiser = advertiser
        self.paidBy = paidBy
        self.reasons = reasons
    }

    public init(_ why: WhyThisAd) {
        self.init(id: why.campaign.id, advertiser: why.campaign.advertiser, paidBy: why.campaign.paidBy, reasons: why.reasons)
    }

    /// The error of a campaign the device was not answered: the params' `id` named in `data.field`.
    public static func notAnswered(_ id: Int64) -> JSONRPCError {
        JSONRPCError(code: APIError.notAnswered.code,
                     message: "id: campaign \(id) is not answered to this device (not its app's, not live, or its targeting, test audience or priority leaves the device out)",
                     data: ["field": .string(LaunchWhyParams.CodingKeys.id.stringValue)])
    }
}
