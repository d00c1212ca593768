import ArgumentParser
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain

extension CampaignCommand {
    /// `adctl campaign get ID`
    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one campaign.", discussion: "Example:\n  adctl campaign get 7 --json")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The campaign's id.") var id: Int64

        func run() async throws {
            try await connection.run { client in
                let campaign = try await client.call(AdminAPI.campaignGet, CampaignID(id: id)).campaign
                if connection.json {
                    print(try JSONValueEncoder().encode(CampaignResult(campaign: campaign)).jsonText)
                } else {
                    let json = try JSONValueEncoder().encode(campaign)
                    for member in json.objectValue ?? JSONObject() { print(DisplayText.escaped("\(member.key.padding(toLength: 20, withPad: " ", startingAt: 0)) \(member.value.jsonText)")) }
                }
            }
        }
    }
}
