import Foundation

/// How the SDK decides at launch.
public enum LaunchPolicy: String, Sendable, CaseIterable {
    /// Ask the edge within ``LaunchAdConfiguration/revalidateBudget`` while the launch screen stays: an answer in
    /// time rules this launch (what it revoked is not shown, a forced ad shows now, the cached choice only if the
    /// answer still chooses it); no answer in time, the cached choice as `cacheFirst`. The default.
    case revalidate
    /// Show an ad already on disk at once, if one is valid; this launch's answer updates the cache for the next.
    case cacheFirst = "cache-first"
    /// Ask the edge and show its answer if it (and its creative) arrive within the wait budget; past it, go on
    /// without an ad (reported as a timeout), the answer still updating the cache.
    case fresh
}

/// How the app was opened at this launch: an ad fits a tap on the app's icon, rarely a push, a link or a shortcut,
/// which bring the user somewhere the app must take them at once.
public enum LaunchOpening: String, Sendable, CaseIterable {
    /// The user tapped the app's icon (or came back to it): the default.
    case userTap
    /// The user tapped a notification.
    case push
    /// A URL (a universal link, a custom scheme) opened the app.
    case url
    /// A home-screen quick action opened the app.
    case shortcut
}

/// Everything the SDK needs to know about the app, the device and the edge.
public struct LaunchAdConfiguration: Sendable {
    /// The edge's base URL (`https://edge.example.com`): calls go to its `/rpc`.
    public var edge: URL
    public var app: String
    /// `ios`, `android`, ...
    public var platform: String
    public var appVersion: String
    /// The device's id, opaque to the edge: app-scoped (`identifierForVendor`, or an id the app generates and keeps),
    /// hashed by the app; never an advertising identifier (IDFA) without the user's consent through App Tracking
    /// Transparency.
    public var deviceId: String
    public var region: String?
    public var locale: String?
    /// The screen in pixels: the edge picks the creative nearest its aspect ratio.
    public var screen: (width: Int, height: Int)?
    /// The SDK's folder: the cache's files and the report queue.
    public var stateDirectory: URL
    /// How launches decide: ``LaunchPolicy/revalidate`` by default.
    public var policy: LaunchPolicy = .revalidate
    /// Seconds a `fresh` launch waits for its answer and creative (3 s, as the common splash SDKs), and a
    /// `revalidate` launch for a forced ad's creative that is not on disk yet.
    public var waitBudget: Double = 3
    /// Seconds a `revalidate` launch waits for the edge's answer before it falls back to the cached choice.
    public var revalidateBudget: Double = 0.5
    /// Seconds a cached choice stays showable without an answer in time (the edge out of reach, or slow): one older
    /// than this, by the time of the answer that chose it, is never shown from the cache. 24 h by default.
    public var maxCachedAge: Double = 86_400
    /// How the app may have been opened for an ad to show: a launch opened any other way shows none (and asks nothing).
    public var showOn: Set<LaunchOpening> = [.userTap]
    /// The bytes the cache's creatives may take together.
    public var cacheBytes: Int = 50 << 20
    /// Seconds any call to the edge may take (what runs past the wait budget to fill the cache, prefetches, reports).
    public var requestTimeout: Double = 15
    /// How far ahead `refresh()` asks the edge to look, in hours (the edge's default: 24).
    public var prefetchHorizonHours: Int?

    public init(edge: URL, app: String, platform: String, appVersion: String, deviceId: String, stateDirectory: URL) {
        self.edge = edge
        self.app = app
        self.platform = platform
        self.appVersion = appVersion
        self.deviceId = deviceId
        self.stateDirectory = stateDirectory
    }
}
