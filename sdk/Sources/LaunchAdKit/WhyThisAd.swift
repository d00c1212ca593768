import Foundation

/// Why this device was shown an ad: the edge's `launch.why` answer, for the ad label's "why this ad" (DSA Art. 26;
/// Apple's guideline 2.5.18). The reasons are the campaign's targeting facts the device met, worked out by the edge's
/// own decision.
public struct AdWhy: Sendable, Equatable, Decodable {
    /// One main parameter by which the device was chosen.
    public struct Reason: Sendable, Equatable, Decodable {
        public var field: Field
        /// The value that matched: the device's platform, the version range (`>=6.0 <7.0`), the targeted region or
        /// locale, `hot`, `test`, `true`.
        public var value: String

        public init(field: Field, value: String) {
            self.field = field
            self.value = value
        }
    }

    /// The name of a targeting fact; a newer edge may name others, kept as they come.
    public struct Field: RawRepresentable, Sendable, Hashable, Decodable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let platform = Field(rawValue: "platform")
        public static let appVersion = Field(rawValue: "appVersion")
        public static let region = Field(rawValue: "region")
        public static let locale = Field(rawValue: "locale")
        /// `hot`: shown only when the app comes back from the background.
        public static let launchType = Field(rawValue: "launchType")
        /// `test`: the device is one of the campaign's test devices.
        public static let audience = Field(rawValue: "audience")
        /// `true`: the campaign is forced.
        public static let forced = Field(rawValue: "forced")
    }

    public var campaignId: Int64
    /// On whose behalf the ad is shown, when the campaign says.
    public var advertiser: String?
    /// Who paid for it, when the campaign says (else the advertiser).
    public var paidBy: String?
    /// Empty when the campaign is shown to every device of the app.
    public var reasons: [Reason]

    public init(campaignId: Int64, advertiser: String? = nil, paidBy: String? = nil, reasons: [Reason]) {
        self.campaignId = campaignId
        self.advertiser = advertiser
        self.paidBy = paidBy
        self.reasons = reasons
    }

    enum CodingKeys: String, CodingKey {
        case campaignId = "id", advertiser, paidBy, reasons
    }
}

/// Why ``LaunchAdClient/whyThisAd()`` has nothing to ask.
public struct NoAdShown: Error, CustomStringConvertible {
    public var description: String { "no ad was shown at this run's launches: there is no ad to explain" }
}

extension EdgeError {
    /// The edge's `NotAnswered` (-32011): the ad is not one the edge's decision answers this device (any more: paused,
    /// ended, or its targeting changed since it was shown).
    public var isNotAnswered: Bool {
        if case .rpc(let error) = self { return error.code == -32011 }
        return false
    }
}

/// `launch.why` params: the launch query's identity of the device and the campaign.
struct WhyParams: Encodable {
    var app: String
    var platform: String
    var appVersion: String
    var region: String?
    var locale: String?
    var deviceId: String
    var id: Int64
}

/// What the "why this ad" sheet shows: the lines the core writes from ``AdWhy`` (or from the ad alone when the edge
/// could not say), in the app's language; the UIKit layer only lays them out.
public struct WhyThisAdSheet: Sendable, Equatable {
    public var campaignId: Int64
    public var title: String
    /// Who the ad is for and who paid, then one line for each reason.
    public var lines: [String]
    /// The close button.
    public var close: String
    /// The edge's answer; nil while it is awaited (``loading``) or when it could not be had (``failure`` says why),
    /// the sheet then saying what the ad itself carries.
    public var why: AdWhy?
    public var failure: String?
    /// The edge has not answered yet: the sheet is up at once with what the ad carries, and is updated when the
    /// answer (or its failure) comes.
    public var loading: Bool
    /// The "Report this ad" action (Apple's guideline 2.5.18); nil when the presenter has nowhere to send a report.
    public var report: AdReportAction?

    /// The sheet for `ad`: from `why` when the edge answered, else from the ad's own advertiser and paidBy with a
    /// line saying the reasons are being fetched (`why` nil) or could not be had. `chinese` as ``AdLayout/chinese``.
    /// `report`: where the sheet's "Report this ad" action is (nil: the sheet offers none).
    public init(ad: LaunchAd, why: Result<AdWhy, any Error>?, chinese: Bool, report: AdReportAction.State? = nil) {
        campaignId = ad.campaignId
        self.report = report.map { AdReportAction(state: $0, chinese: chinese) }
        title = chinese ? "为什么看到这个广告" : "Why you see this ad"
        close = chinese ? "关闭" : "Close"
        var lines: [String] = []
        let answer = try? why?.get()
        self.why = answer
        loading = why == nil
        failure = why.flatMap(Self.failureText)
        if let advertiser = answer?.advertiser ?? ad.advertiser { lines.append((chinese ? "广告主：" : "Advertiser: ") + advertiser) }
        if let paidBy = answer?.paidBy ?? ad.paidBy { lines.append((chinese ? "付费方：" : "Paid for by: ") + paidBy) }
        if let answer {
            if answer.reasons.isEmpty {
                lines.append(chinese ? "向本应用的所有用户展示" : "Shown to everyone using this app")
            }
            for reason in answer.reasons { lines.append(Self.line(reason, chinese: chinese)) }
        } else if loading {
            lines.append(chinese ? "正在获取展示原因…" : "Fetching the reasons…")
        } else if let failure = why.flatMap(Self.notAnswered) {
            lines.append(chinese ? failure.chinese : failure.english)
        } else {
            lines.append(chinese ? "暂时无法获取展示原因" : "The reasons could not be fetched right now")
        }
        self.lines = lines
    }

    /// An edge that no longer answers the ad to this device says so, rather than "could not be fetched".
    private static func notAnswered(_ why: Result<AdWhy, any Error>) -> (english: String, chinese: String)? {
        guard case .failure(let error) = why, (error as? EdgeError)?.isNotAnswered == true else { return nil }
        return ("This ad is no longer shown to this device", "该广告已不再向本设备展示")
    }

    private static func failureText(_ why: Result<AdWhy, any Error>) -> String? {
        guard case .failure(let error) = why else { return nil }
        return "\(error)"
    }

    /// One reason in words.
    static func line(_ reason: AdWhy.Reason, chinese: Bool) -> String {
        let value = reason.value
        switch reason.field {
        case .platform: return chinese ? "平台：\(value)" : "Platform: \(value)"
        case .appVersion: return chinese ? "应用版本：\(value)" : "App version: \(value)"
        case .region: return chinese ? "地区：\(value)" : "Region: \(value)"
        case .locale: return chinese ? "语言：\(value)" : "Language: \(value)"
        case .launchType: return chinese ? "从后台返回应用时展示" : "Shown when you come back to the app"
        case .audience: return chinese ? "本设备是该广告的测试设备" : "This device is one of the ad's test devices"
        case .forced: return chinese ? "优先于其他广告展示" : "Shown ahead of other ads"
        default: return "\(reason.field.rawValue): \(value)"
        }
    }
}
