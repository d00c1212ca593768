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

    /// Adds `name` bound at `endpoint`; answers every endpoint known once all of `required` are, and only to the
    /// call that completed them (so a service with several HTTP servers announces itself once, when the last is up).
    public func adding(_ name: String, _ endpoint: String, completing required: Set<String>) -> [String: String]? {
        value.withLock { endpoints in
            let before = required.isSubset(of: endpoints.keys)
            endpoints[name] = endpoint
            return !before && required.isSubset(of: endpoints.keys) ? endpoints : nil
        }
    }
}
