import ArgumentParser
import JSONRPC
import LaunchAdAPI

/// `adctl stats [ID]`
struct Stats: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Impressions, clicks and skips per campaign, from the edges' reports.",
                                                    discussion: "Example:\n  adctl stats 7")
    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "One campaign's id (default: all).") var id: Int64?

    func run() async throws {
        try await connection.run { client in
            let result = try await client.call(AdminAPI.campaignStats, CampaignStatsParams(id: id))
            if connection.json {
                print(try JSONValueEncoder().encode(result).jsonText)
                return
            }
            Table.print(["ID", "IMPRESSIONS", "CLICKS", "SKIPS"], result.stats.map {
                [String($0.id), String($0.impressions), String($0.clicks), String($0.skips)]
            })
        }
    }
}
