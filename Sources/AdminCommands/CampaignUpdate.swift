import ArgumentParser
import Foundation
import LaunchAdAPI
import LaunchAdDomain

extension CampaignCommand {
    /// `adctl campaign update ID`
    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change fields of a campaign (only those given).",
            discussion: "Example:\n  adctl campaign update 7 --priority 90 --ends 2026-12-13T00:00+08:00 --wait")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The campaign's id.") var id: Int64
        @OptionGroup var fields: CampaignFieldOptions
        @OptionGroup var write: WriteOptions

        func run() async throws {
            let fields = try self.fields.fields()
            try await connection.run { client in
                if write.dryRun {
                    let current = try await client.call(AdminAPI.campaignGet, CampaignID(id: id)).campaign
                    let next: Campaign
                    do throws(CampaignRuleError) {
                        next = try CampaignRules.update(current, with: fields, now: Timestamp(seconds: Date().timeIntervalSince1970), creativeExists: { _ in true })
                    } catch {
                        switch error {
                        case .field(let field): throw CommandFailure(field.description)
                        case .transition(let transition): throw CommandFailure(transition.description)
                        }
                    }
                    try await Writes.checkMarket(next, client: client)
                    try Diff.print(from: current, to: next, json: connection.json)
                    return
                }
                let started = ContinuousClock.now
                let result = try await client.call(AdminAPI.campaignUpdate, CampaignUpdateParams(id: id, fields: fields))
                try await Writes.finish(result, connection: connection, options: write, client: client, verb: "updated", started: started)
            }
        }
    }
}
