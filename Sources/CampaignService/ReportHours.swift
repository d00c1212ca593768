import JSONRPC
import LaunchAdAPI
import LaunchAdDomain

/// The hourly counts campaignd files from an edge's report, checked: the edge's own (by the hour the events
/// happened in, and creative), or, from an edge that sends none, its totals under the hour the report arrived.
enum ReportHours {
    static func hourly(of report: EdgeReport, receivedAt now: Timestamp) throws(JSONRPCError) -> [HourlyCount] {
        if let region = report.region, region.utf8.count > 64 { throw .invalidParams(field: "region", "must be at most 64 bytes") }
        guard let hourly = report.hourly else {
            let hour = HourlyCount.hour(of: now)
            return report.counts.map { HourlyCount(id: $0.id, hour: hour, impressions: $0.impressions, clicks: $0.clicks, skips: $0.skips) }
        }
        guard hourly.count <= EdgeReport.maxHourly else {
            throw .invalidParams(field: "hourly", "must list at most \(EdgeReport.maxHourly) counts")
        }
        for (index, item) in hourly.enumerated() {
            if item.impressions < 0 || item.clicks < 0 || item.skips < 0 {
                throw .invalidParams(field: "hourly[\(index)]", "counts must not be negative")
            }
            if item.hour != HourlyCount.hour(of: item.hour) { throw .invalidParams(field: "hourly[\(index)].hour", "must be the start of an hour") }
            if let sha256 = item.sha256, !CampaignRules.isSHA256(sha256) {
                throw .invalidParams(field: "hourly[\(index)].sha256", "must be 64 lowercase hex characters")
            }
        }
        return hourly
    }
}
