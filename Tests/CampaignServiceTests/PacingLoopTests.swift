import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdTesting
import Testing
import ZMQRPC

@Suite("Pacing closes the loop through a real edge", .timeLimit(.minutes(2)))
struct PacingLoopTests {
    @Test("devices shown a campaign with a goal report impressions; the edge ships them, campaignd paces, the share comes back and the edge answers the next campaign once the goal is met, within 5% of it")
    func goalMetThroughEdge() async throws {
        // Pacing and reports every second (the flags' least): the controller counts three intervals for a count to come
        // back, which a host at a load of 13 on two cores stretched past 0.9 s with intervals of 300 ms.
        try await withCampaignService(configure: { $0.pacingInterval = .seconds(1) }) { service in
            let admin = try service.admin(timeout: .seconds(30))
            let creative = try await service.uploadPNG(admin)
            var fields = CampaignFixture.fields(name: "Forty", creative: creative)
            fields.goal = CampaignGoal(impressions: 40, per: .campaign)
            fields.pacing = .asap
            fields.priority = 90
            let paced = try await admin.call(AdminAPI.campaignCreate, fields).campaign
            let other = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "Other", creative: creative))
            try await withEdge("edge-pace", connectedTo: service, configure: { $0.reportInterval = .seconds(1) }) { edge in
                #expect(await edge.waitFor(seq: other.seq, creatives: 1))
                // About ten launches a second from new devices; each shown the paced campaign reports its impression.
                var shown = 0, otherInARow = 0, device = 0
                let deadline = Date().addingTimeInterval(60)
                while otherInARow < 30 && Date() < deadline {
                    device += 1
                    let answer = try await edge.query(LaunchQueryParams(app: "shop", platform: "ios", appVersion: "5.2.0", deviceId: "device-\(device)"))
                    if answer.id == paced.id {
                        shown += 1
                        otherInARow = 0
                        _ = try await edge.client.call(ClientAPI.launchReport, LaunchReportParams(events: [
                            LaunchEvent(eventId: "imp-\(device)", type: .impression, campaignId: paced.id, deviceId: "device-\(device)")]))
                    } else {
                        otherInARow += answer.id == other.campaign.id ? 1 : 0
                    }
                    try await Task.sleep(for: .milliseconds(100))
                }
                #expect(otherInARow >= 30, "still answered after \(shown) impressions")
                #expect(shown >= 38 && shown <= 42, "\(shown) impressions for a goal of 40")
                let stopped = try await admin.call(AdminAPI.campaignGet, CampaignID(id: paced.id)).campaign
                #expect(stopped.share == 0)
                let line = try await admin.call(AdminAPI.campaignStats, CampaignStatsParams(id: paced.id)).pacing?.first
                #expect(line?.completed == true && line?.delivered == shown, "\(String(describing: line))")
                print("pacing loop: \(shown) impressions for a goal of 40 over \(device) launches")
            }
            await admin.close()
        }
    }
}
