import Foundation

/// An ad ready to show: its creative is on disk, verified, and its campaign valid now by the device's clock.
public struct LaunchAd: Sendable, Equatable {
    /// Where a click takes the user: handed to the app, which opens it.
    public struct Jump: Sendable, Equatable {
        /// `url` (an http(s) URL) or `deeplink` (an app's scheme).
        public var type: String
        public var value: String

        public init(type: String, value: String) {
            self.type = type
            self.value = value
        }
    }

    /// Where the decision came from.
    public enum Source: String, Sendable {
        /// The cached choice, shown without this launch's answer (cache first, or revalidate with no answer in
        /// time), or the cached version of the campaign the answer still chose.
        case cache
        /// This launch's answer, within the budget (fresh; revalidate's forced ad, or its choice already on disk).
        case fresh
    }

    public var campaignId: Int64
    public var version: Int
    public var sha256: String
    /// The creative's bytes on disk.
    public var file: URL
    public var contentType: String
    /// Seconds the ad shows.
    public var countdown: Int
    public var skippable: Bool
    /// Seconds before skip is offered.
    public var skipAfter: Int
    public var jump: Jump?
    public var forced: Bool
    public var expiresAt: Date
    public var source: Source
    /// The creative's size in pixels (what ``AdLayout`` aspect-fills; 1×1 when the answer did not say).
    public var pixelWidth: Int
    public var pixelHeight: Int
    /// The media's length in milliseconds: a GIF's frame delays together, a video's duration; 0 for a still image
    /// (and when the edge did not say).
    public var durationMs: Int
    /// The campaign's `display`: the whole screen, or the top with the app's logo strip below.
    public var display: AdDisplay
    /// The campaign's `clickArea`: a button, or the whole ad.
    public var clickArea: AdClickArea
    /// The campaign's `videoSound`: whether a video plays with its sound (false: muted, the default).
    public var videoSound: Bool
    /// The campaign's `advertiser`: who the ad is for, to show with it ("Ad by …"); `nil` when the campaign has none.
    public var advertiser: String?
    /// The campaign's `paidBy`: who paid for the ad, when not the advertiser.
    public var paidBy: String?

    public init(campaignId: Int64, version: Int, sha256: String, file: URL, contentType: String, countdown: Int, skippable: Bool,
                skipAfter: Int, jump: Jump?, forced: Bool, expiresAt: Date, source: Source, pixelWidth: Int = 1, pixelHeight: Int = 1,
                display: AdDisplay = .full, clickArea: AdClickArea = .button, videoSound: Bool = false, durationMs: Int = 0,
                advertiser: String? = nil, paidBy: String? = nil) {
        self.campaignId = campaignId
        self.version = version
        self.sha256 = sha256
        self.file = file
        self.contentType = contentType
        self.countdown = countdown
        self.skippable = skippable
        self.skipAfter = skipAfter
        self.jump = jump
        self.forced = forced
        self.expiresAt = expiresAt
        self.source = source
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
        self.display = display
        self.clickArea = clickArea
        self.videoSound = videoSound
        self.durationMs = durationMs
        self.advertiser = advertiser
        self.paidBy = paidBy
    }
}

/// What a launch decided.
public enum LaunchDecision: Sendable, Equatable {
    /// Show this ad (start an ``AdSession`` with it).
    case show(LaunchAd)
    /// Go on without an ad: `.none` (nothing to show), `.timeout` (past the launch's budget with nothing to show),
    /// `.suppressed` (``LaunchAdClient/suppress(for:)``) or `.notForOpening` (not in ``LaunchAdConfiguration/showOn``).
    case noAd(EndReason)
}

/// A cold start, or a return from the background after `backgroundSeconds`.
public enum LaunchKind: Sendable, Equatable {
    case cold
    case hot(backgroundSeconds: Int)
}
