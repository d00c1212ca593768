import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdTesting
import Testing

/// adload as operators run it: a child process against a real campaignd and real edges (also CI's smoke of the tool).
@Suite("adload against real edges", .timeLimit(.minutes(3)))
struct AdloadTests {
    /// Runs adload; its exit status, and the JSON it printed (the text up to the last closing brace).
    static func adload(_ arguments: [String], in directory: URL) async throws -> (status: Int32, json: JSONValue?, output: String) {
        let process = try ChildProcess("adload", arguments, directory: directory)
        let status = await process.exitStatus(timeout: .seconds(90)) ?? -1
        let output = process.log
        var json: JSONValue?
        if let first = output.firstIndex(of: "{"), let last = output.lastIndex(of: "}") {
            json = try? JSONParser.parse(String(output[first...last]))
        }
        return (status, json, output)
    }

    /// Runs `body` with campaignd holding one live campaign for app "shop" (cold starts only, no cap) and an edge that
    /// has it; both are stopped after it, the edge first.
    static func withSystem(_ body: (CampaignFixture, EdgeProcess) async throws -> Void) async throws {
        try await withStopping(CampaignFixture()) { fixture in
            let admin = try fixture.admin()
            let sha = try await fixture.uploadPNG(admin, width: 1179, height: 2556)
            let created = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "load", app: "shop", creative: sha))
            try await withStopping(fixture.startEdge("edge-load")) { edge in
                #expect(await edge.waitFor(seq: created.seq, creatives: 1))
                await admin.close()
                try await body(fixture, edge)
            }
        }
    }

    @Test("a closed loop counts replies, ads and errors by JSON-RPC code; errors make the exit status 3")
    func closedLoop() async throws {
        try await Self.withSystem { fixture, edge in
            let client = edge.endpoints["client"]!
            let common = ["--endpoint", client, "--duration", "1", "--warmup", "0.3", "--connections", "2", "--window", "4",
                          "--devices", "500", "--json", "--quiet"]

            // Cold starts of "shop" devices: every answer carries the campaign's ad.
            var run = try await Self.adload(common + ["--hot-share", "0"], in: fixture.directory)
            #expect(run.status == 0, "\(run.output)")
            var result = try #require(run.json)
            let completed = try #require(result["completed"]?.intValue)
            #expect(completed > 50)
            #expect(result["ok"]?.intValue == completed && result["withAd"]?.intValue == completed)
            #expect(result["errors"]?["timeouts"] == 0 && result["errors"]?["byCode"] == [:])
            #expect((result["latency"]?["samples"]?.intValue ?? 0) > 0 && (result["latency"]?["p50Microseconds"]?.doubleValue ?? 0) > 0)
            #expect(result["mode"] == "closed" && result["connections"] == 2 && result["window"] == 4)

            // Hot starts only: the campaign shows at cold start only, so no answer has an ad.
            run = try await Self.adload(common + ["--hot-share", "1"], in: fixture.directory)
            result = try #require(run.json)
            #expect(run.status == 0 && (result["ok"]?.intValue ?? 0) > 50 && result["withAd"] == 0, "\(run.output)")

            // Half the devices run an app name the edge refuses: those replies are -32602 errors, counted by code.
            run = try await Self.adload(common + ["--apps", "shop,Bad-App"], in: fixture.directory)
            #expect(run.status == 3, "\(run.output)")
            result = try #require(run.json)
            let refused = try #require(result["errors"]?["byCode"]?["-32602"]?.intValue)
            let ok = try #require(result["ok"]?.intValue)
            #expect(refused > 10 && ok > 10 && refused + ok == result["completed"]?.intValue)

            // A realistic mix: reports name campaigns that earlier answers showed, so the edge accepts them all. Each is a
            // launch's: its request, then the impression, or noAd for "news", which has no campaign; app.stats sees both.
            run = try await Self.adload(common + ["--apps", "shop,news", "--mix", "query=70,prefetch=10,report=20", "--hot-share", "0"],
                                        in: fixture.directory)
            #expect(run.status == 0, "\(run.output)")
            let admin = try fixture.admin()
            var shop: AppStatsResult?, news: AppStatsResult?
            #expect(await eventually(timeout: .seconds(15)) {
                shop = try? await admin.call(AdminAPI.appStats, AppStatsParams(app: "shop"))
                news = try? await admin.call(AdminAPI.appStats, AppStatsParams(app: "news"))
                return (shop?.totals.shows ?? 0) > 0 && (news?.totals.requests ?? 0) > 0
            }, "\(String(describing: shop)) \(String(describing: news))")
            #expect(shop?.totals.fillRate == 1 && shop?.totals.showRate == 1 && shop?.totals.requests == shop?.totals.shows)
            #expect(news?.totals.fills == 0 && news?.totals.fillRate == 0 && news?.totals.showRate == nil)
            await admin.close()
            let status = try await edge.status()
            #expect(status.loaded)
        }
    }

    @Test("an open loop sends at the rate asked for; the table output reads for people")
    func openLoop() async throws {
        try await Self.withSystem { fixture, edge in
            let run = try await Self.adload(["--endpoint", edge.endpoints["client"]!, "--rate", "400", "--duration", "1.5",
                                             "--warmup", "0.3", "--quiet", "--json"], in: fixture.directory)
            #expect(run.status == 0, "\(run.output)")
            let result = try #require(run.json)
            let completed = try #require(result["completed"]?.intValue)
            #expect((480...720).contains(completed), "400 req/s for 1.5 s should complete about 600, got \(completed)")
            #expect(result["mode"] == "open" && result["targetRate"] == 400)

            let table = try await Self.adload(["--endpoint", edge.endpoints["client"]!, "--duration", "0.5", "--warmup", "0",
                                               "--connections", "1", "--window", "1"], in: fixture.directory)
            #expect(table.status == 0)
            #expect(table.output.contains("closed loop") && table.output.contains("req/s") && table.output.contains("p99.9") && table.output.contains("errors      none"),
                    "\(table.output)")
        }
    }

    @Test("an endpoint that never answers gives timeouts, exit status 3, and bad flags a one-line reason")
    func failures() async throws {
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let silent = "ipc://\(directory.path)/nobody.sock"
        var run = try await Self.adload(["--endpoint", silent, "--duration", "0.6", "--warmup", "0", "--timeout", "0.2",
                                         "--connections", "1", "--window", "2", "--json", "--quiet"], in: directory)
        #expect(run.status == 3)
        #expect((run.json?["errors"]?["timeouts"]?.intValue ?? 0) >= 2, "\(run.output)")
        #expect(run.output.contains("adload: no replies from \(silent)"))

        run = try await Self.adload(["--endpoint", silent, "--mix", "query=50"], in: directory)
        #expect(run.status != 0 && run.output.contains("--mix: shares add up to 50, not 100"), "\(run.output)")
        run = try await Self.adload(["--endpoint", "localhost:7200"], in: directory)
        #expect(run.status != 0 && run.output.contains("--endpoint: expected tcp://HOST:PORT"), "\(run.output)")
        run = try await Self.adload(["propagation", "--admin", silent], in: directory)
        #expect(run.status != 0 && run.output.contains("--edge: name at least one edge"), "\(run.output)")
        run = try await Self.adload(["propagation", "--admin", silent, "--edge", silent, "--probe-interval=-1"], in: directory)
        #expect(run.status != 0 && run.output.contains("--probe-interval: must be 0 to 1000 milliseconds"), "\(run.output)")
        run = try await Self.adload(["propagation", "--admin", silent, "--edge", silent, "--probe-from", "commit"], in: directory)
        #expect(run.status != 0 && run.output.contains("The value 'commit' is invalid for '--probe-from <probe-from>'")
                    && run.output.contains("'answer' and 'call'"), "\(run.output)")
        run = try await Self.adload(["propagation", "--admin", silent, "--edge", silent, "--probe-over", "udp"], in: directory)
        #expect(run.status != 0 && run.output.contains("The value 'udp' is invalid for '--probe-over <probe-over>'")
                    && run.output.contains("'zmq' and 'http'"), "\(run.output)")
        run = try await Self.adload(["propagation", "--admin", silent, "--edge", silent, "--probe-over", "http"], in: directory)
        #expect(run.status != 0 && run.output.contains("--probe-over: http needs every edge's HTTP address; \(silent) has none"), "\(run.output)")
        run = try await Self.adload(["propagation", "--admin", silent, "--edge", "\(silent) 127.0.0.1:x", "--probe-over", "http"], in: directory)
        #expect(run.status != 0 && run.output.contains("--edge: HTTP address 127.0.0.1:x must be host:port"), "\(run.output)")
        run = try await Self.adload(["propagation", "--admin", silent, "--edge", "\(silent) 127.0.0.1:1", "--probe-over", "http",
                                     "--timeout", "2"], in: directory)
        #expect(run.status != 0 && run.output.contains("edge 127.0.0.1:1: cannot connect: Connection refused"), "\(run.output)")
        run = try await Self.adload(["propagation", "--admin", silent, "--edge", "\(silent) 127.0.0.1:1 extra"], in: directory)
        #expect(run.status != 0 && run.output.contains("--edge: expected a client endpoint and at most an HTTP address"), "\(run.output)")
        run = try await Self.adload(["propagation", "--admin", silent, "--edge", silent, "--probe-over", "udp"], in: directory)
        #expect(run.status != 0 && run.output.contains("The value 'udp' is invalid for '--probe-over"), "\(run.output)")
        run = try await Self.adload(["propagation", "--admin", silent, "--edge", silent, "--probes-in-flight", "0"], in: directory)
        #expect(run.status != 0 && run.output.contains("--probes-in-flight: must be 1...64"), "\(run.output)")
        run = try await Self.adload(["propagation", "--admin", silent, "--edge", silent, "--probes-in-flight", "2", "--probe-interval", "0"],
                                    in: directory)
        #expect(run.status != 0 && run.output.contains("--probes-in-flight: more than 1 needs a --probe-interval above 0"), "\(run.output)")
        run = try await Self.adload(["propagation", "--admin", silent, "--edge", "\(silent) 127.0.0.1:1", "--probe-over", "http",
                                     "--probes-in-flight", "2"], in: directory)
        #expect(run.status != 0 && run.output.contains("--probes-in-flight: more than 1 needs --probe-over zmq"), "\(run.output)")
        run = try await Self.adload(["propagation", "--admin", silent, "--edge", silent, "--spread-first-probes", "--probe-interval", "0"],
                                    in: directory)
        #expect(run.status != 0 && run.output.contains("--spread-first-probes: needs a --probe-interval above 0"), "\(run.output)")
        run = try await Self.adload(["propagation", "--admin", silent, "--edge", silent, "--step-pause", "60001"], in: directory)
        #expect(run.status != 0 && run.output.contains("--step-pause: must be 0 to 60000 milliseconds"), "\(run.output)")
        for sample in ["0", "2"] {
            run = try await Self.adload(["propagation", "--admin", silent, "--edge", silent, "--probe-sample", sample], in: directory)
            #expect(run.status != 0 && run.output.contains("--probe-sample: must be 1 to the number of edges (1)"), "\(run.output)")
        }
    }

    @Test("propagation: force and expire measured on every edge, every round")
    func propagation() async throws {
        try await withStopping(CampaignFixture()) { fixture in
            try await withStopping(fixture.startEdge("edge-p1")) { first in
                try await withStopping(fixture.startEdge("edge-p2")) { second in
                    let run = try await Self.adload(["propagation", "--admin", fixture.endpoints["admin"]!, "--edge", first.endpoints["client"]!,
                                                     "--edge", second.endpoints["client"]!, "--repeats", "3", "--app", "promo", "--probe-interval", "2", "--json"],
                                                    in: fixture.directory)
                    #expect(run.status == 0, "\(run.output)")
                    let result = try #require(run.json)
                    #expect(result["edges"] == 2 && result["probedEdges"] == 2 && result["repeats"] == 3 && result["app"] == "promo" && result["probeIntervalSeconds"] == 0.002)
                    #expect(result["probeFrom"] == "answer" && result["beforeAdminAnswer"] == 0 && result["probesInFlight"] == 1)
                    #expect(result["force"]?["samples"] == 6 && result["expire"]?["samples"] == 6 && result["admin"]?["samples"] == 6)
                    let p99 = try #require(result["all"]?["p99Milliseconds"]?.doubleValue)
                    #expect(p99 >= 0 && p99 < 5_000)
                    #expect(result["worstByEdge"]?.objectValue?.count == 2)
                    // When each edge applied each step, from its edge.status: every step known, and none later than a probe saw it
                    // (the same clock; the edge's readings are to the millisecond).
                    #expect(result["forceApplied"]?["samples"] == 6 && result["expireApplied"]?["samples"] == 6 && result["appliedUnknown"] == 0)
                    // And each reading within what the edge's probes tell: after the last probe answered without the change was
                    // sent, before the first answered with it came back.
                    #expect(result["appliedChecked"] == 12 && result["appliedOutsideProbes"] == [], "\(result["appliedOutsideProbes"] ?? .null)")
                    #expect(result["firstProbes"]?["samples"] == 6)
                    for step in ["force", "expire"] {
                        let applied = try #require(result["\(step)Applied"]?["maxMilliseconds"]?.doubleValue)
                        let seen = try #require(result[step]?["maxMilliseconds"]?.doubleValue)
                        #expect(applied >= 0 && applied <= seen + 1, "\(step): applied at \(applied) ms, seen by \(seen) ms")
                    }
                    // Each force and expire in order, with its admin answer and its slowest edge no sooner than its median one.
                    let rounds = try #require(result["rounds"]?.arrayValue)
                    #expect(rounds.compactMap { $0["step"]?.stringValue } == ["force", "expire", "force", "expire", "force", "expire"])
                    #expect(rounds.compactMap { $0["round"]?.intValue } == [1, 1, 2, 2, 3, 3])
                    #expect(rounds.allSatisfy { round in
                        guard let admin = round["adminMilliseconds"]?.doubleValue, let p50 = round["p50Milliseconds"]?.doubleValue,
                              let last = round["maxMilliseconds"]?.doubleValue else { return false }
                        return admin > 0 && p50 >= 0 && last >= p50
                    }, "\(rounds)")

                    // Probes from the call: the same measure, its rounds all there.
                    let fromCall = try await Self.adload(["propagation", "--admin", fixture.endpoints["admin"]!, "--edge", first.endpoints["client"]!,
                                                          "--repeats", "1", "--app", "promo", "--probe-from", "call", "--json"], in: fixture.directory)
                    #expect(fromCall.status == 0, "\(fromCall.output)")
                    #expect(fromCall.json?["probeFrom"] == "call" && fromCall.json?["force"]?["samples"] == 1 && fromCall.json?["expire"]?["samples"] == 1)

                    // Probes every 2 ms whatever came back, up to 4 in flight an edge: every step measured, and each applied time
                    // within what the probes tell.
                    let open = try await Self.adload(["propagation", "--admin", fixture.endpoints["admin"]!, "--edge", first.endpoints["client"]!,
                                                      "--edge", second.endpoints["client"]!, "--repeats", "2", "--app", "promo", "--probe-interval", "2",
                                                      "--probes-in-flight", "4", "--json"], in: fixture.directory)
                    #expect(open.status == 0, "\(open.output)")
                    #expect(open.json?["probesInFlight"] == 4 && open.json?["force"]?["samples"] == 4 && open.json?["expire"]?["samples"] == 4)
                    #expect(open.json?["appliedChecked"] == 8 && open.json?["appliedOutsideProbes"] == [], "\(open.output)")

                    // The first probes of a step spread over the interval: the second edge's first one leaves half an interval in.
                    let spread = try await Self.adload(["propagation", "--admin", fixture.endpoints["admin"]!, "--edge", first.endpoints["client"]!,
                                                        "--edge", second.endpoints["client"]!, "--repeats", "1", "--app", "promo", "--probe-interval", "20",
                                                        "--spread-first-probes", "--json"], in: fixture.directory)
                    #expect(spread.status == 0, "\(spread.output)")
                    #expect(spread.json?["spreadFirstProbes"] == true && spread.json?["force"]?["samples"] == 2 && spread.json?["expire"]?["samples"] == 2)
                    let lastFirst = try #require(spread.json?["firstProbes"]?["p50Milliseconds"]?.doubleValue)
                    #expect(lastFirst >= 10 && lastFirst < 1_000, "the last edge's first probe left \(lastFirst) ms after the first")
                    #expect(result["spreadFirstProbes"] == false)

                    // A pause before each force and expire: the probe campaign's log shows each step 300 ms or more after the one
                    // before it (without the pause, the force follows the create as soon as both edges applied it).
                    let paused = try await Self.adload(["propagation", "--admin", fixture.endpoints["admin"]!, "--edge", first.endpoints["client"]!,
                                                        "--repeats", "1", "--app", "paused", "--step-pause", "300", "--json"], in: fixture.directory)
                    #expect(paused.status == 0, "\(paused.output)")
                    #expect(paused.json?["stepPauseSeconds"] == 0.3 && paused.json?["force"]?["samples"] == 1 && paused.json?["expire"]?["samples"] == 1)
                    #expect(result["stepPauseSeconds"] == 0)
                    let pausedAdmin = try fixture.admin()
                    let probe = try #require(try await pausedAdmin.call(AdminAPI.campaignList, CampaignListParams(app: "paused")).campaigns
                        .first { $0.name == "adload probe 1" })
                    let log = try await pausedAdmin.call(AdminAPI.changeList, ChangeListParams(id: probe.id)).changes
                    await pausedAdmin.close()
                    #expect(log.map(\.op) == [.created, .forced, .expired], "\(log)")
                    for (before, after) in zip(log, log.dropFirst()) {
                        #expect(before.at.seconds(until: after.at) >= 0.3, "\(after.op) \(before.at.seconds(until: after.at)) s after \(before.op)")
                    }

                    // Probes to a sample of one edge of the two: the seen rows are that edge's, the applied rows both edges', and
                    // only the probed edge's readings are set against probes.
                    let sampled = try await Self.adload(["propagation", "--admin", fixture.endpoints["admin"]!, "--edge", first.endpoints["client"]!,
                                                         "--edge", second.endpoints["client"]!, "--repeats", "2", "--app", "sampled",
                                                         "--probe-interval", "2", "--probe-sample", "1", "--json"], in: fixture.directory)
                    #expect(sampled.status == 0, "\(sampled.output)")
                    let sample = try #require(sampled.json)
                    #expect(sample["edges"] == 2 && sample["probedEdges"] == 1 && sample["worstByEdge"]?.objectValue?.count == 1)
                    #expect(sample["force"]?["samples"] == 2 && sample["expire"]?["samples"] == 2)
                    #expect(sample["forceApplied"]?["samples"] == 4 && sample["expireApplied"]?["samples"] == 4 && sample["appliedUnknown"] == 0)
                    #expect(sample["appliedChecked"] == 4 && sample["appliedOutsideProbes"] == [], "\(sampled.output)")

                    // Probes over HTTP, as apps call the edge: each edge named with its HTTP address, every step measured.
                    let overHTTP = try await Self.adload(["propagation", "--admin", fixture.endpoints["admin"]!,
                                                          "--edge", "\(first.endpoints["client"]!) \(first.endpoints["http"]!)",
                                                          "--edge", "\(second.endpoints["client"]!) \(second.endpoints["http"]!)",
                                                          "--repeats", "2", "--app", "promo", "--probe-over", "http", "--json"], in: fixture.directory)
                    #expect(overHTTP.status == 0, "\(overHTTP.output)")
                    #expect(overHTTP.json?["probeOver"] == "http" && overHTTP.json?["force"]?["samples"] == 4 && overHTTP.json?["expire"]?["samples"] == 4)
                    #expect(result["probeOver"] == "zmq")
                    // The probes went to each edge's /rpc: both count POSTs answered there.
                    for edge in [first, second] {
                        let metrics = try await edge.metrics()
                        let count = metrics.value("launchad_deliveryd_http_requests_total", labels: [#"route="rpc""#, #"status="200""#])
                        #expect((count ?? 0) >= 4, "\(metrics.lines(containing: "launchad_deliveryd_http_requests_total"))")
                    }

                    // Every probe campaign was expired, and the baseline too once the run ended: nothing is left showing.
                    for edge in [first, second] {
                        #expect(await eventually(timeout: .seconds(10)) {
                            (try? await edge.query(LaunchQueryParams(app: "promo", platform: "ios", appVersion: "1.0.0", deviceId: "x")))?.hasAd == false
                        })
                    }
                    let admin = try fixture.admin()
                    let campaigns = try await admin.call(AdminAPI.campaignList, CampaignListParams(app: "promo"))
                    #expect(campaigns.campaigns.count == 14 && campaigns.campaigns.allSatisfy { $0.state == .expired })
                    await admin.close()
                }
            }
        }
    }
}
