import ArgumentParser
import Foundation
import LaunchAdKit

/// `adsim ... refresh`: the prefetch, its downloads and deletions.
struct RefreshCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "refresh",
                                                    abstract: "Prefetch: download what campaigns ahead need, delete the rest.")

    @OptionGroup var options: SimulatorOptions

    func run() async throws {
        let client = try options.client()
        let summary: LaunchAdClient.RefreshSummary
        do {
            summary = try await client.refresh()
        } catch {
            throw SimulatorFailure("refresh: \(error)")
        }
        EventPrinter(json: options.json).print(summary)
        _ = await client.flushReports()
    }
}
