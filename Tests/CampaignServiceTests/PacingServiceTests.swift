@testable import CampaignService
import CampaignStore
import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdTesting
import Logging
import Synchronization
import Testing
import ZMQRPC

@Suite("campaignd paces campaigns with goals from the edges' reports", .timeLimit(.minutes(2)))
struct PacingServiceTests {
    @Test("a campaign whose reported impressions meet its goal gets a share of 0 (paced, by pacing, with a seq); one without a goal is left alone",
          arguments: StoreEngine.allCases)
    func goalMet(engine: StoreEngine) async throws {
        // The test ticks the loop itself, each tick after the reports it is about: the service's own loop ticks once
        // at its start and then sleeps an hour, so no tick of its own falls between the two edges' reports (one there
        // would see 610 of 1000 and could publish a share on the way, a change this test does not expect).
        try await withCampaignService(engine: engine, configure: { $0.pacingInterval = .seconds(3600) }) { service in
            let pacing = service.app.pacing
            #expect(await eventually(timeout: .seconds(20)) { pacing.ticks >= 1 }, "the service's loop never ticked")
            let admin = try service.admin(timeout: .seconds(30))
            let sync = try service.sync()
            let creative = try await service.uploadPNG(admin)
            var fields = CampaignFixture.fields(name: "Thousand", creative: creative)
            fields.goal = CampaignGoal(impressions: 1000, per: .campaign)
            // asap: below its goal it is served to every device whatever the rate (an even one would be held back to
            // spread the rest over the hour).
            fields.pacing = .asap
            let paced = try await admin.call(AdminAPI.campaignCreate, fields).campaign
            let plain = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "Plain", creative: creative)).campaign

            // Short of the goal: served to every device, so no share is written.
            _ = try await sync.call(SyncAPI.report, EdgeReport(edgeId: "e1", reportId: 1, counts: [
                CampaignStats(id: paced.id, impressions: 10, clicks: 0, skips: 0), CampaignStats(id: plain.id, impressions: 5000, clicks: 0, skips: 0)]))
            #expect(try await pacing.tick().isEmpty)
            #expect(try await admin.call(AdminAPI.campaignGet, CampaignID(id: paced.id)).campaign.share == nil)
            let early = try await admin.call(AdminAPI.campaignStats, CampaignStatsParams(id: paced.id)).pacing ?? []
            #expect(early.count == 1 && early.first?.delivered == 10 && early.first?.share == 1 && early.first?.completed == false, "\(early)")
            #expect(early.first?.goal == fields.goal && early.first?.from == paced.startsAt && early.first?.to == paced.endsAt)
            #expect(try await admin.call(AdminAPI.campaignStats, CampaignStatsParams(id: plain.id)).pacing == nil)

            // Two edges' counts together meet it: the next tick stops it, in one change.
            _ = try await sync.call(SyncAPI.report, EdgeReport(edgeId: "e1", reportId: 2, counts: [CampaignStats(id: paced.id, impressions: 600, clicks: 0, skips: 0)]))
            _ = try await sync.call(SyncAPI.report, EdgeReport(edgeId: "e2", reportId: 1, counts: [CampaignStats(id: paced.id, impressions: 390, clicks: 0, skips: 0)]))
            let written = try await pacing.tick()
            #expect(written.map(\.id) == [paced.id] && written.first?.campaign.share == 0, "\(written)")
            let stopped = try await admin.call(AdminAPI.campaignGet, CampaignID(id: paced.id)).campaign
            #expect(stopped.share == 0 && stopped.state == .live)
            let line = try #require(try await admin.call(AdminAPI.campaignStats, CampaignStatsParams()).pacing?.first)
            #expect(line.id == paced.id && line.delivered == 1000 && line.share == 0 && line.completed && line.projected == 1000, "\(line)")
            let log = try await admin.call(AdminAPI.changeList, ChangeListParams(id: paced.id)).changes
            #expect(log.map(\.op) == [.created, .updated] && log.last?.actor == "pacing" && log.last?.version == paced.version, "\(log)")
            #expect(log.last?.seq == written.first?.seq, "\(log)")
            #expect(try await admin.call(AdminAPI.changeList, ChangeListParams(id: plain.id)).changes.map(\.op) == [.created])

            // Ticks after it change nothing more: no share published twice.
            for _ in 0..<4 { #expect(try await pacing.tick().isEmpty) }
            #expect(try await admin.call(AdminAPI.changeList, ChangeListParams(id: paced.id)).changes.count == 2)
            await admin.close()
            await sync.close()
        }
    }

    @Test("a goal by day counts the day in the app's time zone (Asia/Kolkata, half an hour off UTC; UTC for an app never set), cut to the flight")
    func dayInTheAppsZone() async throws {
        try await withCampaignService { service in
            let admin = try service.admin(timeout: .seconds(30))
            let sync = try service.sync()
            let creative = try await service.uploadPNG(admin)
            _ = try await admin.call(AdminAPI.appSet, AppPatch(app: "shop", market: .global, timezone: "Asia/Kolkata"))
            var lines: [String: PacingStats] = [:]
            for app in ["shop", "other"] {
                var fields = CampaignFixture.fields(name: "Daily \(app)", app: app, creative: creative, startIn: -3 * 86_400, duration: 6 * 86_400)
                fields.goal = CampaignGoal(impressions: 5000, per: .day)
                let id = try await admin.call(AdminAPI.campaignCreate, fields).campaign.id
                _ = try await sync.call(SyncAPI.report, EdgeReport(edgeId: "e-\(app)", reportId: 1, counts: [CampaignStats(id: id, impressions: 7, clicks: 0, skips: 0)]))
                lines[app] = try #require(try await admin.call(AdminAPI.campaignStats, CampaignStatsParams(id: id)).pacing?.first)
            }
            for (app, zone) in [("shop", "Asia/Kolkata"), ("other", "UTC")] {
                var calendar = Calendar(identifier: .gregorian)
                calendar.timeZone = try #require(TimeZone(identifier: zone))
                let midnight = calendar.startOfDay(for: Date())
                let line = try #require(lines[app])
                #expect(line.from == Timestamp(seconds: midnight.timeIntervalSince1970), "\(app): \(line.from.rfc3339)")
                #expect(line.to == Timestamp(seconds: midnight.timeIntervalSince1970 + 86_400), "\(app): \(line.to.rfc3339)")
                #expect(line.delivered == 7 && !line.completed && line.pace < 1, "\(app): \(line)")
            }
            await admin.close()
            await sync.close()
        }
    }
}

/// A campaignd that restarts, or a new leader, has no memory of the campaigns it paces.
@Suite("Pacing after a restart", .timeLimit(.minutes(1)))
struct PacingRestartTests {
    @Test("a fresh pacing loop starts from the share in the store and measures before it raises it: traffic that needs 0.2 never sees 1")
    func startsFromThePublishedShare() async throws {
        // The service's own loop ticks once at its start and then sleeps an hour: the loop under test is a second one.
        try await withCampaignService(configure: { $0.pacingInterval = .seconds(3600) }) { service in
            let admin = try service.admin(timeout: .seconds(30))
            let sync = try service.sync()
            let (paced, pacing, clock) = try await HandTicked.start(service, admin, name: "Half way")
            // What the leader before had published, and on pace: half the goal delivered at half the flight.
            _ = try await service.app.store.pace([CampaignShare(id: paced.id, share: 0.2)], now: clock.now)
            _ = try await sync.call(SyncAPI.report, EdgeReport(edgeId: "e1", reportId: 1, counts: [
                CampaignStats(id: paced.id, impressions: 43_200, clicks: 0, skips: 0)]))
            // Traffic of 5 a second at a share of 1, so 1 a second at 0.2: what the goal needs.
            var shares: [Double?] = []
            for tick in 1...8 {
                _ = try await pacing.tick()
                shares.append(try await admin.call(AdminAPI.campaignGet, CampaignID(id: paced.id)).campaign.share)
                let served = Int64(10 * 5 * ((shares.last ?? 1) ?? 1))
                _ = try await sync.call(SyncAPI.report, EdgeReport(edgeId: "e1", reportId: Int64(tick + 1), counts: [
                    CampaignStats(id: paced.id, impressions: served, clicks: 0, skips: 0)]))
                clock.advance(seconds: 10)
            }
            #expect(shares.allSatisfy { ($0 ?? 1) <= 0.25 }, "\(shares)")
            await admin.close()
            await sync.close()
        }
    }
}

/// The pacing service outlives each leadership term (each `run()`): what it measured in one is not carried into the next.
@Suite("Pacing's memory across terms", .timeLimit(.minutes(1)))
struct PacingTermTests {
    @Test("a new run() forgets what the last term remembered and answered, and a memory older than three intervals is not used")
    func forgetsBetweenTerms() async throws {
        try await withCampaignService(configure: { $0.pacingInterval = .seconds(3600) }) { service in
            let admin = try service.admin(timeout: .seconds(30))
            let (paced, pacing, clock) = try await HandTicked.start(service, admin, name: "Termed")
            // Two ticks 10 s apart: the second builds on the first (both shares are in its memory).
            _ = try await pacing.tick()
            clock.advance(seconds: 10)
            _ = try await pacing.tick()
            #expect(pacing.memory(of: paced.id)?.recent.count == 2)
            // 40 s later (more than three intervals): measured afresh, only this tick's share remembered.
            clock.advance(seconds: 40)
            _ = try await pacing.tick()
            #expect(pacing.memory(of: paced.id)?.recent.count == 1)
            clock.advance(seconds: 10)
            _ = try await pacing.tick()
            #expect(pacing.memory(of: paced.id)?.recent.count == 2)
            // A new term: its first tick starts from the store alone.
            let ticks = pacing.ticks
            clock.advance(seconds: 10)
            let term = Task { try await pacing.run() }
            #expect(await eventually(timeout: .seconds(20)) { pacing.ticks > ticks })
            term.cancel()
            #expect(pacing.memory(of: paced.id)?.recent.count == 1)
            await admin.close()
        }
    }
}

/// A pacing loop a test ticks by hand, on a clock it moves, over a campaign halfway through a day-long flight with a
/// goal of one impression a second (so on pace at half of it): what the restart and term tests pace.
final class HandTicked: Sendable {
    private let milliseconds = Atomic<Int64>(Timestamp.now().milliseconds)

    var now: Timestamp { Timestamp(milliseconds: milliseconds.load(ordering: .relaxed)) }

    func advance(seconds: Int64) { milliseconds.add(seconds * 1000, ordering: .relaxed) }

    /// The campaign (created through `admin`), a pacing loop of 10 s over `service`'s store on the clock, and the clock.
    static func start(_ service: InProcessCampaignService, _ admin: RPCClient, name: String) async throws
        -> (paced: Campaign, pacing: PacingService, clock: HandTicked) {
        let creative = try await service.uploadPNG(admin)
        var fields = CampaignFixture.fields(name: name, creative: creative, startIn: -43_200, duration: 86_400)
        fields.goal = CampaignGoal(impressions: 86_400, per: .campaign)
        let paced = try await admin.call(AdminAPI.campaignCreate, fields).campaign
        let clock = HandTicked()
        let pacing = PacingService(store: service.app.store, clock: { clock.now }, interval: .seconds(10), logger: Logger(label: "pacing-by-hand"))
        return (paced, pacing, clock)
    }
}
