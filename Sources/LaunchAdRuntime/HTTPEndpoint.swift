import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import Prometheus

/// Builds a service's small HTTP server (`/metrics`, `/healthz`, and whatever else it routes).
public enum HTTPEndpoint {
    /// Splits `host:port` (port 0 picks a free one).
    public static func parse(_ address: String) throws -> (host: String, port: Int) {
        guard let colon = address.lastIndex(of: ":"), let port = Int(address[address.index(after: colon)...]),
              (0...65_535).contains(port) else {
            throw RuntimeError.configuration("HTTP address \(address) must be host:port")
        }
        var host = String(address[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { throw RuntimeError.configuration("HTTP address \(address) needs a host") }
        return (host, port)
    }

    /// An application on `address` with `router`, served by `server` (a gate's, ``HTTPConnectionGate``, so that its
    /// connections have header and idle timeouts); `onRunning` gets the address really bound (`host:port`). The
    /// router's context is any that an application makes (the console's keeps the client's address).
    public static func application<Context: RequestContext>(address: String, router: Router<Context>, server: HTTPServerBuilder,
                                                            logger: Logger,
                                                            onRunning: @escaping @Sendable (String) async -> Void) throws -> some ApplicationProtocol
    where Context.Source == ApplicationRequestContextSource {
        let (host, port) = try parse(address)
        return Application(
            router: router, server: server,
            configuration: .init(address: .hostname(host, port: port), serverName: nil),
            onServerRunning: { channel in
                let bound = channel.localAddress?.port ?? port
                await onRunning("\(host):\(bound)")
            },
            logger: logger)
    }

    /// `/metrics`' answer: the registry's text, as Prometheus reads it.
    public static func metricsResponse(_ registry: PrometheusCollectorRegistry) -> Response {
        Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                 body: .init(byteBuffer: ByteBuffer(string: metricsText(registry))))
    }

    /// The text of a Prometheus registry.
    public static func metricsText(_ registry: PrometheusCollectorRegistry) -> String {
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }
}
