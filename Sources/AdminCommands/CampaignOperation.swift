import ArgumentParser
import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain

/// force, unforce, pause, resume, expire and delete: one operation on one campaign, by id, each its own command over
/// the same implementation (``OperationOptions``).
extension CampaignCommand {
    struct Force: AsyncParsableCommand {
        static let configuration = operationConfiguration("force", "Make a campaign answer first, on every edge, from the next query.")
        @OptionGroup var operation: OperationOptions
        func run() async throws { try await operation.run(AdminAPI.campaignForce, .forced, verb: "forced") }
    }

    struct Unforce: AsyncParsableCommand {
        static let configuration = operationConfiguration("unforce", "Stop forcing a campaign.")
        @OptionGroup var operation: OperationOptions
        func run() async throws { try await operation.run(AdminAPI.campaignUnforce, .unforced, verb: "unforced") }
    }

    struct Pause: AsyncParsableCommand {
        static let configuration = operationConfiguration("pause", "Hold a campaign.")
        @OptionGroup var operation: OperationOptions
        func run() async throws { try await operation.run(AdminAPI.campaignPause, .paused, verb: "paused") }
    }

    struct Resume: AsyncParsableCommand {
        static let configuration = operationConfiguration("resume", "Resume a paused campaign.")
        @OptionGroup var operation: OperationOptions
        func run() async throws { try await operation.run(AdminAPI.campaignResume, .resumed, verb: "resumed") }
    }

    struct Expire: AsyncParsableCommand {
        static let configuration = operationConfiguration("expire", "Take a campaign down at once, for good (a takedown).")
        @OptionGroup var operation: OperationOptions
        func run() async throws { try await operation.run(AdminAPI.campaignExpire, .expired, verb: "expired") }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = operationConfiguration("delete", "Delete a campaign; edges tell clients to drop it.")
        @OptionGroup var operation: OperationOptions
        func run() async throws { try await operation.run(AdminAPI.campaignDelete, .deleted, verb: "deleted") }
    }

    static func operationConfiguration(_ name: String, _ abstract: String) -> CommandConfiguration {
        CommandConfiguration(commandName: name, abstract: abstract,
                             discussion: "Example:\n  adctl campaign \(name) 7 --wait")
    }
}

/// The id and options of force, unforce, pause, resume, expire and delete, and what they do.
struct OperationOptions: ParsableArguments {
    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The campaign's id.") var id: Int64
    @OptionGroup var write: WriteOptions

    func run(_ method: RPCMethod<CampaignID, CampaignChangeResult>, _ operation: CampaignOperation, verb: String) async throws(CommandFailure) {
        try await connection.run { client in
            if write.dryRun {
                let current = try await client.call(AdminAPI.campaignGet, CampaignID(id: id)).campaign
                let next: Campaign
                do throws(TransitionError) {
                    next = try CampaignRules.apply(operation, to: current, now: Timestamp(seconds: Date().timeIntervalSince1970))
                } catch {
                    throw CommandFailure(error.description)
                }
                if MarketRules.isChecked(operation) { try await Writes.checkMarket(next, client: client) }
                try Diff.print(from: current, to: next, json: connection.json)
                return
            }
            let started = ContinuousClock.now
            let result = try await client.call(method, CampaignID(id: id))
            try await Writes.finish(result, connection: connection, options: write, client: client, verb: verb, started: started)
        }
    }
}
