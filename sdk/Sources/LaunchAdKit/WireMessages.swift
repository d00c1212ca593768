import Foundation

// The params and answers of the three client methods the SDK calls, as the edge's JSON has them (DESIGN's launch
// query, prefetch and report; the names are the ones apps already parse). The SDK keeps its own small copies so an
// app links none of the servers' packages; the tests hold them to the servers' own types.

struct ScreenSize: Codable, Sendable, Equatable {
    var width: Int
    var height: Int
}

/// `launch.query` params.
struct QueryParams: Encodable {
    var app: String
    var platform: String
    var appVersion: String
    var region: String?
    var locale: String?
    var deviceId: String?
    var screen: ScreenSize?
    var launchType: String?
    var backgroundSeconds: Int?
    var cached: [String]?
}

/// `launch.query`'s answer.
struct QueryAnswer: Decodable {
    struct Creative: Decodable {
        var sha256: String
        var contentType: String
        var width: Int
        var height: Int
        var size: Int
        /// The media's length (GIF, video); absent from older edges: 0.
        var durationMs: Int?
    }

    /// `showMoment`: 0, show this answer at this launch (forced, or its creative is in the query's `cached`); 1,
    /// fetch it now and show it from a later launch. Older edges wrote the launch moments here as a string (`cold`,
    /// `hot`, `cold,hot`), now `launchTypes`: read as `moments`.
    enum ShowMoment: Decodable, Equatable {
        case now
        case later
        case moments(String)

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let number = try? container.decode(Int.self) {
                guard number == 0 || number == 1 else {
                    throw DecodingError.dataCorruptedError(in: container, debugDescription: "showMoment must be 0 or 1, not \(number)")
                }
                self = number == 0 ? .now : .later
            } else {
                self = .moments(try container.decode(String.self))
            }
        }
    }

    var hasAd: Bool
    var id: Int64?
    var version: Int?
    var imgUrl: String?
    var creative: Creative?
    var jumpType: String?
    var jumpValue: String?
    var countdown: Int?
    var skippable: Bool?
    var skipAfter: Int?
    var forced: Bool?
    var showMoment: ShowMoment?
    /// The launch moments the campaign is for (`["cold"]`, `["hot"]`, `["cold","hot"]`).
    var launchTypes: [String]?
    /// `full` or `half`, `button` or `full` (DESIGN, "Apps and the rules of their markets"); absent: full, button.
    var display: String?
    var clickArea: String?
    /// `true`: a video creative plays with its sound; absent: muted.
    var videoSound: Bool?
    /// Who the ad is for and who paid for it, when the campaign says (DESIGN, "Apps and the rules of their markets").
    var advertiser: String?
    var paidBy: String?
    var expiresAt: String?
    var epoch: String
    var seq: Int64
    var revoked: [Int64]
}

/// `launch.prefetch` params.
struct PrefetchParams: Encodable {
    var app: String
    var platform: String
    var appVersion: String
    var region: String?
    var locale: String?
    var screen: ScreenSize?
    var horizonHours: Int?
    var cached: [String]?
}

/// `launch.prefetch`'s answer: what to download and keep, with each campaign's window, and what to delete.
struct PrefetchAnswer: Decodable {
    struct Item: Decodable {
        var campaignId: Int64
        var sha256: String
        var url: String
        var contentType: String
        var size: Int
        var startsAt: String
        var endsAt: String
    }

    var download: [Item]
    var delete: [String]
    var revoked: [Int64]
    var epoch: String
    var seq: Int64
}

/// One event of `launch.report`: a session's impression, click or skip (with its campaign), the user's report of an
/// ad (`reported`, with its campaign and a reason), or a launch's `request`, `noAd`, `timeout` or `failed` (a campaign
/// only when one is known); each with the app it is of.
struct ReportEvent: Codable, Sendable, Equatable {
    var eventId: String
    var type: String
    var campaignId: Int64?
    var app: String?
    var deviceId: String
    var sha256: String?
    var at: String?
    /// Why the user reported the ad: `reported` only.
    var reason: String?
}

struct ReportParams: Encodable {
    var events: [ReportEvent]
}

/// `launch.report`'s answer.
struct ReportAnswer: Decodable {
    var accepted: Int
    var duplicates: Int
}
