import Foundation
import LaunchAdDomain

/// An app's campaigns as bars over time, drawn as SVG on the server: one row each, from its start to its end, with a
/// line at now; overlapping windows show as bars over the same span.
enum TimelineChart {
    static let width = 900.0
    static let labelWidth = 220.0
    static let rowHeight = 22.0

    static func svg(_ campaigns: [Campaign], now: Timestamp) -> String {
        let start = min(campaigns.map(\.startsAt).min() ?? now, now)
        let end = max(campaigns.map(\.endsAt).max() ?? now, now.adding(seconds: 3600))
        let span = max(Double(end.milliseconds - start.milliseconds), 1)
        let plot = width - labelWidth - 10
        func x(_ time: Timestamp) -> Double { labelWidth + plot * Double(time.milliseconds - start.milliseconds) / span }
        let height = rowHeight * Double(campaigns.count) + 24
        var svg = """
            <svg class="timeline" width="\(Int(width))" height="\(Int(height))" viewBox="0 0 \(Int(width)) \(Int(height))" \
            role="img" aria-label="windows of the campaigns">
            """
        for (row, campaign) in campaigns.enumerated() {
            let y = Double(row) * rowHeight
            let left = x(campaign.startsAt), right = max(x(campaign.endsAt), left + 2)
            let classes = "window state-\(campaign.state.rawValue)" + (campaign.forced ? " forced" : "")
            svg += """
                <text x="4" y="\(format(y + 15))">\(HTML.escape("\(campaign.id) \(campaign.name)"))</text>\
                <rect class="\(classes)" x="\(format(left))" y="\(format(y + 4))" width="\(format(right - left))" height="\(format(rowHeight - 8))">\
                <title>\(HTML.escape("\(campaign.name): \(campaign.startsAt.rfc3339) to \(campaign.endsAt.rfc3339), \(campaign.state.rawValue)"))</title></rect>
                """
        }
        let nowX = x(now), bottom = rowHeight * Double(campaigns.count)
        svg += """
            <line class="now" x1="\(format(nowX))" y1="0" x2="\(format(nowX))" y2="\(format(bottom))"/>\
            <text x="\(format(labelWidth))" y="\(format(bottom + 16))">\(HTML.escape(start.rfc3339))</text>\
            <text x="\(format(width - 10))" y="\(format(bottom + 16))" text-anchor="end">\(HTML.escape(end.rfc3339))</text></svg>
            """
        return svg
    }

    /// A coordinate with one decimal.
    static func format(_ value: Double) -> String { String(format: "%.1f", value) }
}
