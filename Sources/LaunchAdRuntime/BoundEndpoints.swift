import Locking

/// The endpoints a service has bound so far, by name: its sockets once they are bound, then its HTTP address once
/// that is up, for the ready file and the log. Shared between the service and the HTTP server's start callback.
public final class BoundEndpoints: Sendable {
    private let value = Locked<[String: String]>([:])

    public init() {}

    /// Replaces what is known with `endpoints`.
    public func set(_ endpoints: [String: String]) {
        value.withLock { $0 = endpoints }
    }

    /// Every endpoint known, with `name` bound at `endpoint` added.
    public func adding(_ name: String, _ endpoint: String) -> [String: String] {
        value.withLock { endpoints in
            endpoints[name] = endpoint
            return endpoints
        }
    }
}
