import Foundation
import JSONRPC
import LaunchAdTesting
import Testing

/// adctl → campaignd → deliveryd → adsim, every one a real process, adsim with the SDK's default policy
/// (`revalidate`, no `--policy` given): the device obeys an operator's change at the launch right after it; an edge
/// too slow for the budget leaves the cached choice, and the next launch obeys; offline, a cached choice older than
/// `maxCachedAge` is not shown.
@Suite("adsim with the default policy: the device obeys at this launch", .timeLimit(.minutes(3)))
struct AdSimRevalidateEndToEndTests {
    typealias Outcome = AdSimSystem.Outcome

    /// The revalidate budget given to adsim: the default half second is met on an idle host, but these launches run
    /// beside builds on two cores, and an answer late for the budget would be another test (the slow edge's).
    static let budget = ["--revalidate-budget", "2"]

    /// Waits until `process` (an adsim) has printed its launch's decision (a `show` or an `end`).
    static func decided(_ process: ChildProcess) async -> Bool {
        await eventually(timeout: .seconds(30)) { process.log.contains(#""event":"show""#) || process.log.contains(#""event":"end""#) }
    }

    /// One launch while the edge is stopped (SIGSTOP: it holds the connection and answers nothing) until adsim has
    /// decided, then goes on (SIGCONT) and answers the launch's query late, while the ad (if any) still plays.
    static func launchWithEdgeStopped(_ system: AdSimSystem, _ state: String) async throws -> [JSONValue] {
        system.edge.process.signal(SIGSTOP)
        let process: ChildProcess
        do {
            process = try system.startAdsim(state, flags: budget, ["launch", "--speed", "2"])
        } catch {
            system.edge.process.signal(SIGCONT)
            throw error
        }
        let decided = await decided(process)
        system.edge.process.signal(SIGCONT)
        guard decided else { throw KitTestFailure("adsim decided nothing within 30 s: \(process.log)") }
        return try await AdSimSystem.events(of: process)
    }

    @Test("create, force, expire, pause and resume, each obeyed at the launch right after it; a slow edge, then the launch after")
    func operatorsObeyedAtThisLaunch() async throws {
        try await AdSimSystem.with { system in
            func launch() async throws -> Outcome { Outcome(try await system.adsim("device", flags: Self.budget)) }
            let a = try await system.create("a", creative: try await system.upload(seed: 0))
            // Chosen, not forced, its creative not on disk: cached for the next launch, not shown at this one.
            #expect(try await launch().shown == nil)
            #expect(try await launch() == Outcome(shown: a, end: "countdown"))

            // Forced with a creative the device never had: shown at this launch, fetched within the wait budget.
            let b = try await system.create("b", creative: try await system.upload(seed: 1))
            try await system.campaign("force", b)
            #expect(try await launch().shown == b)

            // Expired: not shown once more; what the answer chose (and is on disk) shows instead.
            try await system.campaign("expire", b)
            #expect(try await launch().shown == a)

            // Paused: no ad at this launch; resumed: chosen again (its creative, deleted with the pause, fetched for the
            // launch after).
            try await system.campaign("pause", a)
            #expect(try await launch().shown == nil)
            try await system.campaign("resume", a)
            #expect(try await launch().shown == nil)
            #expect(try await launch().shown == a)

            // Paused while the edge is too slow for the budget: the cached choice shows at this launch ...
            try await system.campaign("pause", a)
            let slow = try await Self.launchWithEdgeStopped(system, "device")
            #expect(Outcome(slow).shown == a, "\(slow)")
            // ... and its late answer rules the next launch, even one the edge is as slow for ...
            let next = try await Self.launchWithEdgeStopped(system, "device")
            #expect(Outcome(next).shown == nil, "\(next)")
            // ... and the ones after.
            #expect(try await launch() == Outcome(shown: nil, end: "none"))
        }
    }

    @Test("offline: the cached choice shows within maxCachedAge (24 h by default, --max-cached-age), never past it")
    func offlineWithinAndPastMaxCachedAge() async throws {
        try await AdSimSystem.with { system in
            // A campaign of three days, so that the device's clock a day on still finds it live.
            let a = try await system.create("a", creative: try await system.upload(), ends: "+3d")
            _ = try await system.adsim("device", flags: Self.budget)
            #expect(Outcome(try await system.adsim("device", flags: Self.budget)).shown == a)
            // Opened by a push: the SDK's default `showOn` (a tap on the icon) leaves it out.
            #expect(Outcome(try await system.adsim("device", flags: Self.budget, ["launch", "--opened-by", "push"]))
                    == Outcome(shown: nil, end: "notForOpening"))

            // No edge: nothing listens there.
            let offline = "http://127.0.0.1:9"
            func offlineLaunch(_ flags: [String]) async throws -> Outcome {
                Outcome(try await system.adsim("device", flags: Self.budget + flags, edge: offline))
            }
            #expect(try await offlineLaunch([]).shown == a)
            #expect(try await offlineLaunch(["--clock-offset", String(23 * 3600)]).shown == a)
            #expect(try await offlineLaunch(["--clock-offset", String(25 * 3600)]).shown == nil)
            #expect(try await offlineLaunch(["--max-cached-age", "600", "--clock-offset", "300"]).shown == a)
            #expect(try await offlineLaunch(["--max-cached-age", "600", "--clock-offset", "900"]).shown == nil)
            // Back online, the answer in time rules again (it chooses the campaign, on disk): shown.
            #expect(Outcome(try await system.adsim("device", flags: Self.budget)).shown == a)
        }
    }
}
