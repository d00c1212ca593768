import Foundation
import JSONRPC
import LaunchAdTesting
import Testing

/// `adctl ... --wait` against real campaignd and deliveryd processes: it never says a change reached the edges when
/// nothing shows it did.
@Suite("adctl --wait tells the truth", .timeLimit(.minutes(3)))
struct EdgeWaitTests {
    static func create(_ fixture: CampaignFixture, _ sha: String, name: String, _ extra: [String] = []) async throws -> (Int32, String) {
        try await AdctlTests.adctl(["--endpoint", fixture.endpoints["admin"]!, "campaign", "create", "--name", name, "--app", "shop",
                                    "--starts", "now", "--ends", "+1h", "--creative", sha, "--wait", "--wait-timeout", "20"] + extra,
                                   in: fixture.directory)
    }

    @Test("with no edge known, --wait fails saying so, unless --allow-no-edges")
    func noEdges() async throws {
        try await withStopping(CampaignFixture()) { fixture in
            let client = try fixture.admin()
            let sha = try await fixture.uploadPNG(client)
            var (status, output) = try await Self.create(fixture, sha, name: "a")
            #expect(status == 1 && output.contains("campaign 1 created (seq 1)") && output.contains("no edges known"), "\(output)")
            (status, output) = try await Self.create(fixture, sha, name: "b", ["--allow-no-edges"])
            #expect(status == 0 && output.contains("campaign 2 created (seq 2)") && !output.contains("no edges known"), "\(output)")
            await client.close()
        }
    }

    @Test("after campaignd restarts, --wait counts the edges it knew: the live one applies, the one killed meanwhile is named")
    func afterRestart() async throws {
        try await withStopping(CampaignFixture()) { fixture in
            let client = try fixture.admin()
            let sha = try await fixture.uploadPNG(client)
            await client.close()
            try await withStopping(fixture.startEdge("edge-live")) { live in
                try await withStopping(fixture.startEdge("edge-gone")) { gone in
                    #expect(await fixture.waitUntilListed(["edge-live", "edge-gone"]))
                    var (status, output) = try await Self.create(fixture, sha, name: "a")
                    #expect(status == 0 && output.contains("edge-live") && output.contains("edge-gone"), "\(output)")
                    // Saved to the store (every 250 ms) before the kill: what campaignd lists after its restart.
                    try await Task.sleep(for: .milliseconds(600))
                    await gone.stop(signal: SIGKILL)
                    try await fixture.restart(sameEndpoints: true)
                    // Restarted, it lists both edges from its store at once.
                    let admin = try fixture.admin()
                    let listed = try await admin.call("edge.list", params: nil)["edges"]?.arrayValue?.compactMap { $0["edgeId"]?.stringValue }
                    #expect(listed == ["edge-gone", "edge-live"])
                    await admin.close()

                    (status, output) = try await Self.create(fixture, sha, name: "b")
                    #expect(status == 1, "\(output)")
                    let lines = output.split(separator: "\n")
                    #expect(lines.contains { $0.hasPrefix("edge-live") && $0.hasSuffix(" ms") }, "\(output)")
                    #expect(lines.contains { $0.hasPrefix("adctl: 1 of 2 edge(s) did not apply seq 2") && $0.contains("edge-gone (s") && !$0.contains("edge-live") },
                            "\(output)")
                    #expect(try await live.query().hasAd)
                }
            }
        }
    }

    @Test("an edge not heard from for --edge-retention is forgotten, also across a restart (the flag's bounds: DaemonOptionsTests)")
    func retention() async throws {
        try await withStopping(CampaignFixture(arguments: ["--edge-retention", "2s"])) { fixture in
            let client = try fixture.admin()
            let sha = try await fixture.uploadPNG(client)
            try await withStopping(fixture.startEdge("edge-brief")) { edge in
                #expect(await fixture.waitUntilListed(["edge-brief"]))
                var (status, output) = try await Self.create(fixture, sha, name: "a")
                #expect(status == 0 && output.contains("edge-brief"), "\(output)")
                await edge.stop()
                #expect(await eventually(timeout: .seconds(10)) { (try? await client.call("edge.list", params: nil)["edges"]?.arrayValue?.count) == 0 })
                #expect(await eventually { fixture.process.log.contains("forgot an edge not heard from within the retention") })
                await client.close()
                try await fixture.restart(sameEndpoints: true)
                let again = try fixture.admin()
                #expect(try await again.call("edge.list", params: nil)["edges"]?.arrayValue?.count == 0)
                await again.close()
                (status, output) = try await Self.create(fixture, sha, name: "b")
                #expect(status == 1 && output.contains("no edges known"), "\(output)")
            }
        }
    }
}
