import LaunchAdDomain

/// The hourly counts campaignd files from an edge's report (its numbers checked by ``PeerNumbers/check(_:now:retention:)``
/// first): the edge's own (by the hour the events happened in, and creative), or, from an edge that sends none, its
/// totals (with their reports by reason) under the hour the report arrived.
public enum ReportHours {
    /// The hourly counts of `report`, received at `now`.
    public static func hourly(of report: EdgeReport, receivedAt now: Timestamp) -> [HourlyCount] {
        report.hourly ?? hourly(totals: report.counts, at: now)
    }

    /// Totals by campaign as counts of the hour `time` is in (with their reports by reason).
    public static func hourly(totals: [CampaignStats], at time: Timestamp) -> [HourlyCount] {
        let hour = HourlyCount.hour(of: time)
        return totals.map { HourlyCount(id: $0.id, hour: hour, impressions: $0.impressions, clicks: $0.clicks, skips: $0.skips, reasons: $0.reasons) }
    }
}
