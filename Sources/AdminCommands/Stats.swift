import ArgumentParser
import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain

/// `adctl stats [ID]`
struct Stats: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Impressions, clicks, skips and reports per campaign, from the edges' reports: totals, or over time.",
        discussion: """
            With --by, --split, --from or --to, a row per campaign and hour (or day, UTC), split by creative and the \
            edge's region when asked. CTR is clicks / impressions, SKIP RATE skips / impressions; REPORTS counts the \
            ads users reported (adctl reports lists them by reason). campaignd keeps the \
            hourly counts for its --stats-retention (90 days by default); the totals for good.

            Examples:
              adctl stats 7
              adctl stats 7 --by hour --split creative
              adctl stats --by day --from=-7d --split region
              adctl --json stats 7 --by hour --from 2026-12-12T00:00:00+08:00 --to +1h
            """)
    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "One campaign's id (default: all).") var id: Int64?
    @Option(help: "Rows by hour or day (UTC).") var by: String?
    @Option(help: "Split rows by creative, region or both (comma-separated).") var split: String?
    @Option(help: "The series' start: RFC 3339, now, or an offset written --from=-6h (default: a day before --to by hour, 30 days by day).") var from: String?
    @Option(help: "The series' end, not included (default: now).") var to: String?

    func validate() throws {
        if let by, StatsBucket(rawValue: by) == nil { throw ValidationError("--by must be hour or day (got \(by))") }
        _ = try splits()
        _ = try from.map { try FriendlyTime.parse($0) }
        _ = try to.map { try FriendlyTime.parse($0) }
        if let id, id < 1 { throw ValidationError("the campaign id must be 1 or more") }
    }

    func splits() throws -> [StatsSplit]? {
        try split.map { text in
            try text.split(separator: ",").map { word in
                guard let split = StatsSplit(rawValue: word.trimmingCharacters(in: .whitespaces)) else {
                    throw ValidationError("--split takes creative, region or both (got \(word))")
                }
                return split
            }
        }
    }

    func run() async throws {
        let params = CampaignStatsParams(id: id, from: try from.map { try FriendlyTime.parse($0) }, to: try to.map { try FriendlyTime.parse($0) },
                                         by: by.flatMap(StatsBucket.init), split: try splits())
        try await connection.run { client in
            let result = try await client.call(AdminAPI.campaignStats, params)
            if connection.json {
                print(try JSONValueEncoder().encode(result).jsonText)
                return
            }
            guard let series = result.series else {
                Table.print(["ID", "IMPRESSIONS", "CLICKS", "SKIPS", "REPORTS", "CTR", "SKIP RATE"], result.stats.map {
                    [String($0.id), String($0.impressions), String($0.clicks), String($0.skips), String($0.reports ?? 0)]
                        + Self.rates(impressions: $0.impressions, clicks: $0.clicks, skips: $0.skips)
                })
                if let pacing = result.pacing { Self.printPacing(pacing) }
                return
            }
            let splits = params.split ?? []
            let header = ["ID", StatsBucket.heading(params.by ?? .hour, timezone: result.timezone)] + (splits.contains(.creative) ? ["CREATIVE"] : [])
                + (splits.contains(.region) ? ["REGION"] : []) + ["IMPRESSIONS", "CLICKS", "SKIPS", "REPORTS", "CTR", "SKIP RATE"]
            Table.print(header, series.map { point in
                [String(point.id), point.at.rfc3339] + (point.creative.map { [$0.isEmpty ? "-" : String($0.prefix(12))] } ?? [])
                    + (point.region.map { [$0.isEmpty ? "-" : $0] } ?? [])
                    + [String(point.impressions), String(point.clicks), String(point.skips), String(point.reports ?? 0)]
                    + Self.rates(impressions: point.impressions, clicks: point.clicks, skips: point.skips)
            })
        }
    }

    /// The forecast line of each campaign with a goal, under the totals.
    static func printPacing(_ lines: [PacingStats]) {
        print("")
        Table.print(["ID", "GOAL", "PER", "PACING", "DELIVERED", "PACE", "SHARE", "PROJECTED", "STATUS"], lines.map { line in
            [String(line.id), String(line.goal.impressions), line.goal.per.rawValue, line.pacing.rawValue, String(line.delivered),
             String(format: "%.2f", line.pace), String(format: "%.3f", line.share), String(line.projected),
             line.completed ? "completed" : line.projected < line.goal.impressions ? "short" : "on track"]
        })
    }

    /// CTR and skip rate as percentages with one decimal, `-` with no impression.
    static func rates(impressions: Int64, clicks: Int64, skips: Int64) -> [String] {
        guard impressions > 0 else { return ["-", "-"] }
        return [clicks, skips].map { String(format: "%.1f%%", Double($0) * 100 / Double(impressions)) }
    }
}
