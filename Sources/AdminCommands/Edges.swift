import ArgumentParser
import JSONRPC
import LaunchAdAPI

/// `adctl edges`
struct Edges: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Every edge: region, applied seq, lag, last seen, stale, the relays it is behind.",
                                                    discussion: "Example:\n  adctl edges")
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        try await connection.run { client in
            let list = try await client.call(AdminAPI.edgeList, NoParams())
            if connection.json {
                print(try JSONValueEncoder().encode(list).jsonText)
                return
            }
            // VIA: the relays an edge is behind, the one nearest campaignd first; empty for one that speaks to campaignd.
            Table.print(["EDGE", "REGION", "APPLIED", "LAG", "LAST SEEN", "STALE", "VIA"], list.edges.map { edge in
                [edge.edgeId, edge.region, String(edge.appliedSeq), String(max(0, list.seq - edge.appliedSeq)), edge.lastSeen.rfc3339,
                 edge.stale ? "stale" : "", (edge.via ?? []).joined(separator: " > ")]
            })
        }
    }
}
