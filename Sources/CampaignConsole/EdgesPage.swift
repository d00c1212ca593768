import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain

/// The edges page: each edge's applied `seq`, its lag behind campaignd, when it was last heard from, whether it is
/// stale, its region and the relay it is behind; the rows come again live (Server-Sent Events).
enum EdgesPage {
    static func body(_ rows: EdgeListResult, now: Timestamp) -> String {
        """
        <p id="edges-status">\(HTML.escape(status(rows)))</p>
        <table id="edges" data-stream="/events/edges"><thead><tr><th>edge</th><th>region</th><th>via</th><th>applied seq</th>\
        <th>lag</th><th>last seen</th><th>state</th></tr></thead><tbody>\(self.rows(rows, now: now))</tbody></table>
        """
    }

    static func status(_ rows: EdgeListResult) -> String {
        let caughtUp = rows.edges.filter { !$0.stale && $0.appliedSeq >= rows.seq && $0.epoch == rows.epoch }.count
        return "campaignd is at seq \(rows.seq); \(caughtUp) of \(rows.edges.count) edges have applied it."
    }

    static func rows(_ rows: EdgeListResult, now: Timestamp) -> String {
        guard !rows.edges.isEmpty else { return "<tr><td colspan=\"7\">No edge has reported yet.</td></tr>" }
        return rows.edges.map { edge in
            let lag = rows.seq - edge.appliedSeq
            let seen = max(0, edge.lastSeen.seconds(until: now))
            let state = edge.stale ? "<span class=\"stale\">stale</span>" : (lag <= 0 ? "<span class=\"reached\">current</span>" : "<span class=\"waiting\">behind</span>")
            return """
                <tr data-edge="\(HTML.escape(edge.edgeId))" data-seq="\(edge.appliedSeq)"><td>\(HTML.escape(edge.edgeId))</td>\
                <td>\(HTML.escape(edge.region))</td><td>\(HTML.escape(path(edge)))</td><td class="applied">\(edge.appliedSeq)</td>\
                <td>\(lag) changes</td><td>\(String(format: "%.1f", seen)) s ago</td><td>\(state)</td></tr>
                """
        }.joined()
    }

    /// The relays an edge is behind, the one nearest campaignd first, or `direct`.
    static func path(_ edge: EdgeInfo) -> String {
        edge.via?.joined(separator: " → ") ?? "direct"
    }

    /// The rows and status as one Server-Sent Event's data.
    static func event(_ rows: EdgeListResult, now: Timestamp) -> String {
        let object: JSONValue = ["rows": .string(self.rows(rows, now: now)), "status": .string(status(rows))]
        return String(decoding: object.jsonBytes, as: UTF8.self)
    }
}
