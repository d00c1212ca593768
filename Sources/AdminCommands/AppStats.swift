import ArgumentParser
import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain

/// `adctl app stats APP`
struct AppStats: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "An app's funnel from its launches' reports: requests, fills, shows, timeouts, failures, fill and show rates.",
        discussion: """
            A row per hour (or day, UTC) with a count, then the span's total. FILLS are requests less noAd and \
            timeout reports; FILL RATE is fills / requests, SHOW RATE shows / fills (shows: impressions of the app's \
            campaigns); "-" where the denominator is 0. By default the last day by hour, or the last 30 days by day. \
            campaignd keeps these counts for its --stats-retention (90 days by default).

            Examples:
              adctl app stats com.example.shop
              adctl app stats com.example.shop --by day --from=-7d
              adctl --json app stats com.example.shop --from 2026-12-12T00:00:00+08:00 --to +6h
            """)
    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The app's id, as the SDK sends it.") var app: String
    @Option(help: "Rows by hour or day (UTC).") var by: String?
    @Option(help: "The span's start: RFC 3339, now, or an offset written --from=-6h (default: a day before --to by hour, 30 days by day).") var from: String?
    @Option(help: "The span's end, not included (default: now).") var to: String?

    func validate() throws {
        if let by, StatsBucket(rawValue: by) == nil { throw ValidationError("--by must be hour or day (got \(by))") }
        _ = try from.map { try FriendlyTime.parse($0) }
        _ = try to.map { try FriendlyTime.parse($0) }
    }

    func run() async throws {
        let params = AppStatsParams(app: app, from: try from.map { try FriendlyTime.parse($0) }, to: try to.map { try FriendlyTime.parse($0) },
                                    by: by.flatMap(StatsBucket.init))
        try await connection.run { client in
            let result = try await client.call(AdminAPI.appStats, params)
            if connection.json {
                print(try JSONValueEncoder().encode(result).jsonText)
                return
            }
            let header = [StatsBucket.heading(result.by, timezone: result.timezone), "REQUESTS", "FILLS", "SHOWS", "TIMEOUTS", "FAILURES", "FILL RATE", "SHOW RATE"]
            let rows = result.series.map { Self.row($0.at?.rfc3339 ?? "-", $0) } + [Self.row("total", result.totals)]
            Table.print(header, rows)
        }
    }

    /// A row of the table: its label, the counts, and the rates as percentages with one decimal (`-` with none).
    static func row(_ label: String, _ funnel: AppFunnel) -> [String] {
        [label, String(funnel.requests), String(funnel.fills), String(funnel.shows), String(funnel.timeouts), String(funnel.failures)]
            + [funnel.fillRate, funnel.showRate].map { rate in rate.map { String(format: "%.1f%%", $0 * 100) } ?? "-" }
    }
}

extension StatsBucket {
    /// The heading of a series' bucket column: `HOUR`, or `DAY` with the zone its days begin in when not UTC (each
    /// row still shows the bucket's start as an instant).
    static func heading(_ by: StatsBucket, timezone: String?) -> String {
        guard by == .day, let timezone, timezone != "UTC" else { return by.rawValue.uppercased() }
        return "DAY (\(timezone))"
    }
}
