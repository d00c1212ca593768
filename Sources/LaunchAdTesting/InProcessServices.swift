import CampaignService
import DeliveryService
import Foundation
import LaunchAdDomain
import Logging
import ServiceLifecycle
import Locking
import ZMQRPC
import ZeroMQ

// campaignd and deliveryd built in the test's own process, as their executables build them, on ephemeral loopback
// ports and with a clock the test chooses. Child processes stay for what only a process shows: kill -9, SIGTERM,
// flags, ready files and exit codes.

/// A campaign service built in process: its app, endpoints and a folder that goes when the scope ends.
public final class InProcessCampaignService: CampaignServiceEndpoints {
    public let app: CampaignServiceApp
    public let endpoints: [String: String]
    public let context: ZMQContext
    public let directory: URL
    /// What the service logged so far.
    public var log: String { logs.text }
    let logs: LogCapture

    init(app: CampaignServiceApp, endpoints: [String: String], context: ZMQContext, directory: URL, logs: LogCapture) {
        self.app = app
        self.endpoints = endpoints
        self.context = context
        self.directory = directory
        self.logs = logs
    }
}

/// A delivery service built in process, with a client for its client socket.
public final class InProcessEdge: EdgeClient, @unchecked Sendable {
    // @unchecked: used by the one test that made it, as EdgeClient.
    public let app: DeliveryServiceApp
    let logs: LogCapture

    init(name: String, app: DeliveryServiceApp, endpoints: [String: String], context: ZMQContext, logs: LogCapture) throws {
        self.app = app
        self.logs = logs
        try super.init(name: name, endpoints: endpoints, context: context)
    }

    public override var log: String { logs.text }
}

/// Runs campaignd's app in process while `body` runs, on ephemeral loopback endpoints (`tcp://127.0.0.1:0`,
/// `127.0.0.1:0`) and a fresh data folder, with `clock` as its time. Once `body` returns or throws, the service is
/// shut down gracefully (as SIGTERM would) and its folder removed.
public func withCampaignService<T>(
    clock: @escaping WallClock = Timestamp.systemClock,
    configure: (inout CampaignServiceConfiguration) throws -> Void = { _ in },
    _ body: (InProcessCampaignService) async throws -> T
) async throws -> T {
    let directory = try makeTemporaryDirectory("campaignd")
    defer { removeTemporaryDirectory(directory) }
    var configuration = CampaignServiceConfiguration()
    configuration.dataDirectory = directory.appendingPathComponent("data").path
    configuration.adminEndpoint = "tcp://127.0.0.1:0"
    configuration.syncEndpoint = "tcp://127.0.0.1:0"
    configuration.updatesEndpoint = "tcp://127.0.0.1:0"
    configuration.httpAddress = "127.0.0.1:0"
    try configure(&configuration)
    let logs = LogCapture()
    let logger = logs.logger("campaignd")
    let (ready, announce) = AsyncStream.makeStream(of: [String: String].self)
    let app = try await CampaignServiceApp(configuration: configuration, logger: logger, clock: clock,
                                     onReady: { announce.yield($0) })
    defer { app.close() }
    _ = try app.start()
    return try await runServices(app.services, logger: logger, ready: ready, announce: announce) { endpoints in
        let service = InProcessCampaignService(app: app, endpoints: endpoints, context: try ZMQContext(), directory: directory,
                                               logs: logs)
        return try await body(service)
    }
}

/// Runs deliveryd's app in process while `body` runs, connected to `campaign` (or to `sync` and `updates`, such as a
/// ``TCPProxy`` in front of it), on ephemeral loopback endpoints, with `clock` as its time (an edge whose clock is
/// off: `{ Timestamp.now(offset: -1.5) }`). Its cache folder is `campaign.cacheDirectory(name)`, kept after the scope
/// (so a later edge of the same name starts from it). Once `body` returns or throws, the edge is shut down gracefully.
public func withEdge<T>(
    _ name: String = "edge", connectedTo campaign: some CampaignServiceEndpoints, sync: String? = nil, updates: String? = nil,
    clock: @escaping WallClock = Timestamp.systemClock,
    configure: (inout DeliveryServiceConfiguration) throws -> Void = { _ in },
    _ body: (InProcessEdge) async throws -> T
) async throws -> T {
    var configuration = DeliveryServiceConfiguration()
    configuration.following.cacheDirectory = campaign.cacheDirectory(name).path
    configuration.following.followerId = name
    configuration.following.region = "test"
    configuration.following.upstreamSync = sync ?? campaign.endpoints["sync"]!
    configuration.following.upstreamUpdates = updates ?? campaign.endpoints["updates"]!
    configuration.clientEndpoint = "tcp://127.0.0.1:0"
    configuration.httpAddress = "127.0.0.1:0"
    // Counts shipped every 2 s rather than deliveryd's 10, so that tests reading them back wait less.
    configuration.reportInterval = .seconds(2)
    try configure(&configuration)
    let logs = LogCapture()
    var logger = logs.logger("deliveryd")
    logger[metadataKey: "edge"] = .string(name)
    let (ready, announce) = AsyncStream.makeStream(of: [String: String].self)
    let app = try DeliveryServiceApp(configuration: configuration, logger: logger, clock: clock,
                                     onReady: { announce.yield($0) })
    _ = try app.start()
    return try await runServices(app.services, logger: logger, ready: ready, announce: announce) { endpoints in
        let edge = try InProcessEdge(name: name, app: app, endpoints: endpoints, context: campaign.context, logs: logs)
        do {
            let result = try await body(edge)
            await edge.close()
            return result
        } catch {
            await edge.close()
            throw error
        }
    }
}

/// The endpoints were never announced: the services stopped before they were ready.
public struct ServicesNotReady: Error, CustomStringConvertible {
    public var description: String { "the services stopped before announcing their endpoints" }
}

/// Runs `services` in a `ServiceGroup` until `body`, given the endpoints `ready` announces, returns or throws; then
/// shuts the group down gracefully (stopped in reverse order, as on SIGTERM) and waits for it.
func runServices<T>(_ services: [any Service], logger: Logger, ready: AsyncStream<[String: String]>,
                    announce: AsyncStream<[String: String]>.Continuation,
                    _ body: ([String: String]) async throws -> T) async throws -> T {
    var configuration = ServiceGroupConfiguration(services: services.map { .init(service: $0) }, logger: logger)
    // A service that ignores graceful shutdown fails the test instead of hanging it.
    configuration.maximumGracefulShutdownDuration = .seconds(15)
    let group = ServiceGroup(configuration: configuration)
    return try await withThrowingTaskGroup(of: Void.self) { tasks in
        tasks.addTask {
            defer { announce.finish() }
            try await group.run()
        }
        var announced = ready.makeAsyncIterator()
        guard let endpoints = await announced.next() else {
            try await tasks.waitForAll()  // throws what stopped the services, if anything did
            throw ServicesNotReady()
        }
        let result: T
        do {
            result = try await body(endpoints)
        } catch {
            await group.triggerGracefulShutdown()
            try? await tasks.waitForAll()
            throw error
        }
        await group.triggerGracefulShutdown()
        try await tasks.waitForAll()
        return result
    }
}

/// Log lines kept in memory, so a test can read what an in-process service logged as it would a process's output.
final class LogCapture: Sendable {
    private let lines = Locked<[String]>([])

    var text: String { lines.withLock { $0.joined(separator: "\n") } }

    func append(_ line: String) { lines.withLock { $0.append(line) } }

    func logger(_ label: String) -> Logger {
        Logger(label: label) { label in Handler(label: label, capture: self) }
    }

    struct Handler: LogHandler {
        let label: String
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .info
        var metadataProvider: Logger.MetadataProvider?

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let fields = metadata.merging(event.metadata ?? [:]) { $1 }
            let suffix = fields.isEmpty ? "" : " " + fields.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            capture.append("\(event.level) \(label): \(event.message)\(suffix)")
        }
    }
}
