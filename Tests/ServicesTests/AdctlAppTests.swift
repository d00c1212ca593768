import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdTesting
import Testing

/// `adctl app set|get|list` against a real campaignd.
extension AdctlTests {
    @Test("app set lists the campaigns that break the new market (--dry-run too, changing nothing); app get and list show the app; bad values refused")
    func apps() async throws {
        let fixture = try await CampaignFixture()
        let client = try fixture.admin()
        let sha = try await fixture.uploadPNG(client)
        var fields = CampaignFixture.fields(name: "Whole screen", creative: sha)
        fields.clickArea = .full
        let breaking = try await client.call(AdminAPI.campaignCreate, fields).campaign
        _ = try await client.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "Button", creative: sha))
        let admin = fixture.endpoints["admin"]!
        func adctl(_ arguments: [String]) async throws -> (Int32, String) {
            try await Self.adctl(["--endpoint", admin] + arguments, in: fixture.directory)
        }

        // Nothing to set, or an app's first set without its market, is refused before anything is written.
        var (status, output) = try await adctl(["app", "set", "shop"])
        #expect(status != 0 && output.contains("give --market, --timezone, --logo or --report-pause"), "\(output)")
        for dryRun in [[], ["--dry-run"]] {
            (status, output) = try await adctl(["app", "set", "shop", "--timezone", "Asia/Shanghai"] + dryRun)
            #expect(status != 0 && output.contains("market: is required when an app is first set"), "\(output)")
        }
        #expect(try await client.call(AdminAPI.appList, NoParams()).apps.isEmpty)
        (status, output) = try await adctl(["app", "set", "shop", "--market", "cn", "--timezone", "Asia/Shanghai", "--dry-run"])
        #expect(status == 0 && output.contains("app shop would be: market cn, timezone Asia/Shanghai"), "\(output)")
        #expect(output.contains("1 live, scheduled or paused campaign(s) break the cn market's rules") && output.contains("Whole screen")
                && output.contains("clickArea") && output.contains("MIIT") && !output.contains("Button"), "\(output)")
        (status, output) = try await adctl(["app", "get", "shop"])
        #expect(status == 0 && output.contains("market global, timezone UTC") && output.contains("never set"), "\(output)")

        (status, output) = try await adctl(["app", "set", "shop", "--market", "cn", "--timezone", "Asia/Shanghai"])
        #expect(status == 0 && output.contains("app shop set: market cn"), "\(output)")
        let row = output.split(separator: "\n").first { $0.hasPrefix("\(breaking.id) ") && !$0.contains("campaign(s)") }
        #expect(row?.contains("Whole screen") == true && row?.contains("clickArea") == true && row?.contains("must be button") == true, "\(output)")
        (status, output) = try await adctl(["--json", "app", "set", "shop", "--timezone", "Europe/Berlin"])
        let set = try JSONParser.parse(output.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(set["app"]?["market"] == "cn" && set["app"]?["timezone"] == "Europe/Berlin" && set["breaking"]?.arrayValue?.first?["id"]?.intValue == Int(breaking.id))

        (status, output) = try await adctl(["app", "get", "shop"])
        #expect(status == 0 && output.contains("market cn, timezone Europe/Berlin") && output.contains("local"), "\(output)")
        (status, output) = try await adctl(["--json", "app", "list"])
        let list = try JSONParser.parse(output.trimmingCharacters(in: .whitespacesAndNewlines))
        let first = list["apps"]?.arrayValue?.first
        #expect(first?["app"] == "shop" && first?["market"] == "cn", "\(output)")
        (status, output) = try await adctl(["app", "list"])
        #expect(status == 0 && output.hasPrefix("APP") && output.contains("Europe/Berlin"), "\(output)")

        (status, output) = try await adctl(["app", "set", "shop", "--timezone", "Mars/Olympus_Mons"])
        #expect(status != 0 && output.contains("timezone"), "\(output)")
        (status, output) = try await adctl(["app", "set", "shop", "--market", "us"])
        #expect(status != 0 && output.contains("--market must be cn, eu or global"), "\(output)")
        (status, output) = try await adctl(["app", "set", "Shop!", "--market", "cn"])
        #expect(status != 0 && output.contains("app: must be \(AppID.rule)"), "\(output)")
        // The campaign itself was left as it was; its next update must keep the rules.
        #expect(try await client.call(AdminAPI.campaignGet, CampaignID(id: breaking.id)).campaign == breaking)
        (status, output) = try await adctl(["campaign", "update", String(breaking.id), "--priority", "70"])
        #expect(status != 0 && output.contains("clickArea") && output.contains("cn"), "\(output)")
        (status, output) = try await adctl(["campaign", "update", String(breaking.id), "--priority", "70", "--dry-run"])
        #expect(status != 0 && output.contains("clickArea must be button") && output.contains("cn market"), "\(output)")
        (status, output) = try await adctl(["campaign", "update", String(breaking.id), "--click-area", "button", "--dry-run"])
        #expect(status == 0 && output.contains("clickArea"), "\(output)")
        // create --dry-run asks campaignd for the app's market as update's does, and writes nothing either way.
        let create = ["campaign", "create", "--name", "Dry", "--app", "shop", "--starts", "now", "--ends", "+1h", "--creative", sha, "--dry-run"]
        (status, output) = try await adctl(create + ["--click-area", "full"])
        #expect(status != 0 && output.contains("clickArea must be button") && output.contains("cn market"), "\(output)")
        (status, output) = try await adctl(create)
        #expect(status == 0 && output.hasPrefix("would create"), "\(output)")
        // So does resume --dry-run: the breaking campaign, paused, would be refused on resume.
        _ = try await client.call(AdminAPI.campaignPause, CampaignID(id: breaking.id))
        (status, output) = try await adctl(["campaign", "resume", String(breaking.id), "--dry-run"])
        #expect(status != 0 && output.contains("clickArea must be button") && output.contains("cn market"), "\(output)")
        #expect(try await client.call(AdminAPI.campaignList, CampaignListParams()).campaigns.count == 2)
        await client.close()
        await fixture.stop()
    }
}
