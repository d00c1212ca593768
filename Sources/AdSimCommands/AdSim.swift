import ArgumentParser
import Foundation

/// `adsim`: plays an app with LaunchAdKit against a real edge, printing the launch's timeline.
public struct AdSim: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "adsim",
        abstract: "Play an app's launch ad with LaunchAdKit against an edge.",
        discussion: """
            One line per event (waiting, show, tick, end, report), or one JSON object per line with --json; layout prints \
            the frames of the ad the edge answers, as JSON. The SDK's \
            cache and report queue live in --state-dir, so successive runs behave as successive launches of one app. \
            adsim exits when the launch has ended and its budget (--wait-budget, and --revalidate-budget before it for \
            revalidate) has passed since it began, whatever the edge still holds.

            Examples:
              adsim --edge http://127.0.0.1:8200 --app shop --platform ios --app-version 5.2.0 --device d-1 \\
                --state-dir /tmp/shop launch
              adsim ... --policy fresh --wait-budget 3 --json launch --skip-at 2 --speed 10
              adsim ... --revalidate-budget 0.5 --max-cached-age 86400 --clock-offset 90000 launch --opened-by push
              adsim ... launch --hot --background 120
              adsim ... refresh
              adsim ... layout --screen 390x844@3 --safe-top 47 --safe-bottom 34
              adsim ... why 42
            """,
        subcommands: [LaunchCommand.self, RefreshCommand.self, LayoutCommand.self, WhyCommand.self])

    public init() {}

    /// Flags every command reads that take a value, and those that take none: DESIGN puts them before the command.
    static let globalValueFlags: Set<String> = ["--edge", "--app", "--platform", "--app-version", "--device", "--state-dir",
                                                "--screen", "--policy", "--wait-budget", "--region", "--locale",
                                                "--clock-offset", "--revalidate-budget", "--max-cached-age"]
    static let globalFlags: Set<String> = ["--json"]

    /// Moves the command's word (`launch`, `refresh`, `layout`, `why`) before the flags that precede it, where ArgumentParser wants it.
    static func reordering(_ arguments: [String]) -> [String] {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            let name = argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument
            if globalFlags.contains(argument) {
                index += 1
            } else if globalValueFlags.contains(name) {
                index += argument.contains("=") ? 1 : 2
            } else {
                break
            }
        }
        guard index > 0, index < arguments.count, !arguments[index].hasPrefix("-") else { return arguments }
        return [arguments[index]] + arguments[..<index] + arguments[(index + 1)...]
    }

    /// Runs the command that `arguments` (without the program's name) name, and exits: 0 on success, 1 with
    /// `adsim: REASON` on standard error when it failed, ArgumentParser's own codes for usage errors.
    public static func main(arguments: [String]) async -> Never {
        do {
            var command = try await asyncParseAsRoot(reordering(arguments))
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let failure as SimulatorFailure {
            FileHandle.standardError.write(Data("adsim: \(failure.description)\n".utf8))
            exit(withError: ExitCode.failure)
        } catch {
            exit(withError: error)
        }
        exit(withError: nil)
    }
}

/// A failure `adsim` reports in one line.
public struct SimulatorFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
