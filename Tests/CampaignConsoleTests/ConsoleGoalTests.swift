import CampaignConsole
import Foundation
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdTesting
import Testing

@Suite("The console shows a campaign's delivery goal and pacing", .timeLimit(.minutes(2)))
struct ConsoleGoalTests {
    @Test("A campaign with a goal shows it with its period and pacing on its page; one without has no goal row")
    func goalRow() async throws {
        try await withConsole { service, client, admin in
            let id = try await createCampaign(service, admin) { $0.goal = CampaignGoal(impressions: 250_000, per: .day) }
            let plain = try await createCampaign(service, admin, name: "Plain")
            try await client.signIn(aliceToken)
            let page = try await client.get("/campaigns/\(id)")
            #expect(page.status == 200)
            #expect(page.body.contains("<tr><th>goal</th><td>250000 impressions per day, paced even</td></tr>"), "\(page.body)")
            let other = try await client.get("/campaigns/\(plain)")
            #expect(other.status == 200 && !other.body.contains("<th>goal</th>"))
        }
    }
}
