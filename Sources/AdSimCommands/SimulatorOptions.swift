import ArgumentParser
import Foundation
import LaunchAdKit

/// The app and edge every `adsim` command plays against.
struct SimulatorOptions: ParsableArguments {
    @Option(help: "The edge's base URL (its /rpc answers the SDK).")
    var edge: String
    @Option(help: "The app's name.")
    var app: String
    @Option(help: "The platform (ios, android, ...).")
    var platform: String
    @Option(name: .customLong("app-version"), help: "The app's version (dotted numbers).")
    var appVersion: String
    @Option(help: "The device's id.")
    var device: String
    @Option(name: .customLong("state-dir"), help: "The SDK's folder: its cache and report queue.")
    var stateDir: String
    @Option(help: "The screen in pixels, WxH, or in points with the scale, WxH@S (390x844@3 is 1170x2532 pixels).")
    var screen: String?
    @Option(help: "The device's region.")
    var region: String?
    @Option(help: "The device's locale.")
    var locale: String?
    @Flag(help: "One JSON object per line.")
    var json = false
    @Option(help: """
        revalidate (ask the edge within --revalidate-budget: its answer rules this launch; no answer in time, what is on \
        disk), cache-first (what is on disk, at once) or fresh (the edge's answer and creative within --wait-budget).
        """)
    var policy: String = LaunchPolicy.revalidate.rawValue
    @Option(name: .customLong("revalidate-budget"), help: "Seconds a revalidate launch waits for the edge's answer (default: the SDK's, 0.5).")
    var revalidateBudget: Double?
    @Option(name: .customLong("wait-budget"), help: "Seconds a fresh launch waits for its ad, and a revalidate one for a forced ad's creative.")
    var waitBudget: Double = 3
    @Option(name: .customLong("max-cached-age"),
            help: "Seconds an answer may be old and its choice still shown when the edge does not answer (default: the SDK's, 86400).")
    var maxCachedAge: Double?
    @Option(name: .customLong("clock-offset"),
            help: "Seconds the device's clock is ahead of the real time (behind when negative): a phone offline for a day, at once.")
    var clockOffset: Double = 0

    func validate() throws {
        guard let url = URL(string: edge), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
            throw ValidationError("--edge must be an http(s) URL, not \(edge)")
        }
        guard LaunchPolicy(rawValue: policy) != nil else {
            throw ValidationError("--policy must be \(Self.names(LaunchPolicy.allCases.map(\.rawValue))), not \(policy)")
        }
        for (flag, value) in [("--wait-budget", waitBudget), ("--revalidate-budget", revalidateBudget)] {
            if let value, !(value > 0 && value <= 60) { throw ValidationError("\(flag) must be over 0 and at most 60 seconds, not \(value)") }
        }
        // A year: an answer older than that says nothing of today's campaigns.
        if let maxCachedAge, !(maxCachedAge >= 0 && maxCachedAge <= 366 * 86_400) {
            throw ValidationError("--max-cached-age must be 0 to \(366 * 86_400) seconds, not \(maxCachedAge)")
        }
        // Ten years either way: far enough for any campaign's window, near enough that a date stays a date.
        guard clockOffset.isFinite, abs(clockOffset) <= Self.tenYears else {
            throw ValidationError("--clock-offset must be within \(Int(Self.tenYears)) seconds either way, not \(clockOffset)")
        }
        if let screen, Self.size(screen) == nil { throw ValidationError("--screen must be WxH in pixels (1080x1920) or WxH@S in points (390x844@3), not \(screen)") }
        for (flag, value) in [("--app", app), ("--platform", platform), ("--app-version", appVersion), ("--device", device)] where value.isEmpty {
            throw ValidationError("\(flag) must not be empty")
        }
    }

    static let tenYears = 10 * 365.25 * 86_400

    /// `a, b or c`: the values a flag takes, in a message.
    static func names(_ values: [String]) -> String {
        values.count < 2 ? values.joined() : values.dropLast().joined(separator: ", ") + " or " + values.last!
    }

    /// The device's clock: the system's, run `speed` times faster from now, moved by `--clock-offset`.
    func clock(speed: Double = 1) -> any LaunchAdClock {
        let base: any LaunchAdClock = speed == 1 ? SystemClock() : ScaledClock(speed: speed)
        return clockOffset == 0 ? base : OffsetClock(base: base, offset: clockOffset)
    }

    static func size(_ text: String) -> (width: Int, height: Int)? {
        if text.contains("@") {
            guard let screen = AdScreen(parsing: text) else { return nil }
            return (Int((screen.width * screen.scale).rounded()), Int((screen.height * screen.scale).rounded()))
        }
        let parts = text.lowercased().split(separator: "x")
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]), (1...16_384).contains(width),
              (1...16_384).contains(height) else { return nil }
        return (width, height)
    }

    /// The SDK on the state folder, with `configuration` (this command line's by default) and the device's clock.
    func client(_ configuration: LaunchAdConfiguration? = nil, speed: Double = 1) throws -> LaunchAdClient {
        do {
            return try LaunchAdClient(configuration: configuration ?? self.configuration(), clock: clock(speed: speed))
        } catch {
            throw SimulatorFailure("cannot open --state-dir \(stateDir): \(error)")
        }
    }

    func configuration() -> LaunchAdConfiguration {
        var configuration = LaunchAdConfiguration(edge: URL(string: edge)!, app: app, platform: platform, appVersion: appVersion,
                                                  deviceId: device, stateDirectory: URL(fileURLWithPath: stateDir))
        configuration.screen = screen.flatMap(Self.size)
        configuration.region = region
        configuration.locale = locale
        configuration.policy = LaunchPolicy(rawValue: policy) ?? .revalidate
        configuration.waitBudget = waitBudget
        if let revalidateBudget { configuration.revalidateBudget = revalidateBudget }
        if let maxCachedAge { configuration.maxCachedAge = maxCachedAge }
        return configuration
    }
}
