import ArgumentParser
import DeliveryService
import LaunchAdRuntime
import Logging

/// `deliveryd`: the edge delivery service. Its options, their variables and checks are `DeliveryOptions`.
@main
struct DeliveryDaemon: AsyncParsableCommand {
    static let configuration = DeliveryOptions.command
    @OptionGroup var options: DeliveryOptions

    static func main() async {
        await main(DaemonEnvironment.arguments(Self.self, CommandLine.arguments.dropFirst()))
    }

    func run() async throws {
        HeapPolicy.keepFreedMemory()
        var logger = options.common.bootstrapLogging()
        logger[metadataKey: LogField.edgeId] = .string(options.edgeId)
        let configuration = options.configuration()
        try await DaemonRun.serve("deliveryd", readyFile: configuration.readyFile, logger: logger) { [logger] onReady in
            let app = try DeliveryServiceApp(configuration: configuration, logger: logger, onReady: onReady)
            _ = try app.start()
            try await ServiceRunner.run(app.services, logger: logger)
            if await !app.finish() { logger.warning("a ZeroMQ socket was still open at exit: replies still queued may not have reached their clients") }
        }
    }
}
