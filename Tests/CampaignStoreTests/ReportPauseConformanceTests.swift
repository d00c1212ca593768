import CampaignStore
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdTesting
import Testing

/// Reports of ads in the store, and the per-app threshold that pauses a reported campaign, alike on both engines (in
/// the store's suite, on its cluster).
extension StoreConformanceTests {
    static func reported(_ id: Int64, _ reasons: ReportReasons, hours: Double = 0) -> HourlyCount {
        HourlyCount(id: id, hour: HourlyCount.hour(of: now).adding(seconds: hours * 3600), reasons: reasons)
    }

    /// The changes of campaign `id` as (operation, actor), oldest first.
    static func log(_ store: any Store, _ id: Int64) async throws -> [String] {
        try await store.changeLog(campaign: id, after: 0, limit: 100).map { "\($0.change.op.rawValue) by \($0.actor)" }
    }

    @Test("reports are counted by campaign, hour and reason; a campaign whose reports of an hour cross its app's reportPause is paused once, by rules, and not again by one more after a resume", arguments: StoreEngine.allCases)
    func reportPause(engine: StoreEngine) async throws {
        try await Self.withStore(engine) { store, _ in
            let creative = try await Self.storeCreative(store)
            _ = try await store.setApp(AppPatch(app: "shop", market: .global, reportPause: 3), actor: "alice", now: Self.now)
            let one = try await store.create(Self.fields("one", creative: creative.sha256), actor: "local", now: Self.now).id
            var quiet = Self.fields("quiet", creative: creative.sha256)
            quiet.app = "news"  // no threshold: counted, never paused
            let other = try await store.create(quiet, actor: "local", now: Self.now).id
            #expect(try await store.campaign(id: one)?.state == .live)

            // Two reports: under the threshold.
            let first = ReportReasons(misleading: 2)
            try await store.addReport(edgeId: "e1", reportId: 1, counts: [CampaignStats(id: one, impressions: 0, clicks: 0, skips: 0, reasons: first)],
                                      hourly: [Self.reported(one, first), Self.reported(other, ReportReasons(other: 50))], apps: [], region: "eu", now: Self.now)
            #expect(try await store.campaign(id: one)?.state == .live)
            // A third from another edge and region, in the same hour: paused, by rules.
            let third = ReportReasons(inappropriate: 1)
            try await store.addReport(edgeId: "e2", reportId: 1, counts: [CampaignStats(id: one, impressions: 0, clicks: 0, skips: 0, reasons: third)],
                                      hourly: [Self.reported(one, third)], apps: [], region: "us", now: Self.now)
            #expect(try await store.campaign(id: one)?.state == .paused)
            #expect(try await Self.log(store, one) == ["created by local", "paused by rules"])
            // More while paused: counted, not paused again; a resent report adds nothing.
            let more = ReportReasons(other: 2)
            let again = [CampaignStats(id: one, impressions: 0, clicks: 0, skips: 0, reasons: more)]
            #expect(try await store.addReport(edgeId: "e1", reportId: 2, counts: again, hourly: [Self.reported(one, more)], apps: [], region: "eu", now: Self.now).taken)
            #expect(try await store.addReport(edgeId: "e1", reportId: 2, counts: again, hourly: [Self.reported(one, more)], apps: [], region: "eu", now: Self.now).taken == false)
            #expect(try await Self.log(store, one) == ["created by local", "paused by rules"])
            // Resumed by an operator, then reported again within the hour, already past the threshold: not paused again.
            _ = try await store.apply(.resumed, id: one, actor: "alice", now: Self.now)
            let last = ReportReasons(repetitive: 1)
            try await store.addReport(edgeId: "e3", reportId: 1, counts: [CampaignStats(id: one, impressions: 0, clicks: 0, skips: 0, reasons: last)],
                                      hourly: [Self.reported(one, last)], apps: [], region: "eu", now: Self.now)
            #expect(try await Self.log(store, one) == ["created by local", "paused by rules", "resumed by alice"])
            #expect(try await store.campaign(id: one)?.state == .live)
            #expect(try await store.campaign(id: other)?.state == .live)

            // The counts: totals, by reason, in the series, and listed by campaign.
            let reasons = ReportReasons(inappropriate: 1, misleading: 2, repetitive: 1, other: 2)
            #expect(try await store.stats(id: one) == [CampaignStats(id: one, impressions: 0, clicks: 0, skips: 0, reports: 6, reasons: reasons)])
            let hour = HourlyCount.hour(of: Self.now)
            #expect(try await store.statsSeries(StatsQuery(id: one, from: hour, to: hour.adding(seconds: 3600), by: .hour, byCreative: false, byRegion: false))
                    .map(\.reports) == [6])
            let listed = try await store.reportedCampaigns(app: nil, since: nil, limit: 10)
            #expect(listed == [
                ReportedCampaign(id: other, name: "quiet", app: "news", total: 50, reasons: ReportReasons(other: 50), lastAt: hour),
                ReportedCampaign(id: one, name: "one", app: "shop", total: 6, reasons: reasons, lastAt: hour),
            ])
            #expect(try await store.reportedCampaigns(app: "shop", since: nil, limit: 10).map(\.id) == [one])
            #expect(try await store.reportedCampaigns(app: nil, since: nil, limit: 1).map(\.id) == [other])
            #expect(try await store.reportedCampaigns(app: nil, since: hour.adding(seconds: 3600), limit: 10).isEmpty)
        }
    }

    @Test("reports from many edges at once reaching the threshold together pause the campaign once", arguments: StoreEngine.allCases)
    func reportPauseAtOnce(engine: StoreEngine) async throws {
        try await Self.withStore(engine) { store, _ in
            let creative = try await Self.storeCreative(store)
            _ = try await store.setApp(AppPatch(app: "shop", market: .global, reportPause: 2), actor: "alice", now: Self.now)
            let id = try await store.create(Self.fields("one", creative: creative.sha256), actor: "local", now: Self.now).id
            try await withThrowingTaskGroup(of: Void.self) { group in
                for edge in 0..<8 {
                    group.addTask {
                        let reasons = ReportReasons(inappropriate: 1)
                        try await store.addReport(edgeId: "e\(edge)", reportId: 1, counts: [CampaignStats(id: id, impressions: 0, clicks: 0, skips: 0, reasons: reasons)],
                                                  hourly: [Self.reported(id, reasons)], apps: [], region: "r\(edge)", now: Self.now)
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await Self.log(store, id) == ["created by local", "paused by rules"])
            #expect(try await store.stats(id: id).first?.reports == 8)
        }
    }

    @Test("the threshold pauses only when a report crosses it, in the clock's current or previous hour, never for an hour before the last resume", arguments: StoreEngine.allCases)
    func reportPauseCrossing(engine: StoreEngine) async throws {
        try await Self.withStore(engine) { store, _ in
            let creative = try await Self.storeCreative(store)
            _ = try await store.setApp(AppPatch(app: "shop", market: .global, reportPause: 3), actor: "alice", now: Self.now)
            var fields = Self.fields("one", creative: creative.sha256)
            fields.endsAt = Self.now.adding(seconds: 4 * 3600)
            let id = try await store.create(fields, actor: "local", now: Self.now).id
            let later = Self.now.adding(seconds: 3600 + 60)
            var reportId: Int64 = 0
            func report(_ reasons: ReportReasons, hours: Double, now: Timestamp) async throws {
                reportId += 1
                try await store.addReport(edgeId: "e1", reportId: reportId, counts: [CampaignStats(id: id, impressions: 0, clicks: 0, skips: 0, reasons: reasons)],
                                          hourly: [Self.reported(id, reasons, hours: hours)], apps: [], region: "eu", now: now)
            }
            // A late report of an hour two hours back crosses it: too old to pause.
            try await report(ReportReasons(misleading: 3), hours: -2, now: Self.now)
            #expect(try await store.campaign(id: id)?.state == .live)
            // The previous hour crossing it: paused.
            try await report(ReportReasons(misleading: 3), hours: -1, now: Self.now)
            #expect(try await Self.log(store, id) == ["created by local", "paused by rules"])
            // Resumed in the next hour; the hour before the resume crossing it (a late report) pauses nothing.
            _ = try await store.apply(.resumed, id: id, actor: "alice", now: later)
            try await report(ReportReasons(misleading: 3), hours: 0, now: later)
            #expect(try await store.campaign(id: id)?.state == .live)
            // The hour of the resume: two reports, then a third crossing it: paused again.
            try await report(ReportReasons(other: 2), hours: 1, now: later)
            #expect(try await store.campaign(id: id)?.state == .live)
            try await report(ReportReasons(other: 1), hours: 1, now: later)
            #expect(try await Self.log(store, id) == ["created by local", "paused by rules", "resumed by alice", "paused by rules"])
            // Resumed again, one more of that hour: past the threshold already, not crossing it.
            _ = try await store.apply(.resumed, id: id, actor: "alice", now: later)
            try await report(ReportReasons(other: 1), hours: 1, now: later)
            #expect(try await Self.log(store, id) == ["created by local", "paused by rules", "resumed by alice", "paused by rules", "resumed by alice"])
            #expect(try await store.stats(id: id).first?.reports == 13)
        }
    }

    @Test("a report of totals alone (an edge's fallback when its hours are refused) keeps its reasons", arguments: StoreEngine.allCases)
    func reportTotalsReasons(engine: StoreEngine) async throws {
        try await Self.withStore(engine) { store, _ in
            let creative = try await Self.storeCreative(store)
            let id = try await store.create(Self.fields("one", creative: creative.sha256), actor: "local", now: Self.now).id
            let reasons = ReportReasons(misleading: 2, other: 1)
            let report = EdgeReport(edgeId: "e1", reportId: 1, counts: [CampaignStats(id: id, impressions: 4, clicks: 0, skips: 0, reasons: reasons)], hourly: nil)
            try await store.addReport(edgeId: "e1", reportId: 1, counts: report.counts, hourly: ReportHours.hourly(of: report, receivedAt: Self.now),
                                      apps: [], region: "", now: Self.now)
            #expect(try await store.stats(id: id) == [CampaignStats(id: id, impressions: 4, clicks: 0, skips: 0, reports: 3, reasons: reasons)])
        }
    }
}
