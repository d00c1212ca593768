import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdTesting
import Testing
import ZMQRPC

@Suite("adctl against a real campaignd and edge", .timeLimit(.minutes(3)))
struct AdctlTests {
    /// Runs adctl; its exit status and what it printed.
    static func adctl(_ arguments: [String], in directory: URL) async throws -> (Int32, String) {
        let process = try ChildProcess("adctl", arguments, directory: directory)
        let status = await process.exitStatus(timeout: .seconds(60)) ?? -1
        return (status, process.log)
    }

    @Test("an operator session: upload, create, list, get, force --wait, explain, expire --wait, edges, stats by hour, history")
    func session() async throws {
        try await withStopping(CampaignFixture()) { fixture in
            try await withStopping(fixture.startEdge("edge-ops")) { edge in
                // `--wait` fails at once while campaignd knows no edge, and it knows one from the edge's first save.
                #expect(await fixture.waitUntilListed(["edge-ops"]))
                let admin = fixture.endpoints["admin"]!
                let directory = fixture.directory
                let png = directory.appendingPathComponent("splash.bin")  // the type comes from the bytes, not the name
                try Data(CampaignFixture.png(width: 1179, height: 2556)).write(to: png)

                var (status, output) = try await Self.adctl(["--endpoint", admin, "--json", "creative", "upload", png.path], in: directory)
                #expect(status == 0, "\(output)")
                let sha = try #require(try JSONParser.parse(output.trimmingCharacters(in: .whitespacesAndNewlines))["sha256"]?.stringValue)
                // An animation says how long it plays; a QuickTime movie is named and refused before it is sent.
                let gif = directory.appendingPathComponent("splash.gif"), movie = directory.appendingPathComponent("splash.mov")
                try Data(MediaBytes.gif(width: 1179, height: 2556, delays: [40, 40, 70])).write(to: gif)
                try Data(MediaBytes.isoMedia(brand: "qt  ", compatible: ["qt  "], duration: 3_000,
                                             tracks: [MediaBytes.Track(width: 1080, height: 1920, timescale: 600, duration: 1_800)])).write(to: movie)
                (status, output) = try await Self.adctl(["--endpoint", admin, "creative", "upload", gif.path], in: directory)
                #expect(status == 0 && output.contains("type    image/gif") && output.contains("length  1500 ms"), "\(output)")
                (status, output) = try await Self.adctl(["--endpoint", admin, "creative", "upload", movie.path], in: directory)
                #expect(status != 0 && output.contains("a QuickTime movie (brand qt), not an MP4"), "\(output)")

                (status, output) = try await Self.adctl(["--endpoint", admin, "campaign", "create", "--name", "Double 12", "--app", "shop",
                                                         "--starts", "now", "--ends", "+2h", "--creative", "\(sha):3", "--priority", "60",
                                                         "--jump-url", "https://shop.example.com/1212", "--platforms", "ios,android",
                                                         "--cap", "3/24", "--wait"], in: directory)
                #expect(status == 0, "\(output)")
                #expect(output.contains("campaign 1 created (seq 1), now live"))
                #expect(output.contains("edge-ops"))

                (status, output) = try await Self.adctl(["--endpoint", admin, "campaign", "list", "--app", "shop"], in: directory)
                #expect(status == 0 && output.contains("Double 12") && output.contains("live") && output.hasPrefix("ID"))

                (status, output) = try await Self.adctl(["--endpoint", admin, "--json", "campaign", "get", "1"], in: directory)
                let got = try JSONParser.parse(output.trimmingCharacters(in: .whitespacesAndNewlines))
                #expect(got["campaign"]?["id"] == 1 && got["campaign"]?["frequencyCap"] == ["shows": 3, "hours": 24])
                #expect(got["campaign"]?["creatives"] == [["sha256": .string(sha), "weight": 3]])

                (status, output) = try await Self.adctl(["--endpoint", admin, "campaign", "force", "1", "--wait"], in: directory)
                #expect(status == 0 && output.contains("campaign 1 forced (seq 2)") && output.contains(" ms"), "\(output)")
                #expect(try await edge.query().forced == true)
                (status, output) = try await Self.adctl(["--endpoint", admin, "explain", "--app", "shop", "--platform", "ios", "--app-version", "5.2.0",
                                                         "--device", "d-1", "--screen", "1179x2556"], in: directory)
                #expect(status == 0 && output.hasPrefix("answer: campaign 1, creative \(sha.prefix(12))"), "\(output)")
                #expect(output.contains("OUTCOME") && output.contains("served"), "\(output)")
                (status, output) = try await Self.adctl(["--endpoint", admin, "explain", "--app", "shop", "--platform", "web", "--app-version", "5.2.0",
                                                         "--device", "d-1"], in: directory)
                #expect(status != 0 && output.contains("platform"), "\(output)")
                // An impression of the creative, counted by hour and creative once the edge ships it; and the funnel of two
                // launches of the app, one shown, one timed out.
                _ = try await edge.client.call(ClientAPI.launchReport, LaunchReportParams(events: [
                    LaunchEvent(eventId: "ops-1", type: .impression, campaignId: 1, deviceId: "d-ops", sha256: sha),
                    LaunchEvent(eventId: "ops-2", type: .request, campaignId: nil, deviceId: "d-ops", app: "shop"),
                    LaunchEvent(eventId: "ops-3", type: .request, campaignId: nil, deviceId: "d-late", app: "shop"),
                    LaunchEvent(eventId: "ops-4", type: .timeout, campaignId: nil, deviceId: "d-late", app: "shop"),
                ]))
                var hourly = ""
                #expect(await eventually(timeout: .seconds(15)) {
                    (status, hourly) = (try? await Self.adctl(["--endpoint", admin, "stats", "1", "--by", "hour", "--split", "creative"], in: directory)) ?? (-1, "")
                    return hourly.contains(String(sha.prefix(12)))
                }, "\(hourly)")
                let row = hourly.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
                #expect(row.first == ["ID", "HOUR", "CREATIVE", "IMPRESSIONS", "CLICKS", "SKIPS", "REPORTS", "CTR", "SKIP", "RATE"], "\(hourly)")
                #expect(row.last.map { [$0[0], $0[2], $0[3], $0[4], $0[5], $0[6], $0[7], $0[8]] } == ["1", String(sha.prefix(12)), "1", "0", "0", "0", "0.0%", "0.0%"], "\(hourly)")

                // The app's funnel: a row per hour, then the total; fills 2 - 1 timeout, fill rate 1/2, show rate 1/1.
                (status, output) = try await Self.adctl(["--endpoint", admin, "app", "stats", "shop"], in: directory)
                let funnel = output.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
                #expect(status == 0 && funnel.first == ["HOUR", "REQUESTS", "FILLS", "SHOWS", "TIMEOUTS", "FAILURES", "FILL", "RATE", "SHOW", "RATE"], "\(output)")
                #expect(funnel.last == ["total", "2", "1", "1", "1", "0", "50.0%", "100.0%"], "\(output)")
                (status, output) = try await Self.adctl(["--endpoint", admin, "--json", "app", "stats", "shop", "--by", "day"], in: directory)
                let funnelJSON = try JSONParser.parse(output.trimmingCharacters(in: .whitespacesAndNewlines))
                #expect(status == 0 && funnelJSON["by"] == "day" && funnelJSON["totals"]?["fillRate"] == 0.5 && funnelJSON["totals"]?["showRate"] == 1, "\(output)")
                #expect(funnelJSON["timezone"] == "UTC", "\(output)")
                // Days in the app's zone, named in the heading.
                (status, output) = try await Self.adctl(["--endpoint", admin, "app", "set", "shop", "--market", "global", "--timezone", "Asia/Shanghai"], in: directory)
                #expect(status == 0, "\(output)")
                (status, output) = try await Self.adctl(["--endpoint", admin, "app", "stats", "shop", "--by", "day"], in: directory)
                #expect(status == 0 && output.hasPrefix("DAY (Asia/Shanghai)") && output.split(separator: "\n").last?.split(separator: " ").first(where: { $0 != "total" }) == "2", "\(output)")
                (status, output) = try await Self.adctl(["--endpoint", admin, "app", "stats", "Shop!"], in: directory)
                #expect(status == 1 && output.contains("app: must be 1 to 64 of a-z"), "\(output)")
                (status, output) = try await Self.adctl(["--endpoint", admin, "app", "stats", "shop", "--by", "week"], in: directory)
                #expect(status != 0 && output.contains("--by must be hour or day"), "\(output)")

                (status, output) = try await Self.adctl(["--endpoint", admin, "--json", "campaign", "expire", "1", "--wait"], in: directory)
                #expect(status == 0, "\(output)")
                let expired = try JSONParser.parse(output.trimmingCharacters(in: .whitespacesAndNewlines))
                #expect(expired["seq"] == 3 && expired["campaign"]?["state"] == "expired")
                #expect(expired["edges"]?.arrayValue?.first?["edgeId"] == "edge-ops" && expired["edges"]?.arrayValue?.first?["tookMs"]?.intValue != nil)
                #expect(try await edge.query().hasAd == false)

                (status, output) = try await Self.adctl(["--endpoint", admin, "edges"], in: directory)
                #expect(status == 0 && output.contains("edge-ops") && output.contains("REGION"))
                (status, output) = try await Self.adctl(["--endpoint", admin, "stats", "1"], in: directory)
                #expect(status == 0 && output.contains("IMPRESSIONS"))

                (status, output) = try await Self.adctl(["--endpoint", admin, "history", "1"], in: directory)
                let lines = output.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).map(String.init) }
                #expect(status == 0 && lines.first == ["SEQ", "ID", "OP", "WHO", "WHEN", "V", "FIELDS"], "\(output)")
                #expect(lines.dropFirst().map { [$0[0], $0[2], $0[3]] } == [["1", "created", "local"], ["2", "forced", "local"], ["3", "expired", "local"]], "\(output)")
                #expect(lines.dropFirst().map { $0.last } == ["1", "forced", "state"], "\(output)")
                (status, output) = try await Self.adctl(["--endpoint", admin, "--json", "history", "--limit", "2"], in: directory)
                let page = try JSONParser.parse(output.trimmingCharacters(in: .whitespacesAndNewlines))
                #expect(status == 0 && page["changes"]?.arrayValue?.count == 2 && page["next"] == 2, "\(output)")
                // Test devices, checked by --dry-run as campaignd checks them.
                let testCampaign = ["--endpoint", admin, "campaign", "create", "--name", "QA", "--app", "shop", "--starts", "now", "--ends", "+1h",
                                    "--creative", sha, "--audience", "test", "--dry-run"]
                (status, output) = try await Self.adctl(testCampaign, in: directory)
                #expect(status == 1 && output.contains("testDevices: must list at least one device id when audience is test"), "\(output)")
                (status, output) = try await Self.adctl(testCampaign + ["--test-devices", "qa-1,qa-2"], in: directory)
                #expect(status == 0 && output.contains(#""audience":"test""#) && output.contains(#""testDevices":["qa-1","qa-2"]"#), "\(output)")
                (status, output) = try await Self.adctl(["--endpoint", admin, "history", "--limit", "5000"], in: directory)
                #expect(status != 0 && output.contains("--limit must be between 1 and 1000"), "\(output)")
            }
        }
    }

    @Test("errors are one line with what to do, and a non-zero exit")
    func errors() async throws {
        try await withStopping(CampaignFixture()) { fixture in
            let admin = fixture.endpoints["admin"]!
            let directory = fixture.directory
            var (status, output) = try await Self.adctl(["--endpoint", admin, "campaign", "get", "99"], in: directory)
            #expect(status == 1 && output == "adctl: no campaign 99\n")
            (status, output) = try await Self.adctl(["--endpoint", admin, "campaign", "create", "--name", "x", "--app", "shop",
                                                     "--starts", "now", "--ends", "+1h", "--creative", String(repeating: "a", count: 64),
                                                     "--priority", "500"], in: directory)
            #expect(status == 1 && output.contains("priority: must be between 0 and 100"), "\(output)")
            (status, output) = try await Self.adctl(["--endpoint", admin, "campaign", "create", "--name", "x", "--app", "shop",
                                                     "--starts", "tomorrow"], in: directory)
            #expect(status != 0 && output.contains("is not a time"))
            (status, output) = try await Self.adctl(["--endpoint", "tcp://127.0.0.1:1", "--timeout", "1", "campaign", "list"], in: directory)
            #expect(status == 1 && output.contains("campaignd unreachable at tcp://127.0.0.1:1"))
            #expect(!output.contains("jsonrpc"))
        }
    }

    @Test("--dry-run shows what would change and changes nothing")
    func dryRun() async throws {
        try await withStopping(CampaignFixture()) { fixture in
            let client = try fixture.admin()
            let sha = try await fixture.uploadPNG(client)
            let admin = fixture.endpoints["admin"]!
            var (status, output) = try await Self.adctl(["--endpoint", admin, "campaign", "create", "--name", "a", "--app", "shop",
                                                         "--starts", "now", "--ends", "+1h", "--creative", sha, "--dry-run"], in: fixture.directory)
            #expect(status == 0 && output.hasPrefix("would create"))
            (status, output) = try await Self.adctl(["--endpoint", admin, "campaign", "list", "--json"], in: fixture.directory)
            #expect(try JSONParser.parse(output.trimmingCharacters(in: .whitespacesAndNewlines))["campaigns"] == [])
            (status, _) = try await Self.adctl(["--endpoint", admin, "campaign", "create", "--name", "a", "--app", "shop",
                                                "--starts", "now", "--ends", "+1h", "--creative", sha], in: fixture.directory)
            (status, output) = try await Self.adctl(["--endpoint", admin, "campaign", "update", "1", "--priority", "90", "--dry-run"], in: fixture.directory)
            #expect(status == 0 && output.contains("priority") && output.contains("90"), "\(output)")
            (status, output) = try await Self.adctl(["--endpoint", admin, "campaign", "update", "1", "--advertiser", "Shop <A>", "--paid-by", "Payer",
                                                     "--dry-run", "--json"], in: fixture.directory)
            #expect(output.contains(#""field":"advertiser","from":null,"to":"Shop <A>""#) && output.contains(#""field":"paidBy","from":null,"to":"Payer""#),
                    "\(output)")
            (status, output) = try await Self.adctl(["--endpoint", admin, "campaign", "update", "1", "--paid-by", " Payer", "--dry-run"], in: fixture.directory)
            #expect(status != 0 && output.contains("paidBy: must not begin or end with a space"), "\(output)")
            (status, output) = try await Self.adctl(["--endpoint", admin, "campaign", "pause", "1", "--dry-run", "--json"], in: fixture.directory)
            #expect(output.contains(#""field":"state","from":"live","to":"paused""#), "\(output)")
            (status, output) = try await Self.adctl(["--endpoint", admin, "--json", "campaign", "get", "1"], in: fixture.directory)
            let campaign = try JSONParser.parse(output.trimmingCharacters(in: .whitespacesAndNewlines))["campaign"]
            #expect(campaign?["priority"] == 50 && campaign?["state"] == "live" && campaign?["version"] == 1)
            await client.close()
        }
    }

    @Test("every command's help, adctl's own included, is complete and has an example", arguments: [
        [], ["campaign", "create"], ["campaign", "update"], ["campaign", "get"], ["campaign", "list"], ["campaign", "force"],
        ["campaign", "unforce"], ["campaign", "pause"], ["campaign", "resume"], ["campaign", "expire"], ["campaign", "delete"],
        ["creative", "upload"], ["edges"], ["stats"], ["app", "stats"], ["app", "set"], ["app", "get"], ["app", "list"], ["app", "rules"], ["keygen"], ["call"], ["discover"],
    ])
    func help(_ command: [String]) async throws {
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let (status, output) = try await Self.adctl(command + ["--help"], in: directory)
        #expect(status == 0 && output.contains("Example") && output.contains("USAGE"), "\(output)")
    }
}

@Suite("adctl writes", .timeLimit(.minutes(3)))
struct AdctlWriteTests {
    @Test("update, pause, resume, unforce and delete each answer with the new state, in tables and in JSON")
    func operations() async throws {
        try await withStopping(CampaignFixture()) { fixture in
            let client = try fixture.admin()
            let sha = try await fixture.uploadPNG(client)
            let admin = fixture.endpoints["admin"]!
            let directory = fixture.directory
            var (status, output) = try await AdctlTests.adctl(["--endpoint", admin, "campaign", "create", "--name", "a", "--app", "shop",
                                                               "--starts", "now", "--ends", "+1h", "--creative", sha, "--forced", "true"], in: directory)
            #expect(status == 0, "\(output)")
            for (arguments, expected) in [
                (["campaign", "update", "1", "--priority", "70", "--regions", "cn-east"], "campaign 1 updated (seq 2), now live"),
                (["campaign", "pause", "1"], "campaign 1 paused (seq 3), now paused"),
                (["campaign", "resume", "1"], "campaign 1 resumed (seq 4), now live"),
                (["campaign", "unforce", "1"], "campaign 1 unforced (seq 5), now live"),
                (["campaign", "delete", "1"], "campaign 1 deleted (seq 6), now deleted"),
            ] {
                (status, output) = try await AdctlTests.adctl(["--endpoint", admin] + arguments, in: directory)
                #expect(status == 0 && output.contains(expected), "\(arguments): \(output)")
            }
            (status, output) = try await AdctlTests.adctl(["--endpoint", admin, "--json", "campaign", "list", "--state", "deleted"], in: directory)
            let deleted = try JSONParser.parse(output.trimmingCharacters(in: .whitespacesAndNewlines))["campaigns"]?.arrayValue?.first
            #expect(deleted?["priority"] == 70 && deleted?["forced"] == false && deleted?["targeting"]?["regions"] == ["cn-east"] && deleted?["version"] == 6)
            (status, output) = try await AdctlTests.adctl(["--endpoint", admin, "campaign", "pause", "1"], in: directory)
            #expect(status == 1 && output.contains("cannot apply paused to a campaign that is deleted"))
            await client.close()
        }
    }

    @Test("--wait exits non-zero, naming the edge, when a live edge does not apply the change in time")
    func waitFails() async throws {
        try await withStopping(CampaignFixture()) { fixture in
            let client = try fixture.admin()
            let sha = try await fixture.uploadPNG(client)
            try await withStopping(fixture.startEdge("edge-frozen")) { edge in
                #expect(await eventually { (try? await client.call("edge.list", params: nil)["edges"]?.arrayValue?.count) == 1 })
                // Frozen, but heard from a moment ago: campaignd still counts it live.
                edge.process.signal(SIGSTOP)
                let (status, output) = try await AdctlTests.adctl(["--endpoint", fixture.endpoints["admin"]!, "campaign", "create", "--name", "a",
                                                                   "--app", "shop", "--starts", "now", "--ends", "+1h", "--creative", sha,
                                                                   "--wait", "--wait-timeout", "1"], in: fixture.directory)
                edge.process.signal(SIGCONT)
                #expect(status == 1 && output.contains("did not apply seq 1") && output.contains("edge-frozen"), "\(output)")
                await client.close()
            }
        }
    }
}
