import Hummingbird
import HummingbirdCore
import HummingbirdHTTP2
import LaunchAdRuntime
import Logging
import NIOCore
import NIOSSL

/// deliveryd's HTTP servers: the public address (`/rpc` and `/launch-ad` answered below the router by
/// ``HTTPEdgeHandler``, the rest by Hummingbird), in clear text or TLS with HTTP/2 through ALPN, and the plain
/// operations address when `--ops-address` moves `/metrics` and `/healthz` off it.
enum EdgeHTTPServer {
    /// The public address's server: every HTTP/1.1 connection and HTTP/2 stream gets an ``HTTPEdgeHandler``.
    static func publicServer(door: HTTPFrontDoor, tls: TLSConfiguration?, idleTimeout: Duration) throws -> HTTPServerBuilder {
        // Timeouts are the handler's (Hummingbird's idle timer does not see the requests answered below it); an HTTP/2
        // connection with no stream open is closed by its own.
        let streams = HTTP1Channel.Configuration(additionalChannelHandlers: [HTTPEdgeInstaller(door: door)], idleTimeout: nil)
        guard let tls else { return .http1(configuration: streams) }
        return try .http2Upgrade(tlsConfiguration: tls, configuration: .init(idleTimeout: idleTimeout, streamConfiguration: streams))
    }

    /// An application serving `router` on `address` with `server`; `onRunning` gets the address bound (`host:port`).
    static func application(address: String, router: Router<BasicRequestContext>, server: HTTPServerBuilder, logger: Logger,
                            onRunning: @escaping @Sendable (String) async -> Void) throws -> some ApplicationProtocol {
        let (host, port) = try HTTPEndpoint.parse(address)
        return Application(
            router: router, server: server,
            configuration: .init(address: .hostname(host, port: port), serverName: nil),
            onServerRunning: { channel in
                await onRunning("\(host):\(channel.localAddress?.port ?? port)")
            },
            logger: logger)
    }
}
