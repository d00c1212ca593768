import ArgumentParser
import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain

extension CampaignCommand {
    /// `adctl campaign create`
    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a campaign.",
            discussion: """
                Example:
                  adctl campaign create --name "Double 12" --app shop --starts now --ends +2h \\
                    --creative 9f86d0...0a08 --jump-url https://shop.example.com/1212 --wait
                """)
        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var fields: CampaignFieldOptions
        @OptionGroup var write: WriteOptions

        func run() async throws {
            let fields = try self.fields.fields()
            if write.dryRun {
                let campaign: Campaign
                do throws(FieldError) {
                    campaign = try CampaignRules.create(fields, id: 0, now: Timestamp(seconds: Date().timeIntervalSince1970), creativeExists: { _ in true })
                } catch {
                    throw CommandFailure("\(error.field): \(error.rule)")
                }
                try await connection.run { client in try await Writes.checkMarket(campaign, client: client) }
                print(connection.json ? try JSONValueEncoder().encode(fields).jsonText : "would create: \(try JSONValueEncoder().encode(fields).jsonText)")
                return
            }
            try await connection.run { client in
                let started = ContinuousClock.now
                let result = try await client.call(AdminAPI.campaignCreate, fields)
                try await Writes.finish(result, connection: connection, options: write, client: client, verb: "created", started: started)
            }
        }
    }
}
