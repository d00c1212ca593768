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
        // Pacing and reports every second (the flags' least): the controller's lag follows the report interval it
        // observes (1.5 times it), a share's hold two pacing intervals, both stretched when ticks come late on a loaded host.
        try await withCampaignService(configure: { $0.pacingInterval = .seconds(1) }) { service in
            let admin = try service.admin(timeout: .seconds(30))
            let creative = try await service.uploadPNG(admin)
            let other = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "Other", creative: creative))
            try await withEdge("edge-pace", connectedTo: service, configure: { $0.reportInterval = .seconds(1) }) { edge in
                #expect(await edge.waitFor(seq: other.seq, creatives: 1))
                // The edge's reports first, for three seconds: campaignd learns its report interval from them (until then it
                // assumes deliveryd's default of 10 s, and would count 15 s of this campaign's traffic as unreported).
                var device = 0
                let warm = Date().addingTimeInterval(3.5)
                while Date() < warm {
                    device += 1
                    _ = try await edge.client.call(ClientAPI.launchReport, LaunchReportParams(events: [
                        LaunchEvent(eventId: "warm-\(device)", type: .impression, campaignId: other.campaign.id, deviceId: "warm-\(device)")]))
                    try await Task.sleep(for: .milliseconds(200))
                }
                var fields = CampaignFixture.fields(name: "Forty", creative: creative)
                fields.goal = CampaignGoal(impressions: 40, per: .campaign)
                fields.pacing = .asap
                fields.priority = 90
                let created = try await admin.call(AdminAPI.campaignCreate, fields)
                let paced = created.campaign
                #expect(await edge.waitFor(seq: created.seq))
                // About ten launches a second from new devices; each shown the paced campaign reports its impression. They
                // go on until campaignd has stopped the campaign (its share at 0), however long a loaded host takes:
                // the loop waits on that state, not on a time or a run of other answers.
                var shown = 0
                var stoppedSeq: Int64?
                let deadline = Date().addingTimeInterval(90)
                while stoppedSeq == nil && Date() < deadline {
                    device += 1
                    let answer = try await edge.query(LaunchQueryParams(app: "shop", platform: "ios", appVersion: "5.2.0", deviceId: "device-\(device)"))
                    if answer.id == paced.id {
                        shown += 1
                        _ = try await edge.client.call(ClientAPI.launchReport, LaunchReportParams(events: [
                            LaunchEvent(eventId: "imp-\(device)", type: .impression, campaignId: paced.id, deviceId: "device-\(device)")]))
                    }
                    if device % 5 == 0 {
                        let log = try await admin.call(AdminAPI.changeList, ChangeListParams(id: paced.id)).changes
                        if let last = log.last, last.actor == "pacing",
                           try await admin.call(AdminAPI.campaignGet, CampaignID(id: paced.id)).campaign.share == 0 {
                            stoppedSeq = last.seq
                        }
                    }
                    try await Task.sleep(for: .milliseconds(100))
                }
                let stop = try #require(stoppedSeq, "not stopped after \(shown) impressions")
                // Once the edge holds the share of 0, it answers the next campaign to every device; what it showed before
                // (the impressions in flight) stays within 5% of the goal.
                #expect(await edge.waitFor(seq: stop))
                for _ in 0..<30 {
                    device += 1
                    let answer = try await edge.query(LaunchQueryParams(app: "shop", platform: "ios", appVersion: "5.2.0", deviceId: "device-\(device)"))
                    #expect(answer.id == other.campaign.id)
                    // A device that holds it (a deferred answer, a prefetch) is told to drop it.
                    #expect(answer.revoked.contains(paced.id))
                }
                // A prefetch offers nothing of it any more.
                let prefetch = try await edge.client.call(ClientAPI.launchPrefetch, LaunchPrefetchParams(app: "shop", platform: "ios", appVersion: "5.2.0"))
                #expect(!prefetch.download.contains { $0.campaignId == paced.id } && prefetch.download.contains { $0.campaignId == other.campaign.id })
                #expect(prefetch.revoked.contains(paced.id))
                #expect(shown >= 38 && shown <= 42, "\(shown) impressions for a goal of 40")
                let line = try await waitForLine(admin, paced.id) { $0.delivered == shown }
                #expect(line?.completed == true && line?.delivered == shown && line?.share == 0, "\(String(describing: line))")
                print("pacing loop: \(shown) impressions for a goal of 40 over \(device) launches")
            }
            await admin.close()
        }
    }

    /// The campaign's pacing line once `done` holds (its counts shipped), or the last one after 15 s.
    func waitForLine(_ admin: RPCClient, _ id: Int64, _ done: (PacingStats) -> Bool) async throws -> PacingStats? {
        var line: PacingStats?
        _ = await eventually(timeout: .seconds(15)) {
            line = try? await admin.call(AdminAPI.campaignStats, CampaignStatsParams(id: id)).pacing?.first
            return line.map(done) ?? false
        }
        return line
    }
}
