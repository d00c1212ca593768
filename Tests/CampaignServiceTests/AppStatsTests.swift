import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdTesting
import Testing
import ZMQRPC

/// `app.stats` from edges' reports, on both engines (in campaignd's suite, on its cluster).
extension CampaignServiceTests {
    @Test("edge.report's counts by app reach app.stats by hour and day with their fill and show rates; counts out of bounds are refused naming the field", arguments: StoreEngine.allCases)
    func appStats(engine: StoreEngine) async throws {
        try await withCampaignService(engine: engine) { fixture in
            let admin = try fixture.admin()
            let sync = try fixture.sync()
            let hour = HourlyCount.hour(of: .now())
            let earlier = hour.adding(seconds: -3600)
            let taken = try await sync.call(SyncAPI.report, EdgeReport(edgeId: "edge-1", reportId: 1, counts: [], apps: [
                AppHourlyCount(app: "shop", hour: earlier, requests: 40, noAds: 4, timeouts: 6, failures: 2, shows: 27),
                AppHourlyCount(app: "shop", hour: hour, requests: 10, noAds: 2, timeouts: 0, failures: 0, shows: 8),
                AppHourlyCount(app: "news", hour: hour, requests: 5, noAds: 5),
            ]))
            #expect(taken.accepted)
            let byHour = try await admin.call(AdminAPI.appStats, AppStatsParams(app: "shop", from: earlier.adding(seconds: -7200)))
            // fills = 50 - 6 - 6 = 38; fill rate 38/50; show rate 35/38.
            #expect(byHour.totals == AppFunnel(requests: 50, fills: 38, shows: 35, timeouts: 6, failures: 2, fillRate: 0.76, showRate: 35.0 / 38))
            #expect(byHour.series == [
                AppFunnel(at: earlier, requests: 40, fills: 30, shows: 27, timeouts: 6, failures: 2, fillRate: 0.75, showRate: 0.9),
                AppFunnel(at: hour, requests: 10, fills: 8, shows: 8, timeouts: 0, failures: 0, fillRate: 0.8, showRate: 1),
            ])
            #expect(byHour.app == "shop" && byHour.by == .hour && byHour.from == earlier.adding(seconds: -7200))
            let byDay = try await admin.call(AdminAPI.appStats, AppStatsParams(app: "shop", by: .day))
            #expect(byDay.totals == byHour.totals && byDay.series.allSatisfy { $0.at == StatsBucket.day.start(of: $0.at!) })
            let news = try await admin.call(AdminAPI.appStats, AppStatsParams(app: "news"))
            #expect(news.totals.fills == 0 && news.totals.fillRate == 0 && news.totals.showRate == nil)
            // The JSON says null where a rate has no denominator.
            let raw = try await admin.call("app.stats", params: ["app": "news"])
            #expect(raw["totals"]?["showRate"] == .null && raw["totals"]?["fillRate"] == 0)

            // Counts by app are bounded as the campaigns' are, and checked before anything is counted.
            let bad: [(AppHourlyCount, String)] = [
                (AppHourlyCount(app: "shop", hour: hour, requests: PeerNumbers.maxCount + 1), "apps[0]"),
                (AppHourlyCount(app: "shop", hour: hour, shows: -1), "apps[0]"),
                (AppHourlyCount(app: "Shop!", hour: hour, requests: 1), "apps[0].app"),
                (AppHourlyCount(app: "shop", hour: hour.adding(seconds: 60), requests: 1), "apps[0].hour"),
                (AppHourlyCount(app: "shop", hour: hour.adding(seconds: 7200), requests: 1), "apps[0].hour"),
                (AppHourlyCount(app: "shop", hour: hour.adding(seconds: -400 * 86_400), requests: 1), "apps[0].hour"),
            ]
            for (index, (count, field)) in bad.enumerated() {
                await #expect { try await sync.call(SyncAPI.report, EdgeReport(edgeId: "edge-1", reportId: 10 + Int64(index), counts: [], apps: [count])) }
                    throws: { ($0 as? JSONRPCError)?.code == -32602 && ($0 as? JSONRPCError)?.data?["field"] == .string(field) }
            }
            let twice = AppHourlyCount(app: "shop", hour: hour, requests: 1)
            await #expect { try await sync.call(SyncAPI.report, EdgeReport(edgeId: "edge-1", reportId: 20, counts: [], apps: [twice, twice])) }
                throws: { ($0 as? JSONRPCError)?.data?["field"] == "apps[1]" }
            // (More items than the bound do not fit a sync call: checked where the bound is.)
            let many = (0...EdgeReport.maxAppHours).map { AppHourlyCount(app: "a\($0)", hour: hour, requests: 1) }
            #expect { try PeerNumbers.check(EdgeReport(edgeId: "edge-1", reportId: 21, counts: [], apps: many), now: .now(), retention: 86_400) }
                throws: { ($0 as? JSONRPCError)?.data?["field"] == "apps" }
            #expect(try await admin.call(AdminAPI.appStats, AppStatsParams(app: "shop")).totals.requests == 50)
            await sync.close()
            await admin.close()
        }
    }

    @Test("app.stats and one campaign's campaign.stats by day cut days in the app's timezone and say which; every campaign's at once in UTC")
    func statsDaysInAppZone() async throws {
        try await withCampaignService(engine: .sqlite) { fixture in
            let admin = try fixture.admin()
            let sync = try fixture.sync()
            let creative = try await fixture.uploadPNG(admin, seed: 1)
            let id = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(app: "shop", creative: creative)).campaign.id
            _ = try await admin.call(AdminAPI.appSet, AppPatch(app: "shop", market: .global, timezone: "Asia/Shanghai"))
            let shanghai = try #require(DayZone(identifier: "Asia/Shanghai"))
            // The last 30 hours: in UTC+8 they straddle at least one local midnight other than UTC's.
            let now = HourlyCount.hour(of: .now())
            let hours = (0..<30).map { now.adding(seconds: -3600 * Double($0)) }
            _ = try await sync.call(SyncAPI.report, EdgeReport(edgeId: "edge-1", reportId: 1, counts: [CampaignStats(id: id, impressions: 30, clicks: 0, skips: 0)],
                                                               hourly: hours.map { HourlyCount(id: id, hour: $0, sha256: nil, impressions: 1, clicks: 0, skips: 0) },
                                                               apps: hours.map { AppHourlyCount(app: "shop", hour: $0, requests: 1) }))
            let expected = Dictionary(grouping: hours, by: { shanghai.startOfDay(containing: $0) }).mapValues { Int64($0.count) }
                .sorted { $0.key < $1.key }

            let app = try await admin.call(AdminAPI.appStats, AppStatsParams(app: "shop", by: .day))
            #expect(app.timezone == "Asia/Shanghai")
            #expect(app.from == shanghai.startOfDay(containing: app.from))
            #expect(app.series.map(\.at) == expected.map(\.key) && app.series.map(\.requests) == expected.map(\.value))
            let campaign = try await admin.call(AdminAPI.campaignStats, CampaignStatsParams(id: id, by: .day))
            #expect(campaign.timezone == "Asia/Shanghai")
            #expect(campaign.series?.map(\.at) == expected.map(\.key) && campaign.series?.map(\.impressions) == expected.map(\.value))
            // Every campaign at once: UTC days.
            let all = try await admin.call(AdminAPI.campaignStats, CampaignStatsParams(by: .day))
            #expect(all.timezone == "UTC" && all.series?.allSatisfy { $0.at == StatsBucket.day.start(of: $0.at) } == true)
            // Hours stay UTC hours, named with the zone all the same.
            let byHour = try await admin.call(AdminAPI.appStats, AppStatsParams(app: "shop", from: hours.last))
            #expect(byHour.series.map(\.at) == hours.reversed() && byHour.timezone == "Asia/Shanghai")
            await sync.close()
            await admin.close()
        }
    }
}
