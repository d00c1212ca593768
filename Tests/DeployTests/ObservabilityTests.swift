import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdTesting
import Testing
import ZMQRPC
import ZeroMQ

/// The metrics and logs of a running campaignd and edge, as an operator's Prometheus, Grafana and log search see
/// them. One test at a time: each starts its own campaignd and edge.
@Suite("Observability", .serialized, .timeLimit(.minutes(3)))
struct ObservabilityTests {
    /// campaignd and one edge, in process, that have applied a live campaign and answered queries (one of them
    /// refused), so every series the services can show exists; their /metrics pages, by service.
    static func scrapeBusySystem(_ body: ([String: [String: MetricFamily]]) async throws -> Void) async throws {
        try await withCampaignService { fixture in
            try await withEdge("edge-obs", connectedTo: fixture) { edge in
                try await body(try await makeBusy(fixture, edge))
            }
        }
    }

    /// The same with campaignd and the edge as processes, started with `campaigndArguments` and `edgeArguments`.
    static func scrapeBusyProcesses(campaigndArguments: [String] = [], edgeArguments: [String] = [],
                                    _ body: (CampaignFixture, EdgeProcess, [String: [String: MetricFamily]]) async throws -> Void) async throws {
        try await withStopping(CampaignFixture(arguments: campaigndArguments)) { fixture in
            try await withStopping(fixture.startEdge("edge-obs", arguments: edgeArguments)) { edge in
                try await body(fixture, edge, try await makeBusy(fixture, edge))
            }
        }
    }

    /// A live campaign applied and queries answered; the /metrics pages of campaignd and the edge.
    static func makeBusy(_ fixture: some CampaignServiceEndpoints, _ edge: EdgeClient) async throws -> [String: [String: MetricFamily]] {
        let admin = try fixture.admin()
        let creative = try await fixture.uploadPNG(admin)
        let created = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(creative: creative))
        #expect(await edge.waitFor(seq: created.seq, creatives: 1))
        #expect(try await edge.query().hasAd)
        _ = try? await edge.client.call(ClientAPI.launchQuery, LaunchQueryParams(app: "", platform: "ios", appVersion: "5.2.0"))
        _ = try await edge.status()

        var pages: [String: [String: MetricFamily]] = [:]
        for (service, address) in [("campaignd", fixture.endpoints["http"]), ("deliveryd", edge.endpoints["http"])] {
            let (status, body) = try await httpGet(try #require(address), "/metrics")
            #expect(status == 200)
            pages[service] = metricFamilies(body)
        }
        await admin.close()
        return pages
    }

    @Test("metric names follow launchad_<subsystem>_<name>_<unit>: counters end in _total, histograms in a base unit, each with help")
    func metricNames() async throws {
        try await Self.scrapeBusySystem { pages in
            for (service, families) in pages {
                #expect(families.count >= (service == "campaignd" ? 6 : 15), "\(service): \(families.keys.sorted())")
                for family in families.values {
                    let name = family.name
                    let pattern = "^launchad_\(service)_[a-z][a-z0-9]*(_[a-z0-9]+)*$"
                    #expect(name.range(of: pattern, options: .regularExpression) != nil, "\(name) does not read launchad_\(service)_<name>")
                    #expect((family.type == "counter") == name.hasSuffix("_total"), "\(name) is a \(family.type): only counters end in _total")
                    if family.type == "histogram" {
                        #expect(name.hasSuffix("_seconds") || name.hasSuffix("_bytes"), "histogram \(name) has no base unit")
                    }
                    for unit in ["_milliseconds", "_ms", "_micros", "_kb", "_mb", "_percent"] {
                        #expect(!name.hasSuffix(unit) && !name.contains("\(unit)_"), "\(name) is not in a base unit")
                    }
                    #expect(family.hasHelp, "\(name) has no HELP")
                    #expect(family.samples > 0, "\(name) has no sample")
                }
            }
            // What DESIGN and the service issues ask for, by the names the dashboard uses.
            let deliveryd = pages["deliveryd"] ?? [:]
            for (name, type) in [("launchad_deliveryd_queries_total", "counter"), ("launchad_deliveryd_request_duration_seconds", "histogram"),
                                 ("launchad_deliveryd_requests_total", "counter"), ("launchad_deliveryd_applied_seq", "gauge"),
                                 ("launchad_deliveryd_lag_changes", "gauge"), ("launchad_deliveryd_creative_cache_bytes", "gauge"),
                                 ("launchad_deliveryd_creative_cache_hit_ratio", "gauge"), ("launchad_deliveryd_resyncs_total", "counter"),
                                 ("launchad_deliveryd_stale", "gauge")] {
                #expect(deliveryd[name]?.type == type, "deliveryd: \(name) should be a \(type)")
            }
            let campaignd = pages["campaignd"] ?? [:]
            for (name, type) in [("launchad_campaignd_requests_total", "counter"), ("launchad_campaignd_request_duration_seconds", "histogram"),
                                 ("launchad_campaignd_seq", "gauge"), ("launchad_campaignd_edges", "gauge"),
                                 ("launchad_campaignd_campaigns", "gauge"), ("launchad_campaignd_updates_published_total", "counter")] {
                #expect(campaignd[name]?.type == type, "campaignd: \(name) should be a \(type)")
            }
            // The refused query is counted under its code; the answered one with an ad under its result.
            #expect(deliveryd["launchad_deliveryd_requests_total"]?.labelNames == ["method", "code"])
            #expect(deliveryd["launchad_deliveryd_queries_total"]?.labelNames == ["result"])
        }
    }

    @Test("every metric and label the Grafana dashboard queries is exported by a running campaignd or deliveryd")
    func dashboardQueriesExist() async throws {
        let data = try Data(contentsOf: Repository.deploy.appendingPathComponent("grafana/launchad.json"))
        let dashboard = try JSONParser.parse([UInt8](data))
        let panels = try #require(dashboard["panels"]?.arrayValue)
        var expressions: [String] = []
        var ids: Set<Int> = []
        for panel in panels {
            let id = try #require(panel["id"]?.intValue)
            #expect(ids.insert(id).inserted, "panel id \(id) used twice")
            #expect(panel["gridPos"]?["w"]?.intValue != nil)
            if panel["type"]?.stringValue == "row" { continue }
            let targets = panel["targets"]?.arrayValue ?? []
            #expect(!targets.isEmpty, "panel \(panel["title"]?.stringValue ?? "?") has no query")
            expressions += targets.compactMap { $0["expr"]?.stringValue }
        }
        for variable in dashboard["templating"]?["list"]?.arrayValue ?? [] {
            if let query = variable["query"]?.stringValue, query.contains("launchad_") { expressions.append(query) }
        }
        #expect(expressions.count >= 20)

        try await Self.scrapeBusySystem { pages in
            var exported: [String: MetricFamily] = [:]
            for families in pages.values { exported.merge(families) { first, _ in first } }
            // Labels Prometheus adds when it scrapes, and the histogram's bucket label.
            let added: Set<String> = ["instance", "job", "le"]
            for expression in expressions {
                var families: [MetricFamily] = []
                for name in Set(matches(of: #"launchad_[a-z0-9_]+"#, in: expression)) {
                    let family = exported[name] ?? ["_bucket", "_sum", "_count"].compactMap { suffix -> MetricFamily? in
                        guard name.hasSuffix(suffix), let base = exported[String(name.dropLast(suffix.count))], base.type == "histogram" else { return nil }
                        return base
                    }.first
                    guard let family else {
                        Issue.record("the dashboard queries \(name), which no service exports: \(expression)")
                        continue
                    }
                    families.append(family)
                    // Matchers on this metric: `name{key="value", other!="x"}`.
                    let selector = #"\#(name)\{([^}]*)\}"#
                    for matchers in matches(of: selector, in: expression, group: 1) {
                        for key in matches(of: #"([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)"#, in: matchers, group: 1) where !added.contains(key) {
                            #expect(family.labelNames.contains(key), "\(name) has no label \(key): \(expression)")
                        }
                    }
                }
                // `by (...)` and label_values(..., label) must name labels the metrics carry.
                let grouped = matches(of: #"by \(([^)]*)\)"#, in: expression, group: 1)
                    .flatMap { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
                for label in grouped where !added.contains(label) {
                    #expect(families.contains { $0.labelNames.contains(label) }, "no queried metric has the label \(label): \(expression)")
                }
            }
        }
    }

    @Test("logs with --log-format json: one JSON object a line; request, campaign and edge ids as fields where those events happen")
    func jsonLogs() async throws {
        // The edge at --log-level debug, to see the line of each change it applies; campaignd at the default, info.
        try await Self.scrapeBusyProcesses(campaigndArguments: ["--log-format", "json"],
                                           edgeArguments: ["--log-format", "json", "--log-level", "debug"]) { fixture, edge, _ in
            let admin = try fixture.admin()
            let creative = try await fixture.uploadPNG(admin, seed: 7)
            // A string id, to see it in the log as the client sent it.
            let peer = try TestPeer(fixture.context, type: .req, endpoint: try #require(fixture.endpoints["admin"]))
            let answer = try await peer.request(#"{"jsonrpc":"2.0","id":"req-force-42","method":"campaign.force","params":{"id":1}}"#)
            #expect(answer?["result"]?["seq"] == 2, "\(String(describing: answer))")
            #expect(await edge.waitFor(seq: 2))
            await admin.close()

            func lines(_ process: ChildProcess) -> [JSONValue] {
                // Complete lines only: the last may still be being written.
                let log = process.log
                let complete = log.hasSuffix("\n") ? log : String(log[..<(log.lastIndex(of: "\n") ?? log.startIndex)])
                return complete.split(separator: "\n").map { line in
                    (try? JSONParser.parse(Array(line.utf8))) ?? .null
                }
            }
            func find(_ process: ChildProcess, _ message: String, where matches: @escaping (JSONValue) -> Bool = { _ in true }) async -> JSONValue? {
                var found: JSONValue?
                _ = await eventually(timeout: .seconds(5)) {
                    found = lines(process).first { $0["message"]?.stringValue == message && matches($0) }
                    return found != nil
                }
                return found
            }

            let forced = await find(fixture.process, "campaign changed") { $0["op"]?.stringValue == "forced" }
            #expect(forced?["request_id"]?.stringValue == "req-force-42", "\(fixture.process.log)")
            #expect(forced?["campaign_id"]?.stringValue == "1" && forced?["seq"]?.stringValue == "2")
            #expect(forced?["actor"]?.stringValue == "local")
            let created = await find(fixture.process, "campaign changed") { $0["op"]?.stringValue == "created" }
            #expect(created?["request_id"]?.stringValue != nil && created?["request_id"]?.stringValue != "none")
            let stored = await find(fixture.process, "creative stored") { $0["sha256"]?.stringValue == creative }
            #expect(stored?["request_id"] != nil)
            let joined = await find(fixture.process, "edge joined")
            #expect(joined?["edge_id"]?.stringValue == "edge-obs", "\(fixture.process.log)")

            let applied = await find(edge.process, "applied a change") { $0["op"]?.stringValue == "forced" }
            #expect(applied?["campaign_id"]?.stringValue == "1" && applied?["seq"]?.stringValue == "2", "\(edge.process.log)")
            #expect(applied?["level"]?.stringValue == "debug")
            #expect(!lines(fixture.process).contains { $0["level"]?.stringValue == "debug" }, "campaignd logged below info by default")

            for (process, expectedEdge) in [(fixture.process, nil), (edge.process, "edge-obs")] as [(ChildProcess, String?)] {
                let all = lines(process)
                #expect(all.count >= 3)
                for line in all {
                    #expect(line["time"]?.stringValue != nil && line["level"]?.stringValue != nil && line["message"]?.stringValue != nil,
                            "\(process.name) wrote a line that is not a JSON log event: \(line)")
                    if let expectedEdge {
                        #expect(line["edge_id"]?.stringValue == expectedEdge, "an edge's line without its edge_id: \(line)")
                    }
                }
            }
        }
    }

    @Test("--log-level takes swift-log's levels only: each service refuses another word, from the flag or the environment")
    func logLevelRefused() async throws {
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let folder = directory.appendingPathComponent("data").path
        let programs: [(name: String, prefix: String, base: [String])] = [
            ("campaignd", "CAMPAIGND", ["--data-dir", folder]), ("deliveryd", "DELIVERYD", ["--cache-dir", folder]),
            ("relayd", "RELAYD", ["--cache-dir", folder]),
        ]
        for program in programs {
            try await ChildProcess.expectRefused(program.name, program.base,
                                                 [(["--log-level", "loud"], [:]), ([], ["\(program.prefix)_LOG_LEVEL": "Debug"])],
                                                 message: "--log-level must be trace, debug, info, notice, warning, error or critical",
                                                 directory: directory)
        }
    }
}
