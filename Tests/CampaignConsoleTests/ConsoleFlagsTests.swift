import Foundation
import LaunchAdTesting
import Testing

@Suite("campaignd's console flags", .timeLimit(.minutes(2)))
struct ConsoleFlagsTests {
    /// campaignd's arguments for ephemeral endpoints and a data folder in `directory`.
    func base(_ directory: URL) -> [String] {
        ["--data-dir", directory.appendingPathComponent("data").path, "--admin-endpoint", "tcp://127.0.0.1:0",
         "--sync-endpoint", "tcp://127.0.0.1:0", "--updates-endpoint", "tcp://127.0.0.1:0", "--http-address", "127.0.0.1:0"]
    }

    /// Runs campaignd with `arguments` on ephemeral endpoints; answers its exit status and what it printed.
    func campaignd(_ arguments: [String], in directory: URL) async throws -> (Int32?, String) {
        let process = try ChildProcess("campaignd", base(directory) + arguments, directory: directory)
        let status = await process.exitStatus(timeout: .seconds(20))
        if status == nil { process.signal(SIGKILL) }
        return (status, process.log)
    }

    @Test("campaignd refuses a console beyond loopback without users, and a bad users file, naming the line")
    func refusals() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("console-flags-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let (exposed, exposedLog) = try await campaignd(["--console-address", "0.0.0.0:0"], in: directory)
        #expect(exposed != nil && exposed != 0)
        #expect(exposedLog.contains("--console-address 0.0.0.0:0 is beyond loopback: give --console-users"))

        let users = directory.appendingPathComponent("users")
        // A short token, then tokens long enough but trivially guessed: each refused at start, naming its line.
        let cases: [(String, String)] = [
            ("alice:\(aliceToken)\nbob:bob-token-0123456789abcdef\n", "line 2: the token of bob must be 32 to 512 visible ASCII characters"),
            ("# operators\nalice:\(String(repeating: "z", count: 48))\n", "line 2: the token of alice is too easy to guess: it uses 1 different character"),
            ("alice:\(aliceToken)\n\nbob:\(String(repeating: "hunter2!", count: 5))\n",
             "line 3: the token of bob is too easy to guess: it repeats a pattern of 8 characters"),
        ]
        for (text, message) in cases {
            try Data(text.utf8).write(to: users)
            let (bad, badLog) = try await campaignd(["--console-address", "127.0.0.1:0", "--console-users", users.path], in: directory)
            #expect(bad == 64, "\(badLog)")  // a usage error, before anything is bound
            #expect(badLog.contains("--console-users: \(users.path) \(message)"), "\(badLog)")
        }
        for (flag, variable, most) in [("--console-signin-limit", "CAMPAIGND_CONSOLE_SIGNIN_LIMIT", 100_000),
                                       ("--console-signin-limit-all", "CAMPAIGND_CONSOLE_SIGNIN_LIMIT_ALL", 1_000_000)] {
            try await ChildProcess.expectRefused("campaignd", base(directory) + ["--console-address", "127.0.0.1:0"],
                                                 [([flag, "0"], [:]), ([], [variable: "many"])],
                                                 message: "\(flag) must be between 1 and \(most)", directory: directory)
        }

        try Data("alice:\(aliceToken)\n".utf8).write(to: users)
        let (orphan, orphanLog) = try await campaignd(["--console-users", users.path], in: directory)
        #expect(orphan != nil && orphan != 0)
        #expect(orphanLog.contains("--console-users needs --console-address"))
    }
}
