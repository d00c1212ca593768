import CampaignConsole
import Foundation
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdTesting
import Testing
import ZMQRPC

@Suite("The console shows a campaign's advertiser and payer, escaped", .timeLimit(.minutes(2)))
struct ConsolePartyTests {
    @Test("A hostile advertiser and payer (<script>, quotes, ampersands) are shown as text on the campaign's page, never as markup")
    func escaped() async throws {
        try await withConsole { service, client, admin in
            let id = try await createCampaign(service, admin) {
                $0.advertiser = "<script>alert(1)</script>"
                $0.paidBy = "\"&' Ltd"
            }
            let plain = try await createCampaign(service, admin, name: "Plain")
            try await client.signIn(aliceToken)
            let page = try await client.get("/campaigns/\(id)")
            #expect(page.status == 200)
            #expect(page.body.contains("<tr><th>advertiser</th><td>&lt;script&gt;alert(1)&lt;/script&gt;</td></tr>"), "\(page.body)")
            #expect(page.body.contains("<tr><th>paid by</th><td>&quot;&amp;&#39; Ltd</td></tr>"))
            #expect(!page.body.contains("<script>alert(1)"))
            #expect(!page.body.contains("\"&' Ltd"))
            // A campaign without them has no such rows.
            let other = try await client.get("/campaigns/\(plain)")
            #expect(other.status == 200 && !other.body.contains("<th>advertiser</th>") && !other.body.contains("<th>paid by</th>"))
        }
    }
}

@Suite("The console shows a campaign's market and reports, and each app's report threshold", .timeLimit(.minutes(2)))
struct ConsoleReportsTests {
    @Test("A campaign's page shows its app's market, its hostile advertiser escaped, and its reports by reason; the apps table shows reportPause")
    func reports() async throws {
        try await withConsole { service, client, admin in
            _ = try await admin.call(AdminAPI.appSet, AppPatch(app: "shop", market: .eu, reportPause: 50))
            let hostile = "<img src=x onerror=alert(1)> & \"Co\""
            let id = try await createCampaign(service, admin) {
                $0.advertiser = hostile
                $0.paidBy = hostile
            }
            let sync = try RPCClient(context: service.context, configuration: RPCClientConfiguration(endpoint: service.endpoints["sync"]!))
            let reasons = ReportReasons(inappropriate: 2, misleading: 1)
            #expect(try await sync.call(SyncAPI.report, EdgeReport(edgeId: "edge-r", reportId: 1, counts: [
                CampaignStats(id: id, impressions: 5, clicks: 0, skips: 0, reasons: reasons),
            ], hourly: [HourlyCount(id: id, hour: HourlyCount.hour(of: .now()), impressions: 5, reasons: reasons)], region: "eu")).accepted)
            await sync.close()
            try await client.signIn(aliceToken)
            let page = try await client.get("/campaigns/\(id)")
            #expect(page.status == 200)
            #expect(page.body.contains("<tr><th>market</th><td>eu</td></tr>"), "\(page.body)")
            let escaped = "&lt;img src=x onerror=alert(1)&gt; &amp; &quot;Co&quot;"
            #expect(page.body.contains("<tr><th>advertiser</th><td>\(escaped)</td></tr>") && page.body.contains("<tr><th>paid by</th><td>\(escaped)</td></tr>"))
            #expect(!page.body.contains("<img src=x"))
            #expect(page.body.contains("<tr data-reason=\"inappropriate\"><td>inappropriate</td><td>2</td></tr>")
                    && page.body.contains("<tr data-reason=\"misleading\"><td>misleading</td><td>1</td></tr>")
                    && page.body.contains("<tr data-reason=\"other\"><td>other</td><td>0</td></tr>")
                    && page.body.contains("<tr data-reason=\"total\"><th>total, kept for good</th><th>3</th></tr>"), "\(page.body)")
            // The campaigns page: the app's threshold, and the hostile advertiser nowhere as markup.
            let list = try await client.get("/")
            #expect(list.body.contains("<td data-report-pause=\"50\">at 50 reports an hour</td>"), "\(list.body)")
            #expect(!list.body.contains("<img src=x"))
        }
    }
}
