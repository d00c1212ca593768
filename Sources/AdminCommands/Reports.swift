import ArgumentParser
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain

/// `adctl reports`
struct Reports: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Reported campaigns (apps' launch.report kind reported): by campaign, reports by reason and the latest hour.",
        discussion: """
            The most reported first. Reports are counted by hour (UTC): --since takes the hour it falls in, and \
            campaignd keeps them for its --stats-retention. An app with a report threshold (adctl app set \
            --report-pause N) has a campaign paused by the report that makes its reports of the current or previous hour cross N (never for an hour before its last resume), by the actor rules (adctl \
            history ID shows it).

            Examples:
              adctl reports
              adctl reports --app com.example.shop --since=-24h
              adctl --json reports --since 2026-12-12T00:00:00Z
            """)
    @OptionGroup var connection: ConnectionOptions
    @Option(help: "One app's campaigns (default: every app's).") var app: String?
    @Option(help: "Reports from this time's hour on: RFC 3339, now, or an offset written --since=-24h (default: every hour kept).") var since: String?
    @Option(help: "The most campaigns listed (default \(ReportListParams.defaultLimit), at most \(ReportListParams.maxLimit)).") var limit: Int?

    func validate() throws {
        _ = try since.map { try FriendlyTime.parse($0) }
        if let limit, !(1...ReportListParams.maxLimit).contains(limit) {
            throw ValidationError("--limit must be between 1 and \(ReportListParams.maxLimit)")
        }
    }

    func run() async throws {
        let params = ReportListParams(app: app, since: try since.map { try FriendlyTime.parse($0) }, limit: limit)
        try await connection.run { client in
            let result = try await client.call(AdminAPI.reportList, params)
            if connection.json {
                print(try JSONValueEncoder().encode(result).jsonText)
                return
            }
            Table.print(["ID", "NAME", "APP", "REPORTS"] + ReportReason.allCases.map { $0.rawValue.uppercased() } + ["LAST"],
                        result.campaigns.map { campaign in
                [String(campaign.id), campaign.name, campaign.app, String(campaign.total)]
                    + campaign.reasons.numbers.map { String($0) } + [campaign.lastAt.rfc3339]
            })
        }
    }
}
