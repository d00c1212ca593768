import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain

/// The page a write from the console leads to: its change spreading to the edges, one by one, with the time each
/// took; the rows come again live (Server-Sent Events) until every edge has it.
enum SpreadPage {
    static func body(_ spread: SpreadTracker.Spread, rows: EdgeListResult) -> String {
        """
        <p>Change seq \(spread.seq): \(HTML.escape(spread.operation)) of <a href="/campaigns/\(spread.campaign)">campaign \(spread.campaign)</a> \
        by \(HTML.escape(spread.actor)) at \(spread.started.rfc3339).</p>
        <p id="spread-status">\(HTML.escape(status(spread, rows: rows)))</p>
        <table id="spread" data-stream="/events/changes/\(spread.seq)"><thead><tr><th>edge</th><th>region</th><th>via</th>\
        <th>applied seq</th><th>has the change</th></tr></thead><tbody>\(self.rows(spread, rows: rows))</tbody></table>
        """
    }

    static func status(_ spread: SpreadTracker.Spread, rows: EdgeListResult) -> String {
        let reached = rows.edges.filter { spread.reached[$0.edgeId] != nil }.count
        let last = spread.reached.values.max().map { String(format: "%.3f", $0) }
        return "\(reached) of \(rows.edges.count) edges have applied seq \(spread.seq)" + (last.map { "; the last after \($0) s." } ?? ".")
            + (spread.done ? "" : " Watching…")
    }

    static func rows(_ spread: SpreadTracker.Spread, rows: EdgeListResult) -> String {
        guard !rows.edges.isEmpty else { return "<tr><td colspan=\"5\">No edge is known.</td></tr>" }
        let ordered = rows.edges.sorted { (spread.reached[$0.edgeId] ?? .infinity, $0.edgeId) < (spread.reached[$1.edgeId] ?? .infinity, $1.edgeId) }
        return ordered.map { edge in
            let cell: String
            if let seconds = spread.reached[edge.edgeId] {
                cell = "<span class=\"reached\">after \(String(format: "%.3f", seconds)) s</span>"
            } else if edge.stale {
                cell = "<span class=\"stale\">stale: not yet</span>"
            } else {
                cell = "<span class=\"waiting\">not yet</span>"
            }
            return """
                <tr data-edge="\(HTML.escape(edge.edgeId))" data-seq="\(edge.appliedSeq)"><td>\(HTML.escape(edge.edgeId))</td>\
                <td>\(HTML.escape(edge.region))</td><td>\(HTML.escape(EdgesPage.path(edge)))</td><td class="applied">\(edge.appliedSeq)</td><td>\(cell)</td></tr>
                """
        }.joined()
    }

    static func event(_ spread: SpreadTracker.Spread, rows: EdgeListResult) -> String {
        let object: JSONValue = ["rows": .string(self.rows(spread, rows: rows)), "status": .string(status(spread, rows: rows))]
        return String(decoding: object.jsonBytes, as: UTF8.self)
    }
}
