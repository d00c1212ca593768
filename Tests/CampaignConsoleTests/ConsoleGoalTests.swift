import CampaignConsole
import Foundation
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdTesting
import Testing
import ZMQRPC

@Suite("The console shows a campaign's delivery goal and pacing", .timeLimit(.minutes(2)))
struct ConsoleGoalTests {
    @Test("A campaign with a goal shows it with its period and pacing on its page; one without has no goal row")
    func goalRow() async throws {
        try await withConsole { service, client, admin in
            let id = try await createCampaign(service, admin) { $0.goal = CampaignGoal(impressions: 250_000, per: .day) }
            let plain = try await createCampaign(service, admin, name: "Plain")
            let sync = try service.sync()
            _ = try await sync.call(SyncAPI.report, EdgeReport(edgeId: "e1", reportId: 1, counts: [CampaignStats(id: id, impressions: 40, clicks: 0, skips: 0)]))
            await sync.close()
            try await client.signIn(aliceToken)
            let page = try await client.get("/campaigns/\(id)")
            #expect(page.status == 200)
            #expect(page.body.contains("<tr><th>goal</th><td>250000 impressions per day, paced even</td></tr>"), "\(page.body)")
            // The forecast line: 40 reported today, far short of the goal at this rate.
            #expect(page.body.contains("<p id=\"pacing\">40 of 250000 delivered since "), "\(page.body)")
            #expect(page.body.contains("short: too little traffic to meet the goal</p>"), "\(page.body)")
            let other = try await client.get("/campaigns/\(plain)")
            #expect(other.status == 200 && !other.body.contains("<th>goal</th>") && !other.body.contains("id=\"pacing\""))
        }
    }
}
