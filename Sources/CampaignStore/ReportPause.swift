import LaunchAdAPI
import LaunchAdDomain

/// The per-app threshold on reports (``AppSettings/reportPause``), applied by both engines in the transaction that
/// adds an edge's report: a live campaign is paused, as an ordinary change by ``actor``, when this report makes its
/// reports of one hour (UTC) cross its app's threshold (below it before the report, at or above it after). Only the
/// clock's current and previous hours count (a late report of an older hour pauses nothing), and never an hour
/// before the campaign's last resume: an operator who resumes a campaign is not overruled by the reports that were
/// already counted, nor by one more of an hour already past the threshold.
enum ReportPause {
    /// Who the change log names for a pause made by the threshold.
    static let actor = "rules"

    /// The campaigns and hours this report adds reports to, each once, in order, with how many it adds there: the
    /// only ones whose count moved.
    static func reportedHours(_ hourly: [HourlyCount]) -> [(id: Int64, hour: Int64, added: Int64)] {
        var added: [[Int64]: Int64] = [:]
        for item in hourly where (item.reasons?.total ?? 0) > 0 {
            let (sum, overflow) = added[[item.id, item.hour.milliseconds], default: 0].addingReportingOverflow(item.reasons?.total ?? 0)
            added[[item.id, item.hour.milliseconds]] = overflow ? Int64.max : sum
        }
        return added.map { (id: $0.key[0], hour: $0.key[1], added: $0.value) }.sorted { ($0.id, $0.hour) < ($1.id, $1.hour) }
    }

    /// Selects when the campaign the first argument names was last resumed (null when never).
    static func lastResume(placeholder: (Int) -> String) -> String {
        "SELECT MAX(at) FROM changes WHERE campaign_id = \(placeholder(1)) AND op = '\(CampaignOperation.resumed.rawValue)'"
    }

    /// Whether campaign `id`'s reports of `hour` are worth reading under the engine's lock: the hour is one the
    /// threshold looks at, from `now`.
    static func counts(hour: Int64, now: Timestamp) -> Bool {
        let current = HourlyCount.hour(of: now).milliseconds
        return hour == current || hour == current - HourlyCount.hourMilliseconds
    }

    /// The campaign paused, when this report's `added` reports of `hour` made the hour's count (`reports`, with
    /// them) cross `threshold`, the hour is the clock's current or previous one and not before `lastResume`, and
    /// the campaign is live; `nil` otherwise.
    static func paused(_ campaign: Campaign, hour: Int64, added: Int64, reports: Int64, threshold: Int?, lastResume: Timestamp?,
                       now: Timestamp) -> Campaign? {
        guard let threshold, campaign.state == .live, counts(hour: hour, now: now) else { return nil }
        if let lastResume, hour < HourlyCount.hour(of: lastResume).milliseconds { return nil }
        let before = reports - min(added, reports)
        guard before < Int64(threshold), Int64(threshold) <= reports else { return nil }
        return try? CampaignRules.apply(.paused, to: campaign, now: now)
    }
}
