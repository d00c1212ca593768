import CampaignConsole
import CampaignStore
import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdTesting
import Testing

@Suite("The console's apps: each app's market and the campaigns breaking its rules", .timeLimit(.minutes(2)))
struct ConsoleAppsTests {
    @Test("The campaigns page shows each app's market and time zone and lists exactly the campaigns breaking its rules, names escaped")
    func appsAndBreakingCampaigns() async throws {
        try await withConsole { service, client, admin in
            let hostile = "<script>alert(1)</script> & \"co\""
            let breaking = try await createCampaign(service, admin, name: hostile) { $0.clickArea = .full }
            let fine = try await createCampaign(service, admin, name: "Button only")
            let other = try await createCampaign(service, admin, name: "Other app") { $0.app = "news"; $0.skippable = false }
            let set = try await admin.call(AdminAPI.appSet, AppPatch(app: "shop", market: .cn, timezone: "Asia/Shanghai"))
            #expect(set.breaking.map(\.id) == [breaking])
            try await client.signIn(aliceToken)
            let page = try await client.get("/")
            #expect(page.status == 200)
            #expect(page.body.contains("<tr data-app=\"shop\"><td>shop</td><td data-market=\"cn\">cn</td><td>Asia/Shanghai</td>"))
            // An app never set shows its defaults, and no campaign of it breaks anything.
            #expect(page.body.contains("<tr data-app=\"news\"><td>news</td><td data-market=\"global\">global</td><td>UTC</td><td data-report-pause=\"0\">off</td><td>none</td></tr>"))
            #expect(page.body.contains("<li data-campaign=\"\(breaking)\" data-state=\"live\"><a href=\"/campaigns/\(breaking)\">&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;co&quot;</a>: clickArea must be button"))
            #expect(page.body.contains("MIIT 2021"))
            #expect(!page.body.contains("<li data-campaign=\"\(fine)\"") && !page.body.contains("<li data-campaign=\"\(other)\""))
            #expect(!page.body.contains("<script>alert"))
            // A paused campaign that breaks the rules is listed, marked paused: it would be refused on resume.
            _ = try await admin.call(AdminAPI.campaignPause, CampaignID(id: breaking))
            let paused = try await client.get("/")
            #expect(paused.body.contains("<li data-campaign=\"\(breaking)\" data-state=\"paused\">"), "\(paused.body)")
        }
    }

    @Test("The campaigns page still shows the campaigns when app.list fails (an app whose stored market this campaignd does not know)")
    func appListFailureDegrades() async throws {
        try await withConsole { service, client, admin in
            let id = try await createCampaign(service, admin, name: "Still shown")
            // As a newer campaignd could leave it: app.list cannot read the row, and campaign writes of the app are refused.
            try runSQLiteShell(service.directory.appendingPathComponent("data").appendingPathComponent(SQLiteStore.fileName).path,
                               #"INSERT INTO apps (app, market, body) VALUES ('shop', 'us', '{"app":"shop","market":"us","timezone":"UTC"}');"#)
            await #expect { try await admin.call(AdminAPI.appList, NoParams()) } throws: { ($0 as? JSONRPCError)?.code == -32603 }
            await #expect { try await admin.call(AdminAPI.campaignUpdate, CampaignUpdateParams(id: id, fields: CampaignFields(priority: 60))) } throws: {
                ($0 as? JSONRPCError)?.code == -32602 && ($0 as? JSONRPCError)?.data?["field"] == "app"
            }
            try await client.signIn(aliceToken)
            let page = try await client.get("/")
            #expect(page.status == 200 && page.body.contains("Still shown"), "\(page.status) \(page.body)")
            #expect(page.body.contains("<tr data-app=\"shop\"><td>shop</td><td data-market=\"global\">"))
        }
    }
}
