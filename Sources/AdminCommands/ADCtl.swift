import ArgumentParser
import Foundation
import LaunchAdDomain

/// `adctl`: the operators' tool for the campaign service.
public struct ADCtl: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "adctl",
        abstract: "Operate the launch-ad campaign service.",
        discussion: """
            Talks to campaignd's admin socket (--endpoint, or ADCTL_ENDPOINT). Tables for people by default; \
            --json prints stable JSON for scripts. Exit status 0 on success, 1 with a one-line reason otherwise.

            --wait (on every write) returns once every edge campaignd knows has applied the change; a stale or \
            silent edge counts as not applied and is named, and no edge known is a failure unless --allow-no-edges.

            Examples:
              adctl creative upload splash-1179x2556.png
              adctl campaign create --name "Double 12" --app shop --starts now --ends +2h \\
                --creative 9f86d0...0a08 --jump-url https://shop.example.com/1212 --wait
              adctl campaign list --app shop
              adctl campaign pause 7 --wait
              adctl campaign expire 7 --wait --wait-timeout 10
              adctl edges
              adctl --json stats 7
              adctl stats 7 --by hour --split creative
              adctl app stats shop --by day --from=-7d
              adctl history 7
              adctl explain --app shop --platform ios --app-version 5.2.0 --device d-1
              adctl --endpoint tcp://10.0.0.10:7100 --keys-dir /etc/launchad/keys campaign get 7
            """,
        subcommands: [CampaignCommand.self, CreativeCommand.self, AppCommand.self, Edges.self, Stats.self, Reports.self, History.self, Explain.self, Backup.self, Call.self, Discover.self, Keygen.self])

    public init() {}

    /// Runs the command that `arguments` (the command line without the program's name) name, and exits.
    ///
    /// The one place the process ends: 0 when the command succeeded; 1 and `adctl: REASON` on standard error when it
    /// threw a ``CommandFailure``; otherwise what ArgumentParser does for its own errors (help, usage, `ExitCode`).
    public static func main(arguments: [String]) async -> Never {
        do {
            var command = try await asyncParseAsRoot(reorderingGlobalFlags(arguments))
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let failure as CommandFailure {
            // The reason may quote campaignd's message, an edge's id or a name: escaped, as tables are.
            FileHandle.standardError.write(Data("adctl: \(DisplayText.escaped(failure.reason))\n".utf8))
            exit(withError: ExitCode.failure)
        } catch {
            exit(withError: error)
        }
        exit(withError: nil)
    }
}
