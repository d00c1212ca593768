import ArgumentParser
import LaunchAdRuntime
import RelayService

/// `relayd`: the regional tier between campaignd and the edges. Its options, their variables and checks are
/// `RelayOptions`.
@main
struct RelayDaemon: AsyncParsableCommand {
    static let configuration = RelayOptions.command
    @OptionGroup var options: RelayOptions

    static func main() async {
        await main(DaemonEnvironment.arguments(Self.self, CommandLine.arguments.dropFirst()))
    }

    func run() async throws {
        let logger = options.common.bootstrapLogging()
        let configuration = options.configuration()
        try await DaemonRun.serve("relayd", readyFile: configuration.readyFile, logger: logger) { onReady in
            let app = try RelayServiceApp(configuration: configuration, logger: logger, onReady: onReady)
            _ = try app.start()
            try await ServiceRunner.run(app.services, logger: logger)
            await app.close()
        }
    }
}
