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
}
