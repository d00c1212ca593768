/// A launch query, validated. Its members are constants (made with `var` strings, the initializer costs a copy of
/// the whole request, a retain and a release of each string, on every query), but for the launch's type and time in
/// the background, which a copy changes to ask of the same client's hot launch (every other member carried).
public struct LaunchRequest: Sendable {
    public let app: String
    public let platform: String
    public let appVersion: AppVersion
    public let region: String?
    public let locale: String?
    public let deviceId: String?
    public let screen: (width: Int, height: Int)?
    public var launchType: LaunchType
    public var backgroundSeconds: Int?
    public let cached: Set<String>

    public init(app: String, platform: String, appVersion: AppVersion, region: String? = nil, locale: String? = nil,
                deviceId: String? = nil, screen: (width: Int, height: Int)? = nil, launchType: LaunchType = .cold,
                backgroundSeconds: Int? = nil, cached: Set<String> = []) {
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

    /// This request as a launch of `type` after any time in the background: a copy, so every other field is
    /// carried. What asks of a client's launches that the query itself names none of (`launch.prefetch`,
    /// `launch.why`).
    public func launched(as type: LaunchType) -> LaunchRequest {
        var copy = self
        copy.launchType = type
        copy.backgroundSeconds = Int.max
        return copy
    }
}
