import Hummingbird
import HummingbirdCore
import HummingbirdHTTP2
import LaunchAdRuntime
import NIOSSL

/// deliveryd's public HTTP server: `/rpc` and `/launch-ad` answered below the router by ``HTTPEdgeHandler``, the rest
/// by Hummingbird, in clear text or TLS with HTTP/2 through ALPN, every connection admitted and watched by `gate`.
enum EdgeHTTPServer {
    /// The public address's server: every HTTP/1.1 connection and HTTP/2 stream gets an ``HTTPEdgeHandler``.
    static func publicServer(door: HTTPFrontDoor, tls: TLSConfiguration?, gate: HTTPConnectionGate, idleTimeout: Duration) throws -> HTTPServerBuilder {
        // Timeouts are the handler's and the gate's (Hummingbird's idle timer does not see the requests answered below
        // it); an HTTP/2 connection with no stream open is closed by its own: GOAWAY and a PING, then, when the client
        // does not answer within the same time, closed all the same (with no grace timeout it waited for good).
        let streams = HTTP1Channel.Configuration(
            additionalChannelHandlers: HTTPConnectionGate.adding(to: { [HTTPEdgeInstaller(door: door)] })(), idleTimeout: nil)
        guard let tls else { return gate.server { HTTP1Channel(responder: $0, configuration: streams) } }
        let connections = HTTP2UpgradeChannel.Configuration(idleTimeout: idleTimeout, gracefulCloseTimeout: idleTimeout, streamConfiguration: streams)
        return gate.server { try HTTP2UpgradeChannel(tlsConfiguration: tls, configuration: connections, responder: $0) }
    }
}
