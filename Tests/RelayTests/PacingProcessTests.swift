import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdTesting
import Testing
import ZMQRPC

/// Pacing end to end with real processes: campaignd pacing every second, a relay, and two edges below it shipping
/// their counts every second, with an edge killed (SIGKILL) in the middle of the flight and restarted on its cache.
/// The test plays the apps: launches from new devices on both edges, each impression shown reported to the edge that
/// answered it, so it knows every impression delivered and can hold campaignd's counts to them. The same flight on
/// both store engines: campaignd on SQLite, then on PostgreSQL (one at a time, each timing-bound flight alone).
@Suite("pacing through a relay and two edge processes, one killed mid-flight", .serialized, .timeLimit(.minutes(3)), .sharedPostgresCluster)
struct PacingProcessTests {
    /// Launches a second per app on each edge: 20 a second per app with both edges up.
    static let launchesPerSecond = 10
    /// The asap goal (met after about 15 s of both edges' traffic), and the even goal over its 40 s flight (a third of
    /// what the traffic could deliver in it).
    static let asapGoal = 300
    static let evenGoal = 250
    static let evenFlight = 40.0

    @Test("an asap goal and an even goal through a relay: never over by 5%, the met campaign stops being answered on both edges, and the killed edge's impressions are counted once each",
          arguments: StoreEngine.allCases)
    func goalsWithAnEdgeKilled(engine: StoreEngine) async throws {
        try await withCampaignFixture(engine: engine, arguments: ["--pacing-interval", "1s"]) { fixture in
            let admin = try fixture.admin()
            let creative = try await fixture.uploadPNG(admin)
            var asapFields = CampaignFixture.fields(name: "asap", app: "asap", creative: creative, duration: 600)
            asapFields.goal = CampaignGoal(impressions: Self.asapGoal, per: .campaign)
            asapFields.pacing = .asap
            asapFields.priority = 90
            let asap = try await admin.call(AdminAPI.campaignCreate, asapFields).campaign
            // The even flight starts once both edges hold it, so its window is all served.
            var evenFields = CampaignFixture.fields(name: "even", app: "even", creative: creative, startIn: 4, duration: Self.evenFlight)
            evenFields.goal = CampaignGoal(impressions: Self.evenGoal, per: .campaign)
            evenFields.pacing = .even
            evenFields.priority = 90
            let even = try await admin.call(AdminAPI.campaignCreate, evenFields).campaign
            // The next campaign of each app: what a device skipped by pacing, or after the goal, is answered.
            var fallbacks: [String: Int64] = [:]
            var lastSeq: Int64 = 0
            for app in ["asap", "even"] {
                var fields = CampaignFixture.fields(name: "\(app) fallback", app: app, creative: creative, duration: 600)
                fields.priority = 10
                let created = try await admin.call(AdminAPI.campaignCreate, fields)
                fallbacks[app] = created.campaign.id
                lastSeq = created.seq
            }
            let paced = [asap.id: "asap", even.id: "even"]

            try await withStopping(fixture.startRelay("relay")) { relay in
                let arguments = ["--report-interval", "1s"]
                func startEdge(_ name: String) async throws -> EdgeProcess {
                    try await fixture.startEdge(name, arguments: arguments, sync: relay.endpoints["sync"], updates: relay.endpoints["updates"])
                }
                try await withStopping(startEdge("edge-a")) { edgeA in
                    let slot = EdgeSlot(try await startEdge("edge-b"))
                    try await withStopping(slot) { slot in
                        for edge in [edgeA, slot.edge] {
                            #expect(await edge.waitFor(seq: lastSeq, creatives: 1, timeout: .seconds(30)), "\(edge.log.suffix(2000))")
                        }
                        let flightStart = ContinuousClock.now
                        // Both edges, then edge-b killed: what it accepted and had not shipped is lost with it.
                        var tallyA = try await Self.drive(edgeA, seconds: 8, paced: paced)
                        var tallyB = try await Self.drive(slot.edge, seconds: 8, paced: paced, alongside: edgeA, into: &tallyA)
                        await slot.edge.stop(signal: SIGKILL)
                        tallyA.merge(try await Self.drive(edgeA, seconds: 3, paced: paced))
                        // Restarted on its cache: it answers at once, and the app sends again every report it sent
                        // edge-b (it cannot know which ones the edge kept): each is counted once, the lost ones now.
                        slot.edge = try await startEdge("edge-b")
                        #expect(try await slot.edge.query(LaunchQueryParams(app: "even", platform: "ios", appVersion: "5.2.0", deviceId: "after-restart")).hasAd)
                        var resent = LaunchReportResult(accepted: 0, duplicates: 0)
                        for batch in stride(from: 0, to: tallyB.events.count, by: 50) {
                            let events = Array(tallyB.events[batch..<min(batch + 50, tallyB.events.count)])
                            let answer = try await slot.edge.client.call(ClientAPI.launchReport, LaunchReportParams(events: events))
                            resent.accepted += answer.accepted
                            resent.duplicates += answer.duplicates
                        }
                        let resentCount = tallyB.events.count
                        #expect(resent.accepted + resent.duplicates == resentCount)
                        #expect(resent.duplicates > 0, "no report of edge-b had been kept before the kill: the restart proves nothing")
                        // Both edges again until the even flight is over.
                        let left = Self.evenFlight + 4 - (ContinuousClock.now - flightStart).inSeconds + 1
                        tallyB.merge(try await Self.drive(slot.edge, seconds: left, paced: paced, alongside: edgeA, into: &tallyA))

                        // Every impression the apps were shown is counted once: campaignd's totals are the events'.
                        var delivered: [Int64: Int] = [:]
                        for event in tallyA.events + tallyB.events { delivered[event.campaignId!, default: 0] += 1 }
                        var counted: [Int64: Int64] = [:]
                        let settled = await eventually(timeout: .seconds(20)) {
                            for id in paced.keys {
                                counted[id] = (try? await admin.call(AdminAPI.campaignStats, CampaignStatsParams(id: id)).stats.first?.impressions) ?? -1
                            }
                            return paced.keys.allSatisfy { counted[$0] == Int64(delivered[$0, default: 0]) }
                        }
                        #expect(settled, "campaignd counted \(counted), the apps were shown \(delivered)")

                        // Never more than 5% over either goal; the met one no more than 5% under it.
                        #expect((Self.asapGoal * 95 / 100...Self.asapGoal * 105 / 100).contains(delivered[asap.id, default: 0]),
                                "asap: \(delivered[asap.id, default: 0]) for a goal of \(Self.asapGoal)")
                        #expect(delivered[even.id, default: 0] <= Self.evenGoal * 105 / 100, "even: \(delivered[even.id, default: 0]) for a goal of \(Self.evenGoal)")
                        // The asap goal met: share 0, completed, and both edges answer the next campaign.
                        let stopped = try await admin.call(AdminAPI.campaignGet, CampaignID(id: asap.id)).campaign
                        #expect(stopped.share == 0)
                        let line = try await admin.call(AdminAPI.campaignStats, CampaignStatsParams(id: asap.id)).pacing?.first
                        #expect(line?.completed == true, "\(String(describing: line))")
                        for (name, tally) in [("edge-a", tallyA), ("edge-b", tallyB)] {
                            let last = tally.asapAnswers.suffix(30)
                            #expect(last.count == 30 && last.allSatisfy { $0 == fallbacks["asap"] },
                                    "\(name) still answers the met campaign: \(last)")
                        }
                        let evenStats = try await admin.call(AdminAPI.campaignStats, CampaignStatsParams(id: even.id)).stats.first
                        print("""
                            pacing with an edge killed, campaignd on \(engine): asap \(delivered[asap.id, default: 0])/\(Self.asapGoal), \
                            even \(delivered[even.id, default: 0])/\(Self.evenGoal) over \(Int(Self.evenFlight)) s \
                            (counted \(evenStats?.impressions ?? -1)); edge-b's \(resentCount) \
                            reports before the kill sent again: \(resent.duplicates) already counted, \(resent.accepted) lost with the process and counted now; \
                            asap last answered \(tallyA.lastAsap.map { String(format: "%.1f s", ($0 - flightStart).inSeconds) } ?? "never") (edge-a), \
                            \(tallyB.lastAsap.map { String(format: "%.1f s", ($0 - flightStart).inSeconds) } ?? "never") (edge-b) into the flight
                            """)
                    }
                }
            }
            await admin.close()
        }
    }

    /// What the apps on one edge were shown: every impression they reported (accepted), and the answers of app "asap".
    struct Tally {
        var events: [LaunchEvent] = []
        var asapAnswers: [Int64?] = []
        var lastAsap: ContinuousClock.Instant?

        mutating func merge(_ other: Tally) {
            events += other.events
            asapAnswers += other.asapAnswers
            if let last = other.lastAsap { lastAsap = max(lastAsap ?? last, last) }
        }
    }

    /// Launches on `edge` for `seconds`, `launchesPerSecond` per app from new devices, each impression of a paced
    /// campaign reported to the edge; with `alongside`, the same on that edge at the same time, its tally merged into
    /// `into`.
    static func drive(_ edge: EdgeClient, seconds: Double, paced: [Int64: String], alongside: EdgeClient? = nil,
                      into other: inout Tally) async throws -> Tally {
        guard let alongside else { return try await drive(edge, seconds: seconds, paced: paced) }
        async let mine = drive(edge, seconds: seconds, paced: paced)
        async let theirs = drive(alongside, seconds: seconds, paced: paced)
        let (tally, theirTally) = try await (mine, theirs)
        other.merge(theirTally)
        return tally
    }

    static func drive(_ edge: EdgeClient, seconds: Double, paced: [Int64: String]) async throws -> Tally {
        var tally = Tally()
        let start = ContinuousClock.now
        let tick = Duration.milliseconds(1000 / launchesPerSecond)
        var launch = 0
        while ContinuousClock.now - start < .seconds(seconds) {
            launch += 1
            for app in ["asap", "even"] {
                let device = "\(edge.name)-\(app)-\(UUID().uuidString.prefix(8))"
                let answer = try await edge.query(LaunchQueryParams(app: app, platform: "ios", appVersion: "5.2.0", deviceId: device))
                if app == "asap" { tally.asapAnswers.append(answer.id) }
                guard let id = answer.id, paced[id] != nil else { continue }
                if app == "asap" { tally.lastAsap = ContinuousClock.now }
                let event = LaunchEvent(eventId: "imp-\(device)", type: .impression, campaignId: id, deviceId: device)
                let report = try await edge.client.call(ClientAPI.launchReport, LaunchReportParams(events: [event]))
                #expect(report.accepted == 1)
                tally.events.append(event)
            }
            // On a schedule, not a pause after each launch: slow answers do not lower the rate unless they take it all.
            let next = start + tick * launch
            if next > ContinuousClock.now { try await Task.sleep(until: next) }
        }
        return tally
    }
}

/// The edge that is killed and restarted: stopped at the end of the scope whichever process it is then.
private final class EdgeSlot: Stoppable, @unchecked Sendable {
    // @unchecked: replaced only by the test that owns it, between its own awaits.
    var edge: EdgeProcess
    init(_ edge: EdgeProcess) { self.edge = edge }
    func stop() async { await edge.stop() }
}

extension Duration {
    /// The duration in seconds, as a Double.
    fileprivate var inSeconds: Double {
        let (whole, fraction) = components
        return Double(whole) + Double(fraction) / 1e18
    }
}
