import CampaignConsole
import Foundation
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdTesting
import Testing

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
