import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import ZMQRPC
import ZeroMQ

/// A `campaignd` child process on ephemeral loopback ports with its own data folder, and clients for it.
public final class CampaignFixture: @unchecked Sendable {
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
        (process, endpoints) = try await Self.launch(directory: directory, arguments: arguments)
    }

    static func launch(directory: URL, arguments: [String]) async throws -> (ChildProcess, [String: String]) {
        let ready = directory.appendingPathComponent("ready-\(UUID().uuidString.prefix(6)).json")
        let process = try ChildProcess("campaignd", [
            "--data-dir", directory.appendingPathComponent("data").path,
            "--admin-endpoint", "tcp://127.0.0.1:0", "--sync-endpoint", "tcp://127.0.0.1:0",
            "--updates-endpoint", "tcp://127.0.0.1:0", "--http-address", "127.0.0.1:0",
            "--ready-file", ready.path,
        ] + arguments, directory: directory)
        return (process, try await ChildProcess.waitForReadyFile(ready))
    }

    /// Kills the process (SIGKILL by default) and starts it again on the same data, on new ports.
    public func restart(signal: Int32 = SIGKILL) async throws {
        process.signal(signal)
        _ = await process.exitStatus()
        (process, endpoints) = try await Self.launch(directory: directory, arguments: extraArguments)
    }

    public func admin(timeout: Duration = .seconds(10)) throws -> RPCClient {
        var configuration = RPCClientConfiguration(endpoint: endpoints["admin"]!)
        configuration.timeout = timeout
        return try RPCClient(context: context, configuration: configuration)
    }

    public func sync() throws -> RPCClient {
        try RPCClient(context: context, configuration: RPCClientConfiguration(endpoint: endpoints["sync"]!))
    }

    /// A subscriber to the update stream; wait for ``awaitSubscribed(_:)`` before relying on it.
    public func subscribe(topics: [String] = ["campaign", "heartbeat"], highWaterMark: Int32 = 100_000) throws -> Subscriber {
        var configuration = Subscriber.Configuration(endpoint: endpoints["updates"]!, topics: topics)
        configuration.highWaterMark = highWaterMark
        return try Subscriber(context: context, configuration: configuration)
    }

    public func stop() async {
        process.signal(SIGTERM)
        _ = await process.exitStatus()
        removeTemporaryDirectory(directory)
    }

    /// A PNG header of the given pixel size (the bytes after it are filler, distinct per `seed`).
    public static func png(width: Int, height: Int, seed: Int = 0) -> [UInt8] {
        func be32(_ value: Int) -> [UInt8] { [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        bytes += be32(13) + Array("IHDR".utf8) + be32(width) + be32(height) + [8, 6, 0, 0, 0] + [0, 0, 0, 0]
        bytes += Array("filler-\(seed)".utf8)
        return bytes
    }

    /// Uploads a PNG and returns its sha256.
    public func uploadPNG(_ client: RPCClient, width: Int = 1080, height: Int = 1920, seed: Int = 0) async throws -> String {
        let bytes = Self.png(width: width, height: height, seed: seed)
        let info = try await client.call(AdminAPI.creativeUpload, CreativeUploadParams(contentType: "image/png", data: Data(bytes).base64EncodedString()))
        return info.sha256
    }

    /// Fields of a valid campaign starting now (or `startIn` seconds from now) and lasting `duration` seconds.
    public static func fields(name: String = "campaign", app: String = "shop", creative: String, startIn: Double = -1,
                              duration: Double = 3600) -> CampaignFields {
        let now = Timestamp(seconds: Date().timeIntervalSince1970)
        return CampaignFields(name: name, app: app, startsAt: now.adding(seconds: startIn), endsAt: now.adding(seconds: startIn + duration),
                              creatives: [CreativeRef(sha256: creative)])
    }
}
