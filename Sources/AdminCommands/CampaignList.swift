import ArgumentParser
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain

extension CampaignCommand {
    /// `adctl campaign list`
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List campaigns, by app and state.",
                                                        discussion: "Example:\n  adctl campaign list --app shop --state live")
        @OptionGroup var connection: ConnectionOptions
        @Option(help: "Only this app's campaigns.") var app: String?
        @Option(help: "Only campaigns in this state (scheduled, live, paused, expired, deleted).") var state: String?

        func validate() throws {
            if let state, CampaignState(rawValue: state) == nil { throw ValidationError("--state must be one of scheduled, live, paused, expired, deleted") }
        }

        func run() async throws {
            try await connection.run { client in
                let list = try await client.call(AdminAPI.campaignList, CampaignListParams(app: app, state: state.flatMap(CampaignState.init)))
                if connection.json { print(try JSONValueEncoder().encode(list).jsonText) } else { Table.campaigns(list.campaigns) }
            }
        }
    }
}
