import ArgumentParser
import CampaignService
import CampaignStore
import LaunchAdRuntime

/// `campaignd`: the campaign service. Its options, their variables and checks are `CampaignOptions`.
@main
struct CampaignDaemon: AsyncParsableCommand {
    static let configuration = CampaignOptions.command
    @OptionGroup var options: CampaignOptions

    static func main() async {
        await main(DaemonEnvironment.arguments(Self.self, CommandLine.arguments.dropFirst()))
    }

    func run() async throws {
        let logger = options.common.bootstrapLogging()
        let configuration = try options.configuration()
        try await DaemonRun.serve("campaignd", readyFile: configuration.readyFile, logger: logger) { onReady in
            do {
                let app = try await CampaignServiceApp(configuration: configuration, logger: logger, onReady: onReady)
                defer { app.close() }
                _ = try app.start()
                try await ServiceRunner.run(app.services, logger: logger)
            } catch let error as DatabaseUnavailable {
                exitWithError("campaignd", error.description)
            }
        }
    }
}
