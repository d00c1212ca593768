import ArgumentParser
import Foundation
import LaunchAdKit

/// `adsim ... launch`: one launch of the app, its timeline printed as it happens.
struct LaunchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "launch", abstract: "Launch the app once and play its ad.")

    @OptionGroup var options: SimulatorOptions
    @Flag(help: "A hot start (the app returns from the background); needs --background.")
    var hot = false
    @Option(help: "Seconds the app was in the background before a hot start.")
    var background: Int?
    @Option(name: .customLong("skip-at"), help: "Tap skip this many seconds into the ad.")
    var skipAt: Double?
    @Option(name: .customLong("click-at"), help: "Tap the ad this many seconds into it.")
    var clickAt: Double?
    @Option(help: "Run the session's clock this many times faster.")
    var speed: Double = 1
    @Option(name: .customLong("opened-by"), help: "How the app was opened: userTap, push, url or shortcut (ads show only for those the SDK allows: userTap).")
    var openedBy: String = LaunchOpening.userTap.rawValue

    func validate() throws {
        if hot != (background != nil) { throw ValidationError("--hot and --background S go together") }
        if let background, background < 0 { throw ValidationError("--background must not be negative") }
        if skipAt != nil && clickAt != nil { throw ValidationError("give --skip-at or --click-at, not both") }
        for (flag, value) in [("--skip-at", skipAt), ("--click-at", clickAt)] {
            if let value, value < 0 { throw ValidationError("\(flag) must not be negative") }
        }
        guard speed > 0, speed <= 1000 else { throw ValidationError("--speed must be over 0 and at most 1000") }
        guard LaunchOpening(rawValue: openedBy) != nil else {
            throw ValidationError("--opened-by must be \(SimulatorOptions.names(LaunchOpening.allCases.map(\.rawValue))), not \(openedBy)")
        }
    }

    func run() async throws {
        // The printer's `ms` and the launch's deadline count from here: opening the SDK's folder is part of a cold start.
        let printer = EventPrinter(json: options.json)
        let configuration = options.configuration()
        let deadline = LaunchDeadline(configuration)
        let client = try options.client(configuration, speed: speed)
        let kind: LaunchKind = hot ? .hot(backgroundSeconds: background ?? 0) : .cold
        let user = UserScript(skipAt: skipAt, clickAt: clickAt)
        let opening = LaunchOpening(rawValue: openedBy) ?? .userTap
        await deadline.run { ended in
            _ = await client.play(kind, openedBy: opening, user: user) { event in
                printer.print(event)
                if case .end = event { ended() }
            }
        }
    }
}
