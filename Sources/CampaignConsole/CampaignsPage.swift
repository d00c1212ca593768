import LaunchAdDomain

/// The campaigns page: every campaign with its state, and per app a timeline of their windows, so overlaps show.
enum CampaignsPage {
    static func body(_ campaigns: [Campaign], now: Timestamp) -> String {
        guard !campaigns.isEmpty else { return "<p>No campaign yet (adctl campaign create makes one).</p>" }
        var html = "<h2>Timeline</h2>"
        let apps = Dictionary(grouping: campaigns, by: \.app).sorted { $0.key < $1.key }
        for (app, members) in apps {
            html += "<h3>\(HTML.escape(app))</h3>" + TimelineChart.svg(members.sorted { $0.startsAt < $1.startsAt }, now: now)
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
}
