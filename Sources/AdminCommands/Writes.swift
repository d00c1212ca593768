import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import ZMQRPC

/// Shared by the write commands: send, print, and wait for the edges.
enum Writes {
    /// A dry run's check of the campaign as it would be stored against its app's market's rules, with the app's market
    /// asked of campaignd, as campaignd checks them on create, update, resume and force.
    static func checkMarket(_ campaign: Campaign, client: RPCClient) async throws {
        let market = try await client.call(AdminAPI.appGet, AppParams(app: campaign.app)).app.market
        do throws(MarketRefusal) { try MarketRules.check(campaign, in: market) } catch { throw CommandFailure(error.description) }
    }

    static func finish(_ result: CampaignChangeResult, connection: ConnectionOptions, options: WriteOptions, client: RPCClient,
                       verb: String, started: ContinuousClock.Instant) async throws {
        var report = EdgeWait.Report(edges: [])
        if options.wait {
            let wait = EdgeWait(seq: result.seq, changedAt: result.campaign.updatedAt, timeout: .milliseconds(Int(options.waitTimeout * 1000)),
                                started: started)
            report = try await wait.run { try await client.call(AdminAPI.edgeList, NoParams()) }
        }
        if connection.json {
            var object: JSONObject = ["campaign": try JSONValueEncoder().encode(result.campaign), "seq": .number(JSONNumber(result.seq))]
            if options.wait {
                object["edges"] = .array(report.edges.map { edge, outcome in
                    var item: JSONObject = ["edgeId": .string(edge.edgeId), "region": .string(edge.region),
                                            "appliedSeq": .number(JSONNumber(edge.appliedSeq)), "status": .string(outcome.name),
                                            "lastSeen": .string(edge.lastSeen.rfc3339)]
                    if case .applied(let ms) = outcome { item["tookMs"] = .number(JSONNumber(ms)) }
                    return .object(item)
                })
            }
            print(JSONValue.object(object).jsonText)
        } else {
            print("campaign \(result.campaign.id) \(verb) (seq \(result.seq)), now \(result.campaign.state.rawValue)")
            if options.wait && !report.edges.isEmpty {
                Table.print(["EDGE", "REGION", "APPLIED", "TOOK"], report.edges.map { edge, outcome in
                    [edge.edgeId, edge.region, String(edge.appliedSeq), EdgeWait.detail(edge, outcome)]
                })
            }
        }
        guard options.wait else { return }
        if report.edges.isEmpty && !options.allowNoEdges {
            throw CommandFailure("no edges known: nothing shows that seq \(result.seq) reached any edge (--allow-no-edges accepts that)")
        }
        let failed = report.notApplied
        if !failed.isEmpty {
            throw CommandFailure("\(failed.count) of \(report.edges.count) edge(s) did not apply seq \(result.seq) within \(options.waitTimeout) s: "
                                 + failed.map { "\($0.edge.edgeId) (\(EdgeWait.detail($0.edge, $0.outcome)))" }.joined(separator: ", "))
        }
    }
}
