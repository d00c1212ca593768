import ArgumentParser
import Foundation
import LaunchAdKit

/// `adsim ... why ID`: the edge's `launch.why` for this device and a campaign, as `whyThisAd()` asks it.
struct WhyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "why",
                                                    abstract: "Why this device is shown campaign ID: the advertiser, who paid, the targeting it met.")

    @OptionGroup var options: SimulatorOptions
    @Argument(help: "The campaign's id, as a launch shows it.") var id: Int64

    func run() async throws {
        let client = try options.client()
        do {
            EventPrinter(json: options.json).print(try await client.whyThisAd(campaignId: id))
        } catch {
            throw SimulatorFailure("why \(id): \(error)")
        }
    }
}
