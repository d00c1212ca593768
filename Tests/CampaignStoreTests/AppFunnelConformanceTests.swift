import CampaignStore
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdTesting
import Testing

/// The counts by app and hour behind `app.stats`, on both engines (in the conformance suite, on its cluster).
extension StoreConformanceTests {
    static func app(_ app: String, _ hours: Double, requests: Int64 = 0, noAds: Int64 = 0, timeouts: Int64 = 0, failures: Int64 = 0,
                    shows: Int64 = 0) -> AppHourlyCount {
        AppHourlyCount(app: app, hour: hour.adding(seconds: hours * 3600), requests: requests, noAds: noAds, timeouts: timeouts,
                       failures: failures, shows: shows)
    }

    @Test("counts by app and hour are added once per report, summed by hour or day with saturating sums, give the same rates, and are forgotten with the campaigns' hours", arguments: StoreEngine.allCases)
    func appFunnel(engine: StoreEngine) async throws {
        try await Self.withStore(engine) { store, _ in
            try await store.addReport(edgeId: "e1", reportId: 1, counts: [], hourly: [], apps: [
                Self.app("shop", 0, requests: 10, noAds: 1, timeouts: 2, failures: 1, shows: 6),
                Self.app("shop", 1, requests: 4, timeouts: 1, shows: 3),
                Self.app("news", 0, requests: 3, noAds: 3),
            ], region: "eu")
            try await store.addReport(edgeId: "e2", reportId: 1, counts: [], hourly: [], apps: [
                Self.app("shop", 0, requests: 6, noAds: 1, shows: 4), Self.app("shop", -30, requests: 1),
            ], region: "us")
            // A resend adds nothing.
            #expect(try await store.addReport(edgeId: "e1", reportId: 1, counts: [], hourly: [], apps: [Self.app("shop", 0, requests: 50)],
                                              region: "eu").taken == false)
            func query(_ app: String, by: StatsBucket = .hour, from: Double = -2, to: Double = 3) -> AppStatsQuery {
                AppStatsQuery(app: app, from: Self.hour.adding(seconds: from * 3600), to: Self.hour.adding(seconds: to * 3600), by: by)
            }
            func at(_ hours: Double) -> Timestamp { Self.hour.adding(seconds: hours * 3600) }
            let shop = try await store.appSeries(query("shop"))
            #expect(shop == [Self.app("shop", 0, requests: 16, noAds: 2, timeouts: 2, failures: 1, shows: 10),
                             Self.app("shop", 1, requests: 4, timeouts: 1, shows: 3)])
            // The rates from what the store answers: fills = 20 - 2 - 3 = 15, fill rate 15/20, show rate 13/15.
            let funnel = AppFunnel(shop)
            #expect(funnel == AppFunnel(requests: 20, fills: 15, shows: 13, timeouts: 3, failures: 1, fillRate: 0.75, showRate: 13.0 / 15))
            // An app with nothing but noAd: no fill, a fill rate of 0 and no show rate.
            #expect(AppFunnel(try await store.appSeries(query("news"))) == AppFunnel(requests: 3, fills: 0, shows: 0, timeouts: 0, failures: 0,
                                                                                      fillRate: 0, showRate: nil))
            let day = StatsBucket.day.start(of: Self.hour)
            #expect(try await store.appSeries(query("shop", by: .day, from: -48, to: 24)) == [
                AppHourlyCount(app: "shop", hour: day.adding(seconds: -86_400), requests: 1),
                AppHourlyCount(app: "shop", hour: day, requests: 20, noAds: 2, timeouts: 3, failures: 1, shows: 13),
            ])
            #expect(try await store.appSeries(query("shop", from: 0, to: 1)).map(\.hour) == [at(0)])
            #expect(try await store.appSeries(query("nobody")).isEmpty)
            // Sums stop at Int64.max, in the rows and in a series.
            let near = Int64.max - 5
            try await store.addReport(edgeId: "e3", reportId: 1, counts: [], hourly: [], apps: [Self.app("big", 0, requests: near)], region: "")
            try await store.addReport(edgeId: "e3", reportId: 2, counts: [], hourly: [], apps: [Self.app("big", 0, requests: 10), Self.app("big", 1, requests: near)], region: "")
            #expect(try await store.appSeries(query("big")).map(\.requests) == [Int64.max, near])
            #expect(try await store.appSeries(query("big", by: .day, from: -24, to: 24)).map(\.requests) == [Int64.max])
            // The retention: hours before the cutoff go, by app as by campaign.
            #expect(try await store.forgetHourlyStats(before: at(0)) == 1)
            #expect(try await store.appSeries(query("shop", from: -48)).map(\.hour) == [at(0), at(1)])
        }
    }
}
