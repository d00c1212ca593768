import ZeroMQ

/// What a load run does.
public struct LoadConfiguration: Sendable {
    /// A `deliveryd` client endpoint (or any server speaking the launch API).
    public var endpoint: String
    /// DEALER sockets, each its own connection.
    public var connections = 4
    /// Requests in flight per connection: the closed loop's window, the open loop's cap.
    public var window = 64
    /// Requests per second in total: an open loop, latency measured from each request's intended send time.
    /// `nil`: a closed loop, each reply sending the next request.
    public var rate: Double?
    /// Seconds measured (after the warm-up).
    public var duration = 10.0
    /// Stop after this many measured requests instead (the duration is then an upper bound).
    public var requests: Int?
    /// Seconds of load before measuring; their replies count nowhere.
    public var warmup = 1.0
    /// Simulated phones, and the apps they run.
    public var devices = 10_000
    public var apps = ["shop"]
    public var seed: UInt64 = 1
    /// Share of launch queries that are hot starts.
    public var hotShare = 0.2
    public var mix = RequestMix()
    /// Seconds after which a request without a reply counts as a timeout.
    public var timeout = 5.0
    /// Threads sending and receiving, the connections spread over them.
    public var threads = 1
    /// CURVE: the server's public key, and this client's key pair.
    public var curve: (serverKey: String, keyPair: CurveKeyPair)?

    public init(endpoint: String) { self.endpoint = endpoint }

    public func validate() throws(LoadConfigurationError) {
        guard endpoint.hasPrefix("tcp://") || endpoint.hasPrefix("ipc://") || endpoint.hasPrefix("inproc://") else {
            throw .invalid("--endpoint", "expected tcp://HOST:PORT or ipc://PATH, got \"\(endpoint)\"")
        }
        guard (1...4096).contains(connections) else { throw .invalid("--connections", "must be 1...4096") }
        guard (1...65_536).contains(window) else { throw .invalid("--window", "must be 1...65536") }
        if let rate { guard rate > 0, rate <= 10_000_000, rate.isFinite else { throw .invalid("--rate", "must be above 0 and at most 10,000,000 per second") } }
        guard duration > 0, duration <= 86_400 else { throw .invalid("--duration", "must be above 0 and at most 86400 seconds") }
        if let requests { guard requests > 0 else { throw .invalid("--requests", "must be at least 1") } }
        guard warmup >= 0, warmup <= 3600 else { throw .invalid("--warmup", "must be 0...3600 seconds") }
        guard (1...10_000_000).contains(devices) else { throw .invalid("--devices", "must be 1...10000000") }
        // Not the app-id rule (`AppID`): a load may name apps the edge refuses, to measure its refusals (AdloadTests).
        guard !apps.isEmpty, apps.allSatisfy({ !$0.isEmpty && $0.utf8.count <= 64 }) else {
            throw .invalid("--apps", "a comma-separated list of app names of 1 to 64 bytes")
        }
        guard (0...1).contains(hotShare) else { throw .invalid("--hot-share", "must be between 0 and 1") }
        guard timeout > 0, timeout <= 600 else { throw .invalid("--timeout", "must be above 0 and at most 600 seconds") }
        guard (1...64).contains(threads), threads <= connections else {
            throw .invalid("--threads", "must be 1...64 and no more than --connections")
        }
        guard devices >= threads else { throw .invalid("--devices", "must be at least --threads") }
    }

    var mode: String { rate == nil ? "closed" : "open" }
}
