import LaunchAdAPI
import LaunchAdDomain

/// The campaigns page: every campaign with its state, and per app a timeline of their windows, so overlaps show, and
/// the app's funnel over the last ``funnelHours`` hours.
enum CampaignsPage {
    /// The span of each app's funnel on the page.
    static let funnelHours = 24

    static func body(_ campaigns: [Campaign], funnels: [String: AppStatsResult] = [:], now: Timestamp) -> String {
        guard !campaigns.isEmpty else { return "<p>No campaign yet (adctl campaign create makes one).</p>" }
        var html = "<h2>Timeline</h2>"
        let apps = Dictionary(grouping: campaigns, by: \.app).sorted { $0.key < $1.key }
        for (app, members) in apps {
            html += "<h3>\(HTML.escape(app))</h3>" + TimelineChart.svg(members.sorted { $0.startsAt < $1.startsAt }, now: now)
            if let funnel = funnels[app] { html += funnelTable(funnel) }
        }
        html += """
            <h2>Campaigns</h2>
            <table id="campaigns"><thead><tr><th>id</th><th>name</th><th>app</th><th>state</th><th>forced</th><th>priority</th>
            <th>starts</th><th>ends</th><th>version</th></tr></thead><tbody>
            """
        for campaign in campaigns {
            html += """
                <tr><td>\(campaign.id)</td><td><a href="/campaigns/\(campaign.id)">\(HTML.escape(campaign.name))</a></td>\
                <td>\(HTML.escape(campaign.app))</td><td class="state-\(campaign.state.rawValue)">\(campaign.state.rawValue)</td>\
                <td>\(campaign.forced ? "forced" : "")</td><td>\(campaign.priority)</td><td>\(campaign.startsAt.rfc3339)</td>\
                <td>\(campaign.endsAt.rfc3339)</td><td>\(campaign.version)</td></tr>
                """
        }
        return html + "</tbody></table>"
    }

    /// An app's funnel over the page's span: its totals, the rates as percentages (`-` where the denominator is 0).
    static func funnelTable(_ result: AppStatsResult) -> String {
        let totals = result.totals
        func rate(_ value: Double?) -> String { value.map { String(format: "%.1f%%", $0 * 100) } ?? "-" }
        return """
            <table class="funnel" data-app="\(HTML.escape(result.app))"><caption>Funnel, last \(funnelHours) hours</caption>\
            <thead><tr><th>requests</th><th>fills</th><th>shows</th><th>timeouts</th><th>failures</th><th>fill rate</th>\
            <th>show rate</th></tr></thead><tbody><tr><td data-count="requests">\(totals.requests)</td>\
            <td data-count="fills">\(totals.fills)</td><td data-count="shows">\(totals.shows)</td>\
            <td data-count="timeouts">\(totals.timeouts)</td><td data-count="failures">\(totals.failures)</td>\
            <td data-count="fillRate">\(rate(totals.fillRate))</td><td data-count="showRate">\(rate(totals.showRate))</td></tr></tbody></table>
            """
    }
}
