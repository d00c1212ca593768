import Hummingbird
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdRuntime
import Logging
import ServiceLifecycle

/// campaignd's web console, a `Service`: the HTTP server on its own address, and the watch that times a change from
/// the console on its way to the edges. It refuses an address beyond loopback unless users are configured.
public final class ConsoleServer: Service, Sendable {
    private let application: any ApplicationProtocol
    private let routes: ConsoleRoutes
    private let stopping = StopSignal()
    private let logger: Logger

    /// `gate` holds its connections to their header and idle timeouts; `onRunning` hears the address really bound
    /// (`host:port`).
    public init(configuration: ConsoleConfiguration, gateway: AdminGateway, clock: @escaping WallClock, gate: HTTPConnectionGate, logger: Logger,
                onRunning: @escaping @Sendable (String) async -> Void) throws {
        _ = try HTTPEndpoint.parse(configuration.address)
        if configuration.users == nil, !BindPolicy.isLoopbackAddress(configuration.address) {
            throw RuntimeError.insecureBind(
                "refusing to serve the console on \(configuration.address) without users: give --console-users, or a loopback address")
        }
        let sessions = SessionStore(lifetime: configuration.sessionLifetime) { Double(clock().milliseconds) / 1000 }
        let access = ConsoleAccess(users: configuration.users, sessions: sessions, secureCookies: configuration.secureCookies,
                                   throttle: SignInThrottle(limits: configuration.signInLimits), logger: logger)
        routes = ConsoleRoutes(gateway: gateway, access: access, tracker: SpreadTracker(), configuration: configuration,
                               clock: clock, stopping: stopping)
        let router = Router(context: ConsoleRequestContext.self)
        router.add(middleware: BearerGate(access: access))  // before the routes, which take the middleware they find
        routes.register(on: router)
        self.logger = logger
        application = try HTTPEndpoint.application(address: configuration.address, router: router, server: gate.http1(), logger: logger,
                                                   onRunning: onRunning)
    }

    public func run() async throws {
        let stopping = self.stopping
        try await withGracefulShutdownHandler {
            try await withThrowingDiscardingTaskGroup { group in
                group.addTask { try await self.application.run() }
                group.addTask { await self.watchSpreads() }
            }
        } onGracefulShutdown: {
            stopping.stop()
        }
    }

    /// Polls `edge.list` while a change from the console is on its way, noting when each edge has it.
    private func watchSpreads() async {
        let tracker = routes.tracker
        while !stopping.stopped, !Task.isCancelled, !Task.isShuttingDownGracefully {
            if tracker.watching {
                do {
                    let rows = try await routes.gateway.call(AdminAPI.edgeList, NoParams(), actor: "console")
                    tracker.observe(rows, now: routes.clock())
                } catch {
                    logger.warning("the console could not read edge.list", metadata: ["error": "\(error)"])
                }
            }
            try? await Task.sleep(for: SpreadTracker.interval)
        }
    }
}
