import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import ZMQRPC
import ZeroMQ

/// What tests need of a running campaign service, in process or a child process: its endpoints, a context for
/// clients, and its folder (where edges' cache folders go).
public protocol CampaignServiceEndpoints: AnyObject, Sendable, ServesMetrics {
    var context: ZMQContext { get }
    var directory: URL { get }
}

extension CampaignServiceEndpoints {
    public func admin(timeout: Duration = Sanitizer.scaled(.seconds(10))) throws -> RPCClient {
        var configuration = RPCClientConfiguration(endpoint: endpoints["admin"]!)
        configuration.timeout = timeout
        return try RPCClient(context: context, configuration: configuration)
    }

    public func sync() throws -> RPCClient {
        var configuration = RPCClientConfiguration(endpoint: endpoints["sync"]!)
        configuration.timeout = Sanitizer.scaled(configuration.timeout)
        return try RPCClient(context: context, configuration: configuration)
    }

    /// A subscriber to the update stream; wait for ``awaitSubscribed(_:)`` before relying on it.
    public func subscribe(topics: [String] = ["campaign", "heartbeat"], highWaterMark: Int32 = 100_000) throws -> Subscriber {
        var configuration = Subscriber.Configuration(endpoint: endpoints["updates"]!, topics: topics)
        configuration.highWaterMark = highWaterMark
        return try Subscriber(context: context, configuration: configuration)
    }

    /// Waits until campaignd lists every one of `edgeIds` (an edge is listed from its first acknowledgement, which
    /// follows its first save, so a moment after it is ready).
    public func waitUntilListed(_ edgeIds: Set<String>, timeout: Duration = .seconds(15)) async -> Bool {
        guard let admin = try? admin() else { return false }
        let listed = await eventually(timeout: timeout) {
            let listed = (try? await admin.call(AdminAPI.edgeList, NoParams()).edges.map(\.edgeId)) ?? []
            return edgeIds.isSubset(of: listed)
        }
        await admin.close()
        return listed
    }

    /// The `seq` campaignd lists `edgeId` as having acknowledged (the first edge it lists when `nil`); `nil` when it
    /// lists no such edge.
    public static func acknowledgedSeq(_ admin: RPCClient, edge edgeId: String? = nil) async throws -> Int64? {
        let edges = try await admin.call(AdminAPI.edgeList, NoParams()).edges
        guard let edgeId else { return edges.first?.appliedSeq }
        return edges.first { $0.edgeId == edgeId }?.appliedSeq
    }

    /// The cache folder of the edge called `name`.
    public func cacheDirectory(_ name: String) -> URL {
        directory.appendingPathComponent(name)
    }

    /// Uploads a PNG and returns its sha256.
    public func uploadPNG(_ client: RPCClient, width: Int = 1080, height: Int = 1920, seed: Int = 0) async throws -> String {
        let bytes = CampaignFixture.png(width: width, height: height, seed: seed)
        let info = try await client.call(AdminAPI.creativeUpload, CreativeUploadParams(contentType: "image/png", data: Data(bytes).base64EncodedString()))
        return info.sha256
    }
}

/// A `campaignd` child process on ephemeral loopback ports with its own data folder, and clients for it.
public final class CampaignFixture: CampaignServiceEndpoints, Stoppable, @unchecked Sendable {
    // @unchecked: the mutable process reference is replaced only by the test that owns the fixture.
    public let directory: URL
    public let context: ZMQContext
    public private(set) var process: ChildProcess
    public private(set) var endpoints: [String: String]
    public let extraArguments: [String]

    public init(arguments: [String] = []) async throws {
        directory = try makeTemporaryDirectory("campaignd")
        context = try ZMQContext()
        extraArguments = arguments
        (process, endpoints) = try await Self.launch(directory: directory, data: "data", arguments: arguments)
    }

    static func launch(directory: URL, data: String, arguments: [String], endpoints: [String: String]? = nil) async throws -> (ChildProcess, [String: String]) {
        let ready = directory.appendingPathComponent("ready-\(UUID().uuidString.prefix(6)).json")
        // IPC endpoints in the fixture's own folder: no other test can take them, even while campaignd is down
        // between a kill and a restart on the same endpoints.
        func ipc(_ name: String) -> String {
            "ipc://\(directory.appendingPathComponent("\(name)-\(UUID().uuidString.prefix(6)).sock").path)"
        }
        let process = try ChildProcess("campaignd", [
            "--data-dir", directory.appendingPathComponent(data).path,
            "--admin-endpoint", endpoints?["admin"] ?? ipc("admin"), "--sync-endpoint", endpoints?["sync"] ?? ipc("sync"),
            "--updates-endpoint", endpoints?["updates"] ?? ipc("updates"), "--http-address", "127.0.0.1:0",
            "--ready-file", ready.path,
        ] + arguments, directory: directory)
        return (process, try await ChildProcess.waitForReadyFile(ready))
    }

    /// Kills the process (SIGKILL by default) and starts it again on the same data. With `sameEndpoints`, it binds
    /// the ports it had (so connected edges find it again); otherwise new ones. With `freshData`, it starts on a new
    /// database (a new epoch). `prepare` is given the data folder while the process is down (to save or restore it).
    public func restart(signal: Int32 = SIGKILL, sameEndpoints: Bool = false, freshData: Bool = false,
                        prepare: (URL) throws -> Void = { _ in }) async throws {
        process.signal(signal)
        _ = await process.exitStatus()
        let data = freshData ? "data-\(UUID().uuidString.prefix(6))" : "data"
        try prepare(directory.appendingPathComponent(data))
        var lastError: (any Error)?
        // A port just released can take a moment to be free again.
        for _ in 0..<50 {
            do {
                (process, endpoints) = try await Self.launch(directory: directory, data: data, arguments: extraArguments,
                                                             endpoints: sameEndpoints ? endpoints : nil)
                return
            } catch {
                lastError = error
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        throw lastError!
    }

    /// Stops the process without removing its data (for tests of an absent campaignd).
    public func kill(signal: Int32 = SIGKILL) async {
        process.signal(signal)
        _ = await process.exitStatus()
    }

    /// Stops the process (SIGTERM) and removes its folder; again, does nothing more.
    public func stop() async {
        process.signal(SIGTERM)
        _ = await process.exitStatus()
        removeTemporaryDirectory(directory)
    }

    /// Starts a `deliveryd` connected to this campaignd (or to `sync` and `updates`, such as a ``TCPProxy`` in
    /// front of it); returns it and its endpoints. Its cache folder is `cacheDirectory(name)`.
    public func startEdge(_ name: String, arguments: [String] = [], client: String = "tcp://127.0.0.1:0",
                          sync: String? = nil, updates: String? = nil, environment: [String: String] = [:],
                          waitForReady: Bool = true) async throws -> EdgeProcess {
        let ready = directory.appendingPathComponent("\(name)-ready-\(UUID().uuidString.prefix(6)).json")
        let process = try ChildProcess("deliveryd", [
            "--cache-dir", cacheDirectory(name).path, "--edge-id", name, "--region", "test",
            "--campaign-sync", sync ?? endpoints["sync"]!, "--campaign-updates", updates ?? endpoints["updates"]!,
            "--client-endpoint", client, "--http-address", "127.0.0.1:0", "--ready-file", ready.path,
            // Counts every 2 s rather than deliveryd's 10, so that tests reading them back wait less (a later flag wins).
            "--report-interval", "2s",
        ] + arguments, directory: directory, environment: environment)
        let endpoints = try await ChildProcess.waitForReadyFile(ready)
        return try EdgeProcess(name: name, process: process, endpoints: endpoints, context: context)
    }

    /// A PNG header of the given pixel size (the bytes after it are filler, distinct per `seed`).
    public static func png(width: Int, height: Int, seed: Int = 0) -> [UInt8] {
        CreativeInspector.pngHeader(width: width, height: height, trailer: Array("filler-\(seed)".utf8))
    }

    /// Fields of a valid campaign starting now (or `startIn` seconds from now) and lasting `duration` seconds.
    public static func fields(name: String = "campaign", app: String = "shop", creative: String, startIn: Double = -1,
                              duration: Double = 3600) -> CampaignFields {
        let now = Timestamp(seconds: Date().timeIntervalSince1970)
        return CampaignFields(name: name, app: app, startsAt: now.adding(seconds: startIn), endsAt: now.adding(seconds: startIn + duration),
                              creatives: [CreativeRef(sha256: creative)])
    }
}

/// A running edge, in process or a child process, and a client for its client socket.
public class EdgeClient: @unchecked Sendable, ServesMetrics {
    // @unchecked: used by the one test that made it.
    public let name: String
    public let endpoints: [String: String]
    public let client: RPCClient

    init(name: String, endpoints: [String: String], context: ZMQContext) throws {
        self.name = name
        self.endpoints = endpoints
        var configuration = RPCClientConfiguration(endpoint: endpoints["client"]!)
        configuration.timeout = .seconds(5)
        client = try RPCClient(context: context, configuration: configuration)
    }

    /// What the edge logged so far.
    public var log: String { "" }

    public func status() async throws -> EdgeStatus {
        try await client.call(ClientAPI.edgeStatus, NoParams())
    }

    public func query(_ params: LaunchQueryParams = LaunchQueryParams(app: "shop", platform: "ios", appVersion: "5.2.0", deviceId: "d-1")) async throws -> LaunchAnswer {
        try await client.call(ClientAPI.launchQuery, params)
    }

    /// Waits until the edge has applied `seq` of `epoch` (and holds every creative it needs when `creatives`).
    public func waitFor(seq: Int64, epoch: String? = nil, creatives: Int? = nil, timeout: Duration = .seconds(15)) async -> Bool {
        await eventually(timeout: timeout) {
            guard let status = try? await self.status() else { return false }
            return status.seq >= seq && (epoch == nil || status.epoch == epoch) && (creatives == nil || status.creatives >= creatives!)
        }
    }

    /// Closes the client.
    public func close() async {
        await client.close()
    }
}

/// A running `deliveryd` child process and a client for its client socket.
public final class EdgeProcess: EdgeClient, Stoppable, @unchecked Sendable {
    public let process: ChildProcess

    init(name: String, process: ChildProcess, endpoints: [String: String], context: ZMQContext) throws {
        self.process = process
        try super.init(name: name, endpoints: endpoints, context: context)
    }

    public override var log: String { process.log }

    /// Stops it gracefully (SIGTERM), as ``withStopping(_:isolation:_:)`` does at the end of its scope.
    public func stop() async {
        await stop(signal: SIGTERM)
    }

    /// Closes the client and sends `signal` (SIGKILL for a crash); returns once the process has exited. Safe to call
    /// again (the client is closed once, and a reaped process is sent nothing).
    public func stop(signal: Int32) async {
        await client.close()
        process.signal(signal)
        // A test that stopped the edge (SIGSTOP) and failed before it let it go on: it must run to act on the signal.
        process.signal(SIGCONT)
        _ = await process.exitStatus()
    }
}
