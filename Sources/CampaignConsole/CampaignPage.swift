import Foundation
import LaunchAdAPI
import LaunchAdDomain

/// A campaign's page: its fields (with its app's market), the writes it offers, the phone-frame preview, its stats by
/// hour, its reports by reason, and a page of its history from the change log, newest first, with a link to the older
/// changes.
enum CampaignPage {
    struct Content {
        var campaign: Campaign
        var shapes: [PhonePreview.Shape]
        /// A page of the history, newest first.
        var history: Result<[ChangeEntry], any Error>
        /// The `seq` the page starts below (`nil`: the newest changes).
        var historyBefore: Int64?
        var stats: Result<[StatsPoint], any Error>
        var statsFrom: Timestamp
        var statsHours: Int
        /// Its app's market (`nil` when campaignd could not say).
        var market: Market?
        /// Its totals, with its reports by reason (`nil` when campaignd could not say).
        var totals: CampaignStats?
        /// The goal's forecast line, for a live campaign with a goal.
        var pacing: PacingStats? = nil
    }

    static func body(_ content: Content) -> String {
        let campaign = content.campaign
        var html = "<h2>\(HTML.escape(campaign.name))</h2><p class=\"actions\">"
        for operation in ConsoleOperation.allCases where operation.offered(for: campaign) {
            html += "<a href=\"/campaigns/\(campaign.id)/\(operation.rawValue)\">\(operation.title)</a>"
        }
        html += "</p>" + fields(campaign, market: content.market)
        if let line = content.pacing { html += pacing(line) }
        html += "<h2>Preview</h2>" + PhonePreview.section(campaign, shapes: content.shapes)
        html += "<h2>Stats, last \(content.statsHours) hours</h2>"
        switch content.stats {
        case .success(let points):
            for measure in StatsChart.Measure.allCases {
                html += "<div>" + StatsChart.svg(points, measure: measure, from: content.statsFrom, hours: content.statsHours) + "</div>"
            }
        case .failure(let error):
            html += "<p class=\"error\">\(HTML.escape("\(error)"))</p>"
        }
        html += "<h2>Reports</h2>" + reports(content.totals)
        html += "<h2>History</h2>"
        switch content.history {
        case .success(let changes):
            if changes.isEmpty { html += "<p>No \(content.historyBefore == nil ? "" : "older ")changes.</p>" }
            html += "<table id=\"history\"><thead><tr><th>seq</th><th>when</th><th>what</th><th>who</th><th>fields</th><th>version</th></tr></thead><tbody>"
            for change in changes {
                html += """
                    <tr><td>\(change.seq)</td><td>\(change.at.rfc3339)</td><td>\(change.op.rawValue)</td>\
                    <td>\(HTML.escape(change.actor))</td><td>\(HTML.escape(change.fields.joined(separator: ", ")))</td><td>\(change.version)</td></tr>
                    """
            }
            html += "</tbody></table><p class=\"pages\">"
            if content.historyBefore != nil { html += "<a id=\"newest\" href=\"/campaigns/\(campaign.id)\">Newest changes</a> " }
            // The log's first change of a campaign created it: below it there is nothing older.
            if let last = changes.last, last.op != .created {
                html += "<a id=\"older\" href=\"/campaigns/\(campaign.id)?before=\(last.seq)\">Older changes</a>"
            }
            html += "</p>"
        case .failure(let error):
            html += "<p class=\"error\">\(HTML.escape("\(error)"))</p>"
        }
        return html
    }

    /// The users' reports of the campaign's ad: every reason's count (campaignd keeps them by hour for its stats
    /// retention; the total for good), each labelled so, as once hours are forgotten the reasons add up to less.
    static func reports(_ totals: CampaignStats?) -> String {
        guard let totals else { return "<p class=\"error\">Reports unavailable.</p>" }
        let reasons = totals.reasons ?? ReportReasons()
        return "<table id=\"reports\"><thead><tr><th>reason</th><th>reports, over the hours kept</th></tr></thead><tbody>"
            + ReportReason.allCases.map { "<tr data-reason=\"\($0.rawValue)\"><td>\($0.rawValue)</td><td>\(reasons[$0])</td></tr>" }.joined()
            + "<tr data-reason=\"total\"><th>total, kept for good</th><th>\(totals.reports ?? reasons.total)</th></tr></tbody></table>"
    }

    static func fields(_ campaign: Campaign, market: Market? = nil) -> String {
        var rows: [(String, String)] = [
            ("id", "\(campaign.id)"), ("app", campaign.app), ("market", market?.rawValue ?? "unknown"), ("state", campaign.state.rawValue),
            ("window", "\(campaign.startsAt.rfc3339) to \(campaign.endsAt.rfc3339)"),
            ("priority", "\(campaign.priority)"), ("weight", "\(campaign.weight)"), ("forced", "\(campaign.forced)"),
            ("countdown", "\(campaign.countdown) s"),
            ("skip", campaign.skippable ? "after \(campaign.skipAfter ?? 0) s" : "not skippable"),
            ("launch types", campaign.launchTypes.map(\.rawValue).joined(separator: ", ")
                + (campaign.minBackgroundSeconds.map { " (hot after \($0) s in the background)" } ?? "")),
            ("jump", campaign.jump.type == .none ? "none" : "\(campaign.jump.type.rawValue) \(campaign.jump.value)"),
            ("creatives", campaign.creatives.map { "\($0.sha256.prefix(12)) (weight \($0.weight))" }.joined(separator: ", ")),
        ]
        let targeting = campaign.targeting
        var target: [String] = []
        if let platforms = targeting.platforms { target.append("platforms \(platforms.joined(separator: ", "))") }
        if let versions = targeting.appVersions { target.append("versions \(versions.min ?? "any") to \(versions.max ?? "any")") }
        if let regions = targeting.regions { target.append("regions \(regions.joined(separator: ", "))") }
        if let locales = targeting.locales { target.append("locales \(locales.joined(separator: ", "))") }
        rows.append(("targeting", target.isEmpty ? "everyone" : target.joined(separator: "; ")))
        if let cap = campaign.frequencyCap { rows.append(("frequency cap", "\(cap.shows) in \(cap.hours) h")) }
        if let audience = campaign.audience { rows.append(("audience", audience.rawValue)) }
        if let advertiser = campaign.advertiser { rows.append(("advertiser", advertiser)) }
        if let paidBy = campaign.paidBy { rows.append(("paid by", paidBy)) }
        if let goal = campaign.goal {
            rows.append(("goal", "\(goal.impressions) impressions per \(goal.per.rawValue), paced \((campaign.pacing ?? .even).rawValue)"))
        }
        rows.append(("version", "\(campaign.version), updated \(campaign.updatedAt.rfc3339)"))
        return "<table id=\"fields\"><tbody>" + rows.map { "<tr><th>\(HTML.escape($0.0))</th><td>\(HTML.escape($0.1))</td></tr>" }.joined() + "</tbody></table>"
    }

    /// The forecast line: delivered against the goal in the period, the pace and share, and the projection, saying
    /// plainly when the goal is met or traffic falls short.
    static func pacing(_ line: PacingStats) -> String {
        let status = line.completed ? "completed: the goal is met for this \(line.goal.per.rawValue)"
            : line.projected < line.goal.impressions ? "short: too little traffic to meet the goal" : "on track"
        let text = "\(line.delivered) of \(line.goal.impressions) delivered since \(line.from.rfc3339), pace \(String(format: "%.2f", line.pace)), "
            + "share \(String(format: "%.3f", line.share)), projected \(line.projected); \(status)"
        return "<p id=\"pacing\">\(HTML.escape(text))</p>"
    }

    /// The confirmation a write asks for, with the form that makes it (carrying the session's CSRF token).
    static func confirmation(_ campaign: Campaign, _ operation: ConsoleOperation, csrf: String?) -> String {
        let token = csrf.map { "<input type=\"hidden\" name=\"csrf\" value=\"\(HTML.escape($0))\">" } ?? ""
        return """
            <p>\(operation.title) campaign \(campaign.id), <strong>\(HTML.escape(campaign.name))</strong> (\(HTML.escape(campaign.app)), \
            \(campaign.state.rawValue))?</p><p>\(HTML.escape(operation.consequence))</p>
            <form method="post" action="/campaigns/\(campaign.id)/\(operation.rawValue)">\(token)\
            <input type="hidden" name="confirm" value="yes">\
            <button type="submit" class="danger" id="confirm">\(operation.title)</button> <a href="/campaigns/\(campaign.id)">Cancel</a></form>
            """
    }
}
