import LaunchAdAPI
import LaunchAdDomain

/// A campaign's counts by hour as an SVG bar chart drawn on the server: one bar per hour of the last `hours`, the
/// hour's total over its creatives and regions.
enum StatsChart {
    static let width = 720.0
    static let height = 160.0

    /// Which count a chart shows.
    enum Measure: String, CaseIterable {
        case impressions, clicks, skips

        func value(_ point: StatsPoint) -> Int64 {
            switch self {
            case .impressions: point.impressions
            case .clicks: point.clicks
            case .skips: point.skips
            }
        }
    }

    static func svg(_ points: [StatsPoint], measure: Measure, from: Timestamp, hours: Int) -> String {
        var perHour = [Int64](repeating: 0, count: hours)
        for point in points {
            let slot = Int((point.at.milliseconds - from.milliseconds) / 3_600_000)
            if perHour.indices.contains(slot) { perHour[slot] = perHour[slot].addingSaturated(measure.value(point)) }
        }
        let top = max(perHour.max() ?? 0, 1)
        let left = 48.0, bottom = height - 20, plot = width - left - 8
        let slot = plot / Double(hours)
        var svg = """
            <svg class="chart" id="chart-\(measure.rawValue)" width="\(Int(width))" height="\(Int(height))" \
            viewBox="0 0 \(Int(width)) \(Int(height))" role="img" aria-label="\(measure.rawValue) by hour">\
            <text x="\(left)" y="12">\(measure.rawValue) by hour (total \(perHour.reduce(Int64(0)) { $0.addingSaturated($1) })))</text>\
            <line class="axis" x1="\(left)" y1="\(bottom)" x2="\(width - 8)" y2="\(bottom)"/>\
            <line class="axis" x1="\(left)" y1="20" x2="\(left)" y2="\(bottom)"/>\
            <text x="\(left - 4)" y="24" text-anchor="end">\(top)</text><text x="\(left - 4)" y="\(bottom)" text-anchor="end">0</text>
            """
        for (index, count) in perHour.enumerated() where count > 0 {
            let barHeight = (bottom - 20) * Double(count) / Double(top)
            let hour = from.adding(seconds: Double(index) * 3600)
            svg += """
                <rect class="bar" x="\(TimelineChart.format(left + Double(index) * slot + 1))" \
                y="\(TimelineChart.format(bottom - barHeight))" width="\(TimelineChart.format(max(slot - 2, 1)))" \
                height="\(TimelineChart.format(barHeight))"><title>\(HTML.escape(hour.rfc3339)): \(count)</title></rect>
                """
        }
        svg += """
            <text x="\(left)" y="\(height - 4)">\(HTML.escape(from.rfc3339))</text>\
            <text x="\(width - 8)" y="\(height - 4)" text-anchor="end">now</text></svg>
            """
        return svg
    }
}
