import LaunchAdAPI
import LaunchAdDomain

/// The per-app threshold on reports (``AppSettings/reportPause``), applied by both engines in the transaction that
/// adds an edge's report: a live campaign whose reports of one hour (UTC) reach its app's threshold is paused, as an
/// ordinary change by ``actor``. A paused campaign is not paused again (the transition is refused and nothing is
/// written); once resumed, a new report of an hour at or past the threshold pauses it again.
enum ReportPause {
    /// Who the change log names for a pause made by the threshold.
    static let actor = "rules"

    /// The campaigns and hours this report adds reports to, each once, in order: the only ones whose count moved.
    static func reportedHours(_ hourly: [HourlyCount]) -> [(id: Int64, hour: Int64)] {
        var seen = Set<[Int64]>()
        var hours: [(id: Int64, hour: Int64)] = []
        for item in hourly.sorted(by: { ($0.id, $0.hour.milliseconds) < ($1.id, $1.hour.milliseconds) })
        where (item.reasons?.total ?? 0) > 0 && seen.insert([item.id, item.hour.milliseconds]).inserted {
            hours.append((item.id, item.hour.milliseconds))
        }
        return hours
    }

    /// The campaign paused, when `reports` of one hour reached `threshold` and it is live; `nil` otherwise.
    static func paused(_ campaign: Campaign, reports: Int64, threshold: Int?, now: Timestamp) -> Campaign? {
        guard let threshold, reports >= Int64(threshold), campaign.state == .live else { return nil }
        return try? CampaignRules.apply(.paused, to: campaign, now: now)
    }
}
