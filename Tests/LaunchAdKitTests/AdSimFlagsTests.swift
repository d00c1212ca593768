import Foundation
import LaunchAdTesting
import Testing

/// adsim's flags for the launch policies and the device, refused with a message naming the flag when out of range, as a
/// child process (what an operator's shell sees); no edge is reached.
@Suite("adsim refuses a bad policy, budget, age, opening or clock offset, naming the flag", .timeLimit(.minutes(2)))
struct AdSimFlagsTests {
    static let base = ["--edge", "http://127.0.0.1:9", "--app", "shop", "--platform", "ios", "--app-version", "5.2.0",
                       "--device", "device-flags"]

    /// Runs adsim with each of `flags` before `launch`, in a folder of its own; each must exit non-zero printing `message`.
    static func refused(_ flags: [[String]], _ message: String, command: [String] = ["launch"],
                        sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let directory = try makeTemporaryDirectory("adsim-flags")
        defer { removeTemporaryDirectory(directory) }
        try await ChildProcess.expectRefused("adsim", base + ["--state-dir", directory.appendingPathComponent("state").path],
                                             flags.map { (arguments: $0 + command, environment: [:]) }, message: message,
                                             directory: directory, sourceLocation: sourceLocation)
    }

    @Test("--policy names the three policies")
    func policy() async throws {
        try await Self.refused([["--policy", "eager"], ["--policy", "Revalidate"], ["--policy", ""]],
                               "--policy must be revalidate, cache-first or fresh")
    }

    @Test("--revalidate-budget, --wait-budget and --max-cached-age: seconds within their bounds")
    func budgetsAndAge() async throws {
        try await Self.refused([["--revalidate-budget", "0"], ["--revalidate-budget=-1"], ["--revalidate-budget", "61"],
                                ["--revalidate-budget", "nan"]], "--revalidate-budget must be over 0 and at most 60 seconds")
        try await Self.refused([["--wait-budget", "0"], ["--wait-budget", "inf"]], "--wait-budget must be over 0 and at most 60 seconds")
        try await Self.refused([["--max-cached-age=-1"], ["--max-cached-age", "nan"], ["--max-cached-age", "1e12"]],
                               "--max-cached-age must be 0 to")
    }

    @Test("--opened-by names the four openings, after launch")
    func openedBy() async throws {
        try await Self.refused([[]], "--opened-by must be userTap, push, url or shortcut", command: ["launch", "--opened-by", "tap"])
        try await Self.refused([[]], "--opened-by must be userTap, push, url or shortcut", command: ["launch", "--opened-by", "usertap"])
    }

    @Test("--clock-offset: within ten years either way")
    func clockOffset() async throws {
        try await Self.refused([["--clock-offset", "4e8"], ["--clock-offset=-4e8"], ["--clock-offset", "nan"]],
                               "--clock-offset must be within")
    }
}
