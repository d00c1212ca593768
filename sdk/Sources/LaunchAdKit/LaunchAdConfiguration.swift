import Foundation

/// How the SDK decides at launch.
public enum LaunchPolicy: String, Sendable, CaseIterable {
    /// Show an ad already on disk at once, if one is valid; this launch's answer updates the cache for the next.
    case cacheFirst = "cache-first"
    /// Ask the edge and show its answer if it (and its creative) arrive within the wait budget; past it, go on
    /// without an ad (reported as a timeout), the answer still updating the cache.
    case fresh
}

/// Everything the SDK needs to know about the app, the device and the edge.
public struct LaunchAdConfiguration: Sendable {
    /// The edge's base URL (`https://edge.example.com`): calls go to its `/rpc`.
    public var edge: URL
    public var app: String
    /// `ios`, `android`, ...
    public var platform: String
    public var appVersion: String
    /// The device's id, opaque to the edge (an app hashes its own identifier).
    public var deviceId: String
    public var region: String?
    public var locale: String?
    /// The screen in pixels: the edge picks the creative nearest its aspect ratio.
    public var screen: (width: Int, height: Int)?
    /// The SDK's folder: the cache's files and the report queue.
    public var stateDirectory: URL
    public var policy: LaunchPolicy = .cacheFirst
    /// Seconds a `fresh` launch waits for its answer and creative (3 s, as the common splash SDKs).
    public var waitBudget: Double = 3
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
