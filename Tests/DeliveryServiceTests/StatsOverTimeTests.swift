import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdTesting
import Testing
import ZMQRPC

@Suite("campaign.stats over time: counts by hour, creative and region, from the edges' reports", .timeLimit(.minutes(3)))
struct StatsOverTimeTests {
    @Test("an edge ships counts by hour and creative; campaign.stats answers them by hour or day, split by creative and region")
    func series() async throws {
        try await DeliveryServiceTests.withCampaignd { fixture, admin, first in
            let second = try await fixture.uploadPNG(admin, width: 1179, height: 2556, seed: 9)
            var fields = CampaignFixture.fields(name: "two variants", creative: first)
            fields.creatives = [CreativeRef(sha256: first), CreativeRef(sha256: second)]
            let created = try await admin.call(AdminAPI.campaignCreate, fields)
            let id = created.campaign.id
            try await withEdge("edge-hours", connectedTo: fixture, configure: { $0.following.region = "eu-west" }) { edge in
                #expect(await edge.waitFor(seq: created.seq, creatives: 2))
                let now = Timestamp.now()
                let hour = HourlyCount.hour(of: now)
                let earlier = hour.adding(seconds: -7200 + 60)
                let madeUp = String(repeating: "ab", count: 32)
                func event(_ n: Int, _ type: LaunchEvent.Kind, _ sha256: String?, at: Timestamp? = nil) -> LaunchEvent {
                    LaunchEvent(eventId: "h-\(n)", type: type, campaignId: id, deviceId: "d-\(n)", sha256: sha256, at: at)
                }
                _ = try await edge.client.call(ClientAPI.launchReport, LaunchReportParams(events: [
                    event(1, .impression, first, at: earlier), event(2, .impression, first, at: earlier), event(3, .click, first, at: earlier),
                    event(4, .impression, second), event(5, .skip, second), event(6, .impression, nil), event(7, .impression, madeUp),
                ]))
                let byCreative = CampaignStatsParams(id: id, from: hour.adding(seconds: -3 * 3600), by: .hour, split: [.creative])
                var answer: CampaignStatsResult?
                #expect(await eventually(timeout: .seconds(15)) {
                    answer = try? await admin.call(AdminAPI.campaignStats, byCreative)
                    return answer?.stats.first?.impressions == 5
                }, "\(String(describing: answer)) \(edge.log.suffix(2000))")
                // An unknown creative (none said, or one the campaign does not have) is counted under "".
                #expect(answer?.series == [
                    StatsPoint(id: id, at: hour.adding(seconds: -7200), creative: first, impressions: 2, clicks: 1, skips: 0, reports: 0),
                    StatsPoint(id: id, at: hour, creative: "", impressions: 2, clicks: 0, skips: 0, reports: 0),
                    StatsPoint(id: id, at: hour, creative: second, impressions: 1, clicks: 0, skips: 1, reports: 0),
                ])
                let byRegion = try await admin.call(AdminAPI.campaignStats, CampaignStatsParams(id: id, from: hour.adding(seconds: -3 * 3600), split: [.region]))
                #expect(byRegion.series == [
                    StatsPoint(id: id, at: hour.adding(seconds: -7200), region: "eu-west", impressions: 2, clicks: 1, skips: 0, reports: 0),
                    StatsPoint(id: id, at: hour, region: "eu-west", impressions: 3, clicks: 0, skips: 1, reports: 0),
                ])
                let day = StatsBucket.day.start(of: now)
                let byDay = try await admin.call(AdminAPI.campaignStats, CampaignStatsParams(id: id, by: .day)).series ?? []
                #expect(byDay.reduce(0) { $0 + $1.impressions } == 5 && byDay.last?.at == day && byDay.allSatisfy { $0.creative == nil && $0.region == nil })
                // Without from, to, by or split: totals alone, as before.
                #expect(try await admin.call(AdminAPI.campaignStats, CampaignStatsParams(id: id)).series == nil)
            }
        }
    }

    @Test("a report without hourly counts (an older edge) is filed under the hour it arrives, with no creative")
    func olderEdge() async throws {
        try await DeliveryServiceTests.withCampaignd { fixture, admin, creative in
            let id = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(creative: creative)).campaign.id
            let sync = try fixture.sync()
            let before = HourlyCount.hour(of: .now())
            let taken = try await sync.call(SyncAPI.report, EdgeReport(edgeId: "old-edge", reportId: 1,
                                                                       counts: [CampaignStats(id: id, impressions: 4, clicks: 1, skips: 2)]))
            let after = HourlyCount.hour(of: .now())
            #expect(taken.accepted)
            let series = try await admin.call(AdminAPI.campaignStats, CampaignStatsParams(id: id, split: [.creative, .region])).series ?? []
            #expect(series.count == 1 && series.first.map { [$0.impressions, $0.clicks, $0.skips] } == [4, 1, 2])
            #expect(series.first?.creative == "" && series.first?.region == "" && [before, after].contains(series.first!.at))
            // Hourly counts that are not whole hours, or negative, are refused (and nothing is counted).
            await #expect { try await sync.call(SyncAPI.report, EdgeReport(edgeId: "old-edge", reportId: 2, counts: [],
                                                                         hourly: [HourlyCount(id: id, hour: Timestamp(milliseconds: 1_000), impressions: 1)])) }
                throws: { ($0 as? JSONRPCError)?.code == -32602 && ($0 as? JSONRPCError)?.data?["field"] == "hourly[0].hour" }
            await #expect { try await sync.call(SyncAPI.report, EdgeReport(edgeId: "old-edge", reportId: 3, counts: [],
                                                                         hourly: [HourlyCount(id: id, hour: before, impressions: -1)])) }
                throws: { ($0 as? JSONRPCError)?.code == -32602 }
            await sync.close()
        }
    }

    @Test("campaign.stats refuses a series that ends before it starts, spans too long, or names a split twice")
    func refused() async throws {
        try await withCampaignService { fixture in
            let admin = try fixture.admin()
            let now = Timestamp.now()
            for (params, field) in [
                (CampaignStatsParams(from: now, to: now.adding(seconds: -3600)), "to"),
                (CampaignStatsParams(from: now.adding(seconds: -40 * 86_400), to: now, by: .hour), "from"),
                (CampaignStatsParams(from: now.adding(seconds: -400 * 86_400), to: now, by: .day), "from"),
                (CampaignStatsParams(split: [.region, .region]), "split"),
            ] {
                await #expect { try await admin.call(AdminAPI.campaignStats, params) } throws: { error in
                    (error as? JSONRPCError)?.code == -32602 && (error as? JSONRPCError)?.data?["field"] == .string(field)
                }
            }
            await #expect { try await admin.call("campaign.stats", params: ["by": "week"]) } throws: { ($0 as? JSONRPCError)?.code == -32602 }
            #expect(try await admin.call(AdminAPI.campaignStats, CampaignStatsParams(from: now.adding(seconds: -30 * 86_400), by: .hour)).series == [])
            await admin.close()
        }
    }
}
