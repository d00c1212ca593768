import LaunchAdAPI
import LaunchAdDomain

/// The campaigns page: each app's market and the live, scheduled and paused campaigns breaking its rules, every campaign with
/// its state, and per app a timeline of their windows, so overlaps show, and the app's funnel over the last
/// ``funnelHours`` hours.
enum CampaignsPage {
    /// The span of each app's funnel on the page.
    static let funnelHours = 24

    static func body(_ campaigns: [Campaign], apps: [AppSettings] = [], funnels: [String: AppStatsResult] = [:], now: Timestamp) -> String {
        let appsHTML = appsTable(campaigns, apps: apps)
        guard !campaigns.isEmpty else { return appsHTML + "<p>No campaign yet (adctl campaign create makes one).</p>" }
        var html = appsHTML + "<h2>Timeline</h2>"
        for (app, members) in Dictionary(grouping: campaigns, by: \.app).sorted(by: { $0.key < $1.key }) {
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

    /// Every app set or named by a campaign (an app never set is global, in UTC), with its market and the live,
    /// scheduled and paused campaigns that break the market's rules, each rule with its source: the same check campaignd makes.
    static func appsTable(_ campaigns: [Campaign], apps: [AppSettings]) -> String {
        var known = Dictionary(apps.map { ($0.app, $0) }, uniquingKeysWith: { first, _ in first })
        for campaign in campaigns where known[campaign.app] == nil { known[campaign.app] = AppSettings(app: campaign.app) }
        guard !known.isEmpty else { return "" }
        let byApp = Dictionary(grouping: campaigns, by: \.app)
        var html = """
            <h2>Apps</h2>
            <table id="apps"><thead><tr><th>app</th><th>market</th><th>timezone</th><th>report pause</th><th>breaking its market's rules</th></tr></thead><tbody>
            """
        for app in known.values.sorted(by: { $0.app < $1.app }) {
            let breaking = BreakingCampaign.among(byApp[app.app] ?? [], in: app.market)
            let list = breaking.map { campaign in
                // A paused one serves nothing now, but would be refused on resume.
                "<li data-campaign=\"\(campaign.id)\" data-state=\"\(campaign.state.rawValue)\"><a href=\"/campaigns/\(campaign.id)\">\(HTML.escape(campaign.name))</a>"
                    + (campaign.state == .paused ? " <small>(paused: refused on resume)</small>" : "") + ": "
                    + campaign.breaches.map { "\(HTML.escape($0.field)) \(HTML.escape($0.rule)) <small>(\(HTML.escape($0.source)))</small>" }
                    .joined(separator: "; ") + "</li>"
            }.joined()
            html += """
                <tr data-app="\(HTML.escape(app.app))"><td>\(HTML.escape(app.app))</td><td data-market="\(app.market.rawValue)">\(app.market.rawValue)</td>\
                <td>\(HTML.escape(app.timezone))</td><td data-report-pause="\(app.reportPause ?? 0)">\(app.reportPause.map { "at \($0) reports an hour" } ?? "off")</td>\
                <td>\(breaking.isEmpty ? "none" : "<ul class=\"breaking\">\(list)</ul>")</td></tr>
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
