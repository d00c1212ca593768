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

    /// Runs campaignd with `arguments` and `environment` on ephemeral endpoints; answers its exit status and what it printed.
    func campaignd(_ arguments: [String], environment: [String: String], in directory: URL) async throws -> (Int32?, String) {
        let process = try ChildProcess("campaignd", base(directory) + arguments, directory: directory, environment: environment)
        let status = await process.exitStatus(timeout: .seconds(20))
        if status == nil { process.signal(SIGKILL) }
        return (status, process.log)
    }

    @Test("campaignd's main refuses a bad console users file before binding anything: a usage error naming the line (the other console flags' refusals are DaemonOptionsTests, in process)")
    func refusals() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("console-flags-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let users = directory.appendingPathComponent("users")
        try Data("alice:\(aliceToken)\nbob:bob-token-0123456789abcdef\n".utf8).write(to: users)
        let (bad, badLog) = try await campaignd(["--console-address", "127.0.0.1:0"], environment: ["CAMPAIGND_CONSOLE_USERS": users.path], in: directory)
        #expect(bad == 64, "\(badLog)")  // a usage error, before anything is bound
        #expect(badLog.contains("--console-users: \(users.path) line 2: the token of bob must be 32 to 512 visible ASCII characters"), "\(badLog)")
    }
}
