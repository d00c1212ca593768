import Foundation
import JSONRPC
import Testing

/// A program of this package run as a child process, for end-to-end tests.
public final class ChildProcess: @unchecked Sendable {
    // @unchecked: the Process is touched only through these methods, which Foundation makes thread-safe.
    public let process: Process
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

    /// Starts any program (a tool of the system, a script) the same way.
    public init(executable: URL, _ arguments: [String], directory: URL, environment: [String: String] = [:]) throws {
        self.name = executable.lastPathComponent
        process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        for (key, value) in environment { env[key] = value }
        process.environment = env
        output = directory.appendingPathComponent("\(name)-\(UUID().uuidString.prefix(8)).log")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let handle = try FileHandle(forWritingTo: output)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// What the process printed so far.
    public var log: String { (try? String(contentsOf: output, encoding: .utf8)) ?? "" }

    /// Sends a signal (SIGTERM by default, SIGKILL for a crash).
    public func signal(_ number: Int32 = SIGTERM) {
        kill(process.processIdentifier, number)
    }

    /// Waits for the process to exit; its status, or `nil` if it is still running after `timeout`.
    public func exitStatus(timeout: Duration = .seconds(10)) async -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            if ContinuousClock.now >= deadline { return nil }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return process.terminationStatus
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
