import Foundation
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdKit
import LaunchAdTesting
import Locking
import Testing

@Suite("reports: once per event, kept across a kill, retried with backoff", .timeLimit(.minutes(2)))
struct ReportQueueTests {
    @Test("events queued while the edge is away survive a kill (a new SDK over the same folder) and are counted once")
    func surviveAKill() async throws {
        try await withKitWorld { world in
            _ = try await world.create()
            let clock = ManualClock()
            let state = world.folder.appendingPathComponent("device")
            // The ad from another folder: this one's queue holds only the session's events (not that launch's funnel).
            let ad = try #require(await world.client(.fresh, clock: clock).launch().ad)

            // The edge out of reach: the events wait in the folder, and a failed send backs off.
            let away = try world.client(clock: clock, state: state, edge: KitWorld.unreachable)
            let impression = try await away.record(.impression, of: ad, launch: "launch-1")
            let click = try await away.record(.click, of: ad, launch: "launch-1")
            try await away.record(.impression, of: ad, launch: "launch-1")  // the same event again: once
            var flush = await away.flushReports()
            #expect(flush.accepted == 0 && flush.pending == 2 && !flush.deferred)
            flush = await away.flushReports()
            #expect(flush.deferred && flush.pending == 2)
            clock.advance(by: 1.5)
            flush = await away.flushReports()
            #expect(!flush.deferred && flush.pending == 2)  // tried again, failed again: now 2 s
            clock.advance(by: 1)
            #expect(await away.flushReports().deferred)

            // "Killed": a new SDK over the same folder, the edge back.
            let reports = state.appendingPathComponent("reports.json")
            let beforeSending = try Data(contentsOf: reports)
            let back = try world.client(clock: clock, state: state)
            #expect(Set(await back.pendingReports()) == [impression, click])
            clock.advance(by: 5)
            flush = await back.flushReports()
            #expect(flush.accepted == 2 && flush.duplicates == 0 && flush.pending == 0)
            #expect(await back.flushReports() == ReportFlush())
            try await back.record(.click, of: ad, launch: "launch-1")  // delivered already: not queued again
            #expect(await back.pendingReports().isEmpty)
            // A launch id the edge's event ids cannot hold is refused here, not lost there.
            await #expect(throws: LaunchAdClient.InvalidLaunchId.self) {
                try await back.record(.impression, of: ad, launch: String(repeating: "x", count: 60))
            }

            // Killed after sending and before noting it: sent again, the edge counts it once.
            try beforeSending.write(to: reports)
            let again = try world.client(clock: clock, state: state)
            flush = await again.flushReports(force: true)
            #expect(flush.accepted == 0 && flush.duplicates == 2 && flush.pending == 0)
        }
    }

    @Test("the user's report of the ad shown goes as launch.report kind reported with its reason: once per launch, kept across a kill, counted by campaignd by reason")
    func reportedAd() async throws {
        try await withKitWorld { world in
            let campaign = try await world.create()
            let clock = ManualClock()
            let state = world.folder.appendingPathComponent("reporting")
            let ad = try #require(await world.client(.fresh, clock: clock).launch().ad)
            let away = try world.client(clock: clock, state: state, edge: KitWorld.unreachable)
            let once = try await away.report(ad, reason: .misleading, launch: "launch-1")
            #expect(once == "launch-1-reported")
            try await away.report(ad, reason: .misleading, launch: "launch-1")  // the same launch's report again: once
            let loose = try await away.report(ad, reason: .inappropriate)
            #expect(loose != once && loose.utf8.count <= 64)
            await #expect(throws: LaunchAdClient.InvalidLaunchId.self) { try await away.report(ad, reason: .other, launch: "") }
            #expect(await away.flushReports().pending == 2)
            // A new SDK over the same folder, the edge back: both sent; the edge counts one report of a campaign per
            // device and hour, so the second is a duplicate there.
            let back = try world.client(clock: clock, state: state)
            #expect(Set(await back.pendingReports()) == [once, loose])
            let flush = await back.flushReports(force: true)
            #expect(flush.accepted == 1 && flush.duplicates == 1 && flush.rejected == 0 && flush.pending == 0, "\(flush)")
            var stats: CampaignStats?
            #expect(await eventually(timeout: .seconds(10)) {
                stats = try? await world.admin.call(AdminAPI.campaignStats, CampaignStatsParams(id: campaign.id)).stats.first
                return stats?.reports == 1
            }, "\(String(describing: stats))")
            #expect(stats?.reasons?.total == 1)
        }
    }

    @Test("reports the edge could not take at once keep their times: one made two hours ago is counted in its hour; one made 7.5 days ago, sent, is refused its time by the edge and given up, not counted now; one made 9 days ago is dropped unsent")
    func reportKeepsItsHour() async throws {
        try await withKitWorld { world in
            let campaign = try await world.create()
            let ad = try #require(await world.client(.fresh).launch().ad)
            let now = Date()
            let clock = ManualClock(now.addingTimeInterval(-9 * 86_400))
            let state = world.folder.appendingPathComponent("late")
            let away = try world.client(clock: clock, state: state, edge: KitWorld.unreachable)
            let stale = try await away.report(ad, reason: .other, launch: "launch-s")
            clock.set(now.addingTimeInterval(-7.5 * 86_400))
            let old = try await away.report(ad, reason: .other, launch: "launch-0")
            clock.set(now.addingTimeInterval(-7_200))
            let recent = try await away.report(ad, reason: .misleading, launch: "launch-1")
            let offline = await away.flushReports()
            #expect(offline.pending == 2 && offline.dropped == 1, "the 9 days old given up unsent, the others kept: \(offline)")

            clock.set(now)
            let back = try world.client(clock: clock, state: state)
            let flush = await back.flushReports(force: true)
            #expect(flush.accepted == 1 && flush.rejected == 1 && flush.dropped == 0 && flush.pending == 0, "\(flush)")
            #expect(await back.pendingReports().isEmpty && Set([stale, old, recent]).count == 3)
            let made = HourlyCount.hour(of: Timestamp(seconds: now.addingTimeInterval(-7_200).timeIntervalSince1970))
            var series: [StatsPoint] = []
            #expect(await eventually(timeout: .seconds(10)) {
                let result = try? await world.admin.call(AdminAPI.campaignStats, CampaignStatsParams(
                    id: campaign.id, from: Timestamp(seconds: now.timeIntervalSince1970 - 4 * 3_600), by: .hour))
                series = result?.series ?? []
                return result?.stats.first?.reports == 1
            })
            #expect(series.filter { ($0.reports ?? 0) > 0 }.map(\.at) == [made], "\(series)")
        }
    }

    @Test("a played launch reports its impression and skip, each once, and the timeline follows the clock")
    func playedLaunch() async throws {
        try await withKitWorld { world in
            let campaign = try await world.create { fields in
                fields.countdown = 3
                fields.skipAfter = 1
            }
            let clock = ManualClock()
            let sdk = try world.client(.fresh, clock: clock)
            let events = EventLog()
            let reason = await sdk.play(user: UserScript(skipAt: 0.5)) { events.append($0) }
            #expect(reason == .countdown)  // the tap at 0.5 s came before skip was allowed
            let seen = events.all
            #expect(Array(seen.prefix(2)) == [.waiting, .show(campaignId: campaign.id, version: campaign.version, sha256: world.creative, source: .fresh)])
            #expect(seen.contains(.tick(secondsLeft: 3, skipAllowed: false)) && seen.contains(.tick(secondsLeft: 2, skipAllowed: true)))
            #expect(seen.contains(.end(.countdown, jump: nil)))
            #expect(seen.filter { if case .report(_, _, true) = $0 { true } else { false } }.count == 1)

            let skipped = EventLog()
            #expect(await sdk.play(user: UserScript(skipAt: 1.5)) { skipped.append($0) } == .skip)
            let reports = skipped.all.compactMap { event -> ReportKind? in
                if case .report(let kind, _, let sent) = event, sent { kind } else { nil }
            }
            #expect(reports == [.impression, .skip])
            #expect(skipped.all.contains(.end(.skip, jump: nil)))
        }
    }
}

/// Events a callback saw.
final class EventLog: Sendable {
    private let events = Locked<[PlaybackEvent]>([])
    func append(_ event: PlaybackEvent) { events.withLock { $0.append(event) } }
    var all: [PlaybackEvent] { events.withLock { $0 } }
}
