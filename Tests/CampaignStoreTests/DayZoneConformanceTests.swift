import CampaignStore
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdTesting
import Testing

/// Series by day cut in an app's time zone, on both engines (in the conformance suite, on its cluster).
extension StoreConformanceTests {
    static func utc(_ text: String) -> Timestamp { Timestamp(rfc3339: text)! }

    @Test("a series by day sums the hours whose start falls in each local day, across a change to summer time, by app and by campaign", arguments: StoreEngine.allCases)
    func daysInZone(engine: StoreEngine) async throws {
        let newYork = try #require(DayZone(identifier: "America/New_York"))
        let shanghai = try #require(DayZone(identifier: "Asia/Shanghai"))
        try await Self.withStore(engine) { store, _ in
            // New York went from UTC-5 to UTC-4 at 07:00Z on 2026-03-08: that local day began at 05:00Z and the next
            // at 04:00Z. 04:00Z is still 7 March there; 03:00Z on the 9th is 23:00 on the 8th.
            let hours = ["2026-03-07T12:00:00Z", "2026-03-08T04:00:00Z", "2026-03-08T05:00:00Z", "2026-03-09T03:00:00Z",
                         "2026-03-09T04:00:00Z"].map(Self.utc)
            try await store.addReport(edgeId: "e1", reportId: 1, counts: [], hourly: [],
                                      apps: hours.map { AppHourlyCount(app: "shop", hour: $0, requests: 1) }, region: "")
            let from = Self.utc("2026-03-06T00:00:00Z"), to = Self.utc("2026-03-10T00:00:00Z")
            let days = try await store.appSeries(AppStatsQuery(app: "shop", from: from, to: to, by: .day, zone: newYork))
            #expect(days.map(\.hour) == ["2026-03-07T05:00:00Z", "2026-03-08T05:00:00Z", "2026-03-09T04:00:00Z"].map(Self.utc))
            #expect(days.map(\.requests) == [2, 2, 1])
            // The same hours in UTC days, and in Shanghai's (UTC+8, days from 16:00Z).
            #expect(try await store.appSeries(AppStatsQuery(app: "shop", from: from, to: to, by: .day)).map(\.requests) == [1, 2, 2])
            let east = try await store.appSeries(AppStatsQuery(app: "shop", from: from, to: to, by: .day, zone: shanghai))
            #expect(east.map(\.hour) == ["2026-03-06T16:00:00Z", "2026-03-07T16:00:00Z", "2026-03-08T16:00:00Z"].map(Self.utc))
            #expect(east.map(\.requests) == [1, 2, 2])
            // Hours are hours whatever the zone.
            #expect(try await store.appSeries(AppStatsQuery(app: "shop", from: from, to: to, by: .hour, zone: newYork)).map(\.hour) == hours)

            let creative = try await Self.storeCreative(store)
            let id = try await store.create(Self.fields("one", creative: creative.sha256), actor: "local", now: hours[0]).id
            try await store.addReport(edgeId: "e1", reportId: 2, counts: [], hourly: hours.map {
                HourlyCount(id: id, hour: $0, sha256: nil, impressions: 1, clicks: 0, skips: 0)
            }, region: "")
            let series = try await store.statsSeries(StatsQuery(id: id, from: from, to: to, by: .day, byCreative: false, byRegion: false,
                                                                zone: newYork))
            #expect(series.map(\.at) == days.map(\.hour) && series.map(\.impressions) == [2, 2, 1])
        }
    }
}
