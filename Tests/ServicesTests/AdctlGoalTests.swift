import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdTesting
import Testing

/// `adctl campaign create --goal` and `adctl stats` against a real campaignd that paces.
extension AdctlTests {
    @Test("campaign create --goal --per --pacing (and --dry-run) sets the goal; adctl stats prints the forecast line, completed once the reports meet it")
    func goals() async throws {
        let fixture = try await CampaignFixture(arguments: ["--pacing-interval", "1s"])
        let client = try fixture.admin()
        let sync = try fixture.sync()
        let sha = try await fixture.uploadPNG(client)
        let admin = fixture.endpoints["admin"]!
        func adctl(_ arguments: [String]) async throws -> (Int32, String) {
            try await Self.adctl(["--endpoint", admin] + arguments, in: fixture.directory)
        }
        let create = ["campaign", "create", "--name", "Goal", "--app", "shop", "--starts", "now", "--ends", "+1h", "--creative", sha,
                      "--goal", "100", "--per", "campaign", "--pacing", "asap"]
        var (status, output) = try await adctl(create + ["--dry-run"])
        #expect(status == 0 && output.hasPrefix("would create") && output.contains("goal"), "\(output)")
        (status, output) = try await adctl(["--json"] + create)
        let created = try JSONParser.parse(output.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(created["campaign"]?["goal"]?["impressions"]?.intValue == 100 && created["campaign"]?["pacing"] == "asap", "\(output)")
        let id = try #require(created["campaign"]?["id"]?.intValue)
        (status, output) = try await adctl(create.dropLast(2) + ["--per", "week"])
        #expect(status != 0 && output.contains("--per must be day or campaign"), "\(output)")

        _ = try await sync.call(SyncAPI.report, EdgeReport(edgeId: "e1", reportId: 1, counts: [CampaignStats(id: Int64(id), impressions: 100, clicks: 0, skips: 0)]))
        #expect(await eventually(timeout: .seconds(15)) {
            (try? await client.call(AdminAPI.campaignGet, CampaignID(id: Int64(id))).campaign.share) == 0
        })
        (status, output) = try await adctl(["stats", String(id)])
        let line = output.split(separator: "\n").first { $0.hasPrefix("\(id) ") && $0.contains("asap") }
        #expect(status == 0 && output.contains("GOAL") && output.contains("PROJECTED"), "\(output)")
        #expect(line?.contains("100") == true && line?.contains("0.000") == true && line?.hasSuffix("completed") == true, "\(output)")
        await client.close()
        await sync.close()
        await fixture.stop()
    }
}
