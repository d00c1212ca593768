import Foundation
import LaunchAdDomain
import RelayService
import ZeroMQ

// relayd for tests: built in process (`withRelay`), or as a child process (`CampaignFixture.startRelay`). Either one
// is a `CampaignServiceEndpoints` with `sync` and `updates`, so edges and relays connect to it as to campaignd.

/// A relay built in process, below `upstream`: its app and endpoints (`sync`, `updates`, `http`).
public final class InProcessRelay: CampaignServiceEndpoints {
    public let app: RelayServiceApp
    public let endpoints: [String: String]
    public let context: ZMQContext
    /// The folder of the tree it belongs to (its own cache and its edges' are in it).
    public let directory: URL
    public var log: String { logs.text }
    let logs: LogCapture

    init(app: RelayServiceApp, endpoints: [String: String], context: ZMQContext, directory: URL, logs: LogCapture) {
        self.app = app
        self.endpoints = endpoints
        self.context = context
        self.directory = directory
        self.logs = logs
    }
}

/// Runs relayd's app in process while `body` runs, following `upstream` (campaignd, or another relay), on ephemeral
/// loopback endpoints; its cache folder is `upstream.cacheDirectory(name)`, kept after the scope. Once `body` returns
/// or throws, the relay is shut down gracefully.
public func withRelay<T>(
    _ name: String = "relay", connectedTo upstream: some CampaignServiceEndpoints,
    clock: @escaping WallClock = Timestamp.systemClock,
    configure: (inout RelayServiceConfiguration) throws -> Void = { _ in },
    _ body: (InProcessRelay) async throws -> T
) async throws -> T {
    var configuration = RelayServiceConfiguration()
    configuration.following.cacheDirectory = upstream.cacheDirectory(name).path
    configuration.following.followerId = name
    configuration.following.region = "test"
    configuration.following.upstreamSync = upstream.endpoints["sync"]!
    configuration.following.upstreamUpdates = upstream.endpoints["updates"]!
    configuration.syncEndpoint = "tcp://127.0.0.1:0"
    configuration.updatesEndpoint = "tcp://127.0.0.1:0"
    configuration.httpAddress = "127.0.0.1:0"
    try configure(&configuration)
    let logs = LogCapture()
    let logger = logs.logger("relayd")
    let (ready, announce) = AsyncStream.makeStream(of: [String: String].self)
    let app = try RelayServiceApp(configuration: configuration, logger: logger, clock: clock, onReady: { announce.yield($0) })
    _ = try app.start()
    do {
        let result = try await runServices(app.services, logger: logger, ready: ready, announce: announce) { endpoints in
            try await body(InProcessRelay(app: app, endpoints: endpoints, context: upstream.context, directory: upstream.directory, logs: logs))
        }
        await app.close()
        return result
    } catch {
        await app.close()
        throw error
    }
}

/// A running `relayd` child process, below campaignd or another relay; edges and relays connect to it as to campaignd.
public final class RelayProcess: CampaignServiceEndpoints, Stoppable, @unchecked Sendable {
    // @unchecked: the process and endpoints are replaced only by the test that owns it, on restart.
    public let name: String
    public let directory: URL
    public let context: ZMQContext
    public let arguments: [String]
    public private(set) var process: ChildProcess
    public private(set) var endpoints: [String: String]

    init(name: String, directory: URL, context: ZMQContext, arguments: [String]) async throws {
        self.name = name
        self.directory = directory
        self.context = context
        self.arguments = arguments
        (process, endpoints) = try await Self.launch(name: name, directory: directory, arguments: arguments, endpoints: nil)
    }

    static func launch(name: String, directory: URL, arguments: [String], endpoints: [String: String]?) async throws -> (ChildProcess, [String: String]) {
        let ready = directory.appendingPathComponent("\(name)-ready-\(UUID().uuidString.prefix(6)).json")
        // IPC endpoints in the tree's folder: a restart binds them again, and no other test can take them meanwhile.
        func ipc(_ socket: String) -> String {
            "ipc://\(directory.appendingPathComponent("\(name)-\(socket)-\(UUID().uuidString.prefix(6)).sock").path)"
        }
        let process = try ChildProcess("relayd", [
            "--cache-dir", directory.appendingPathComponent(name).path, "--relay-id", name, "--region", "test",
            "--sync-endpoint", endpoints?["sync"] ?? ipc("sync"), "--updates-endpoint", endpoints?["updates"] ?? ipc("updates"),
            "--http-address", "127.0.0.1:0", "--ready-file", ready.path,
        ] + arguments, directory: directory)
        return (process, try await ChildProcess.waitForReadyFile(ready))
    }

    public var log: String { process.log }

    /// Stops the process (SIGKILL by default), runs `whileDown`, and starts it again on the same cache folder and
    /// endpoints.
    public func restart(signal: Int32 = SIGKILL, whileDown: () async throws -> Void = {}) async throws {
        await stop(signal: signal)
        try await whileDown()
        (process, endpoints) = try await Self.launch(name: name, directory: directory, arguments: arguments, endpoints: endpoints)
    }

    /// Stops it gracefully (SIGTERM), as ``withStopping(_:isolation:_:)`` does at the end of its scope.
    public func stop() async {
        await stop(signal: SIGTERM)
    }

    /// Sends `signal` (SIGKILL for a crash) and returns once the process has exited; safe to call again.
    public func stop(signal: Int32) async {
        process.signal(signal)
        _ = await process.exitStatus()
    }
}

extension CampaignServiceEndpoints {
    /// Starts a `relayd` following this service (campaignd, or a relay), or the comma-separated `sync` and `updates`
    /// lists; its cache folder is `cacheDirectory(name)`.
    public func startRelay(_ name: String, sync: String? = nil, updates: String? = nil, arguments: [String] = []) async throws -> RelayProcess {
        try await RelayProcess(name: name, directory: directory, context: context, arguments: [
            "--upstream-sync", sync ?? endpoints["sync"]!, "--upstream-updates", updates ?? endpoints["updates"]!,
        ] + arguments)
    }
}
