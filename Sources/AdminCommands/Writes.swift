import JSONRPC
import LaunchAdAPI
import ZMQRPC

/// Shared by the write commands: send, print, and wait for the edges.
enum Writes {
    static func finish(_ result: CampaignChangeResult, connection: ConnectionOptions, options: WriteOptions, client: RPCClient,
                       verb: String, started: ContinuousClock.Instant) async throws {
        var report: [JSONValue] = []
        var failed: [String] = []
        if options.wait {
            (report, failed) = try await waitForEdges(seq: result.seq, client: client, timeout: options.waitTimeout, started: started)
        }
        if connection.json {
            var object: JSONObject = ["campaign": try JSONValueEncoder().encode(result.campaign), "seq": .number(JSONNumber(result.seq))]
            if options.wait { object["edges"] = .array(report) }
            print(JSONValue.object(object).jsonText)
        } else {
            print("campaign \(result.campaign.id) \(verb) (seq \(result.seq)), now \(result.campaign.state.rawValue)")
            if options.wait {
                Table.print(["EDGE", "REGION", "APPLIED", "TOOK"], report.map { edge in
                    [edge["edgeId"]?.stringValue ?? "", edge["region"]?.stringValue ?? "", edge["appliedSeq"]?.description ?? "",
                     edge["tookMs"].map { "\($0.description) ms" } ?? "not in time"]
                })
            }
        }
        if !failed.isEmpty {
            throw CommandFailure("\(failed.count) edge(s) did not apply seq \(result.seq) within \(options.waitTimeout) s: \(failed.joined(separator: ", "))")
        }
    }

    /// Polls `edge.list` until every edge that is not stale has applied `seq`; how long each took from `started`.
    static func waitForEdges(seq: Int64, client: RPCClient, timeout: Double, started: ContinuousClock.Instant) async throws -> ([JSONValue], [String]) {
        var took: [String: Int] = [:]
        var last: [EdgeInfo] = []
        let deadline = started + .milliseconds(Int(timeout * 1000))
        while ContinuousClock.now < deadline {
            let list = try await client.call(AdminAPI.edgeList, NoParams())
            last = list.edges.filter { !$0.stale }
            let elapsed = Int((ContinuousClock.now - started) / .milliseconds(1))
            for edge in last where edge.appliedSeq >= seq && took[edge.edgeId] == nil { took[edge.edgeId] = elapsed }
            if last.allSatisfy({ took[$0.edgeId] != nil }) { break }
            try await Task.sleep(for: .milliseconds(5))
        }
        let report: [JSONValue] = last.map { edge in
            var object: JSONObject = ["edgeId": .string(edge.edgeId), "region": .string(edge.region), "appliedSeq": .number(JSONNumber(edge.appliedSeq))]
            if let ms = took[edge.edgeId] { object["tookMs"] = .number(JSONNumber(ms)) }
            return .object(object)
        }
        return (report, last.filter { took[$0.edgeId] == nil }.map(\.edgeId))
    }
}
