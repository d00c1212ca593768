import CampaignStore
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdTesting
import Testing

/// The hourly counts behind `campaign.stats` series, on both engines (in the conformance suite, on its cluster).
extension StoreConformanceTests {
    static let hour = Timestamp(rfc3339: "2026-11-25T10:00:00Z")!
    static let a = String(repeating: "a", count: 64), b = String(repeating: "b", count: 64)

    static func count(_ id: Int64, _ hours: Double, _ sha256: String?, _ impressions: Int64, clicks: Int64 = 0, skips: Int64 = 0) -> HourlyCount {
        HourlyCount(id: id, hour: hour.adding(seconds: hours * 3600), sha256: sha256, impressions: impressions, clicks: clicks, skips: skips)
    }

    @Test("hourly counts are added by campaign, hour, creative and region; a series sums them by hour or day, split or not, and old hours are forgotten", arguments: StoreEngine.allCases)
    func statsSeries(engine: StoreEngine) async throws {
        try await Self.withStore(engine) { store, _ in
            let creative = try await Self.storeCreative(store)
            let one = try await store.create(Self.fields("one", creative: creative.sha256), actor: "local", now: Self.hour).id
            let two = try await store.create(Self.fields("two", creative: creative.sha256), actor: "local", now: Self.hour).id
            let totals = [CampaignStats(id: one, impressions: 6, clicks: 1, skips: 1), CampaignStats(id: two, impressions: 1, clicks: 0, skips: 0)]
            try await store.addReport(edgeId: "e1", reportId: 1, counts: totals, hourly: [
                Self.count(one, 0, Self.a, 2, clicks: 1), Self.count(one, 0, Self.b, 1), Self.count(one, 1, Self.a, 1, skips: 1), Self.count(two, 0, nil, 1),
            ], region: "eu")
            try await store.addReport(edgeId: "e2", reportId: 1, counts: [], hourly: [Self.count(one, 0, Self.a, 1), Self.count(one, -30, nil, 1)], region: "us")
            // A resend adds nothing, hourly counts included.
            #expect(try await store.addReport(edgeId: "e1", reportId: 1, counts: totals, hourly: [Self.count(one, 0, Self.a, 50)], region: "eu").taken == false)

            func query(_ id: Int64?, by: StatsBucket = .hour, creative: Bool = false, region: Bool = false, from: Double = -2, to: Double = 3) -> StatsQuery {
                StatsQuery(id: id, from: Self.hour.adding(seconds: from * 3600), to: Self.hour.adding(seconds: to * 3600), by: by,
                           byCreative: creative, byRegion: region)
            }
            func at(_ hours: Double) -> Timestamp { Self.hour.adding(seconds: hours * 3600) }
            #expect(try await store.statsSeries(query(one)) == [
                StatsPoint(id: one, at: at(0), impressions: 4, clicks: 1, skips: 0, reports: 0),
                StatsPoint(id: one, at: at(1), impressions: 1, clicks: 0, skips: 1, reports: 0),
            ])
            #expect(try await store.statsSeries(query(one, creative: true, region: true)) == [
                StatsPoint(id: one, at: at(0), creative: Self.a, region: "eu", impressions: 2, clicks: 1, skips: 0, reports: 0),
                StatsPoint(id: one, at: at(0), creative: Self.a, region: "us", impressions: 1, clicks: 0, skips: 0, reports: 0),
                StatsPoint(id: one, at: at(0), creative: Self.b, region: "eu", impressions: 1, clicks: 0, skips: 0, reports: 0),
                StatsPoint(id: one, at: at(1), creative: Self.a, region: "eu", impressions: 1, clicks: 0, skips: 1, reports: 0),
            ])
            #expect(try await store.statsSeries(query(nil, region: true, to: 1)) == [
                StatsPoint(id: one, at: at(0), region: "eu", impressions: 3, clicks: 1, skips: 0, reports: 0),
                StatsPoint(id: one, at: at(0), region: "us", impressions: 1, clicks: 0, skips: 0, reports: 0),
                StatsPoint(id: two, at: at(0), region: "eu", impressions: 1, clicks: 0, skips: 0, reports: 0),
            ])
            let day = StatsBucket.day.start(of: Self.hour)
            #expect(try await store.statsSeries(query(one, by: .day, from: -48, to: 24)) == [
                StatsPoint(id: one, at: day.adding(seconds: -86_400), impressions: 1, clicks: 0, skips: 0, reports: 0),
                StatsPoint(id: one, at: day, impressions: 5, clicks: 1, skips: 1, reports: 0),
            ])
            // A deleted campaign is left out of every campaign's series, not of its own.
            _ = try await store.apply(.deleted, id: two, actor: "local", now: Self.hour)
            #expect(try await store.statsSeries(query(nil)).map(\.id) == [one, one])
            #expect(try await store.statsSeries(query(two)).count == 1)
            // The retention: hours before the cutoff go, the totals stay.
            #expect(try await store.forgetHourlyStats(before: at(0)) == 1)
            #expect(try await store.statsSeries(query(one, from: -48)).map(\.at) == [at(0), at(1)])
            #expect(try await store.stats(id: one).first?.impressions == 6)
        }
    }
}
