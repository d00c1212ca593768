import Foundation
import JSONRPC
import LaunchAdTesting
import Testing

/// adsim as a child process against an edge that accepts and never answers (a listener the test opens): the process
/// ends with its launch, never held by the request the launch left waiting (the SDK's `requestTimeout` is 15 s; before
/// adsim bounded it, such a launch printed `end` at its budget and exited 15 s later).
@Suite("adsim exits when its launch ends, even against an edge that never answers", .timeLimit(.minutes(2)))
struct AdSimLaunchDeadlineTests {
    /// The launch's budget given to adsim (`--wait-budget`), in seconds.
    static let budget = 1.0
    /// What the process may take beyond it, from its first event (its launch's start) to its exit: timers firing late
    /// on a loaded host, exiting. (Starting the process is not counted: a debug build's start on two busy cores can
    /// take seconds.)
    static let margin = Sanitizer.scaled(.milliseconds(1500))

    /// One `adsim ... --json launch --speed 20` against `edge` with the device's folder `state`: the events it printed
    /// and the time from its first event (`waiting`, as the launch begins) to its exit.
    static func launch(_ edge: ScriptedEdge, state: URL, policy: String, waitBudget: Double = budget, flags: [String] = [],
                       directory: URL) async throws -> (events: [JSONValue], took: Duration) {
        let process = try ChildProcess("adsim", [
            "--edge", edge.url.absoluteString, "--app", "shop", "--platform", "ios", "--app-version", "5.2.0", "--device", "device-hang",
            "--state-dir", state.path, "--screen", "1179x2556", "--json", "--policy", policy, "--wait-budget", String(waitBudget),
        ] + flags + ["launch", "--speed", "20"], directory: directory)
        guard await eventually(timeout: .seconds(30), { process.log.contains(#""event":"waiting""#) }) else {
            throw KitTestFailure("adsim never began its launch: \(process.log)")
        }
        let began = ContinuousClock.now
        let status = await process.exitStatus(timeout: .seconds(30))
        let took = ContinuousClock.now - began
        guard status == 0 else { throw KitTestFailure("adsim exited \(status.map(String.init) ?? "late"): \(process.log)") }
        return (try process.log.split(separator: "\n").map { try JSONParser.parse(String($0)) }, took)
    }

    /// One launch under `policy` from an empty folder against an edge that hangs every call.
    static func launchAgainstHangingEdge(policy: String, waitBudget: Double = budget, flags: [String] = []) async throws
        -> (events: [JSONValue], took: Duration, edge: ScriptedEdge) {
        let directory = try makeTemporaryDirectory("adsim-hang")
        defer { removeTemporaryDirectory(directory) }
        let edge = try ScriptedEdge()
        edge.hangRPC()
        let (events, took) = try await launch(edge, state: directory.appendingPathComponent("state"), policy: policy,
                                              waitBudget: waitBudget, flags: flags, directory: directory)
        return (events, took, edge)
    }

    static func event(_ name: String, in events: [JSONValue]) -> JSONValue? { events.first { $0["event"]?.stringValue == name } }

    @Test("fresh: the launch ends at the wait budget and the process with it")
    func freshEndsAtItsBudget() async throws {
        let (events, took, edge) = try await Self.launchAgainstHangingEdge(policy: "fresh")
        let end = try #require(Self.event("end", in: events), "\(events)")
        #expect(end["reason"] == "timeout")
        // The launch waited its whole budget for the answer, and not a moment less.
        #expect((end["ms"]?.intValue ?? 0) >= Int(Self.budget * 1000), "\(events)")
        #expect(took < .milliseconds(Int(Self.budget * 1000)) + Self.margin, "adsim took \(took)")
        #expect(edge.server.requests.contains { $0.path == "/rpc" }, "the launch never reached the edge")
    }

    @Test("revalidate with nothing on disk: no ad at the revalidate budget, the process gone within the launch's whole budget")
    func revalidateEndsAtItsBudgets() async throws {
        // A wait budget well apart from the revalidate budget: the launch ends at the one, the process by their sum.
        let (events, took, _) = try await Self.launchAgainstHangingEdge(policy: "revalidate", waitBudget: 3,
                                                                      flags: ["--revalidate-budget", "0.5"])
        let end = try #require(Self.event("end", in: events), "\(events)")
        #expect(end["reason"] == "timeout" && (500..<3000).contains(end["ms"]?.intValue ?? 0), "\(events)")
        // A forced ad's creative may be awaited for the wait budget once the answer is in: the launch's whole budget.
        #expect(took < .milliseconds(3500) + Self.margin, "adsim took \(took)")
    }

    @Test("cache first with nothing on disk: no ad at once, and the question left to the edge is given the budget, no more")
    func cacheFirstLeavesItsQuestionAtTheBudget() async throws {
        let (events, took, _) = try await Self.launchAgainstHangingEdge(policy: "cache-first")
        let end = try #require(Self.event("end", in: events), "\(events)")
        #expect(end["reason"] == "none" && (end["ms"]?.intValue ?? .max) < Int(Self.budget * 1000), "\(events)")
        #expect(took < .milliseconds(Int(Self.budget * 1000)) + Self.margin, "adsim took \(took)")
    }

    @Test("an ad cached before, then an edge that hangs: the ad plays from disk and the process ends with it")
    func cachedAdPlaysAndTheProcessEnds() async throws {
        let directory = try makeTemporaryDirectory("adsim-hang")
        defer { removeTemporaryDirectory(directory) }
        let edge = try ScriptedEdge()
        let creative = ScriptedEdge.creative(7)
        edge.answer(creative)
        let state = directory.appendingPathComponent("state")
        // A fresh launch shows the answer once its creative is on disk, so both are cached when it ends; the next shows
        // them from disk.
        let first = try await Self.launch(edge, state: state, policy: "fresh", waitBudget: 30, directory: directory)
        #expect(Self.event("show", in: first.events)?["source"] == "fresh", "\(first.events)")
        edge.hangRPC()
        let (events, took) = try await Self.launch(edge, state: state, policy: "cache-first", directory: directory)
        #expect(Self.event("show", in: events)?["campaignId"] == 7 && Self.event("show", in: events)?["source"] == "cache", "\(events)")
        let end = try #require(Self.event("end", in: events), "\(events)")
        #expect(end["reason"] == "countdown")
        // The countdown of 3 s at 20 times the speed, then the answer and the impression's report are left waiting.
        let ended = Duration.milliseconds(end["ms"]?.intValue ?? 0)
        #expect(took < max(ended, .milliseconds(Int(Self.budget * 1000))) + Self.margin, "adsim took \(took)")
    }
}
