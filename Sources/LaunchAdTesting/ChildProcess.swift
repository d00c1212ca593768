import Foundation
import JSONRPC
import Testing

/// A program of this package run as a child process, for end-to-end tests.
public final class ChildProcess: Sendable {
    private let process: SpawnedProcess
    public let output: URL
    public let name: String

    /// The folder of this package's built programs (beside the test bundle).
    public static var productsDirectory: URL {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var folder = bundle.deletingLastPathComponent()
        while !folder.path.isEmpty && folder.path != "/" {
            if FileManager.default.isExecutableFile(atPath: folder.appendingPathComponent("campaignd").path) { return folder }
            folder = folder.deletingLastPathComponent()
        }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(".build/debug")
    }

    /// Starts `name` with `arguments`; its standard output and error go to a file in `directory`.
    public convenience init(_ name: String, _ arguments: [String], directory: URL, environment: [String: String] = [:]) throws {
        try self.init(executable: Self.productsDirectory.appendingPathComponent(name), arguments, directory: directory,
                      environment: environment)
    }

    /// Starts any program (a tool of the system, a script) the same way. Killed, if it still runs, when the last
    /// reference to it goes.
    public init(executable: URL, _ arguments: [String], directory: URL, environment: [String: String] = [:]) throws {
        self.name = executable.lastPathComponent
        output = directory.appendingPathComponent("\(name)-\(UUID().uuidString.prefix(8)).log")
        process = try SpawnedProcess(executable.path, arguments, environment: environment, output: .file(output))
    }

    /// The child's process id.
    public var pid: pid_t { process.pid }

    /// Whether it has not exited yet.
    public var isRunning: Bool { process.isRunning }

    /// Its exit status (128 plus the signal's number when a signal ended it), or `nil` while it runs.
    public var terminationStatus: Int32? { process.termination?.status }

    /// What the process printed so far.
    public var log: String { (try? String(contentsOf: output, encoding: .utf8)) ?? "" }

    /// Sends a signal (SIGTERM by default, SIGKILL for a crash).
    public func signal(_ number: Int32 = SIGTERM) {
        process.signal(number)
    }

    /// Waits for the process to exit; its status (128 plus the signal's number when a signal ended it), or `nil` if it
    /// is still running after `timeout`.
    public func exitStatus(timeout: Duration = .seconds(10)) async -> Int32? {
        await process.exitStatus(timeout: timeout)
    }

    /// Waits for a ready file and returns the endpoints it names.
    public static func waitForReadyFile(_ path: URL, timeout: Duration = .seconds(20)) async throws -> [String: String] {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let data = FileManager.default.contents(atPath: path.path), !data.isEmpty,
               case .object(let object) = try JSONParser.parse([UInt8](data)) {
                var endpoints: [String: String] = [:]
                for member in object { endpoints[member.key] = member.value.stringValue }
                return endpoints
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw ReadyTimeout(path: path.path)
    }

    /// Starts `name` with `base` once for each case, its arguments added and its environment set: each holds a bad
    /// value, so each run must exit on its own within `timeout` with a non-zero status and print `message`.
    public static func expectRefused(_ name: String, _ base: [String], _ cases: [(arguments: [String], environment: [String: String])],
                                     message: String, directory: URL, timeout: Duration = .seconds(10),
                                     sourceLocation: SourceLocation = #_sourceLocation) async throws {
        for (arguments, environment) in cases {
            let process = try ChildProcess(name, base + arguments, directory: directory, environment: environment)
            let status = await process.exitStatus(timeout: timeout)
            #expect(status != nil && status != 0, "\(name) \(arguments) \(environment): exit status \(String(describing: status))",
                    sourceLocation: sourceLocation)
            #expect(process.log.contains(message), "\(name) \(arguments) \(environment): \(process.log)", sourceLocation: sourceLocation)
        }
    }

    public struct ReadyTimeout: Error, CustomStringConvertible {
        public let path: String
        public var description: String { "no ready file at \(path)" }
    }
}
