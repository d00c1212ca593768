import Foundation
import LaunchAdTesting
import Testing

@Suite("campaignd's console flags", .timeLimit(.minutes(2)))
struct ConsoleFlagsTests {
    /// Runs campaignd with `arguments` on ephemeral endpoints; answers its exit status and what it printed.
    func campaignd(_ arguments: [String], in directory: URL) async throws -> (Int32?, String) {
        let process = try ChildProcess("campaignd", [
            "--data-dir", directory.appendingPathComponent("data").path, "--admin-endpoint", "tcp://127.0.0.1:0",
            "--sync-endpoint", "tcp://127.0.0.1:0", "--updates-endpoint", "tcp://127.0.0.1:0", "--http-address", "127.0.0.1:0",
        ] + arguments, directory: directory)
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
        try Data("alice:alice-token-0123456789\nbob:short\n".utf8).write(to: users)
        let (bad, badLog) = try await campaignd(["--console-address", "127.0.0.1:0", "--console-users", users.path], in: directory)
        #expect(bad != nil && bad != 0)
        #expect(badLog.contains("\(users.path) line 2: the token of bob must be 16 to 512 visible ASCII characters"))

        let (orphan, orphanLog) = try await campaignd(["--console-users", users.path], in: directory)
        #expect(orphan != nil && orphan != 0)
        #expect(orphanLog.contains("--console-users needs --console-address"))
    }
}
