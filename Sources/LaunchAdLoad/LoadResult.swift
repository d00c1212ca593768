/// What a load run measured; `adload --json` prints it as is.
public struct LoadResult: Codable, Sendable {
    public struct Latency: Codable, Sendable {
        public var samples: Int
        public var meanMicroseconds: Double
        public var p50Microseconds: Double
        public var p90Microseconds: Double
        public var p99Microseconds: Double
        public var p999Microseconds: Double
        public var maxMicroseconds: Double
    }

    public struct Errors: Codable, Sendable {
        /// JSON-RPC error replies by code (as text, for JSON object keys).
        public var byCode: [String: Int]
        /// Requests without a reply within the timeout.
        public var timeouts: Int
        /// Replies that were not JSON-RPC responses to a request of ours.
        public var invalid: Int
        /// Replies that came after their request had timed out (not counted as completed).
        public var late: Int
        /// Requests that could not be sent (the socket's queue was full).
        public var sendFailures: Int
        public var total: Int { byCode.values.reduce(0, +) + timeouts + invalid }
    }

    public var endpoint: String
    public var mode: String
    public var connections: Int
    public var window: Int
    public var threads: Int
    public var targetRate: Double?
    public var mix: String
    public var devices: Int
    public var seed: UInt64
    public var warmupSeconds: Double
    public var seconds: Double
    public var completed: Int
    public var requestsPerSecond: Double
    public var ok: Int
    /// Share of launch answers that carried an ad (over all successful replies).
    public var withAd: Int
    public var latency: Latency
    public var errors: Errors
    public var clientCPUSeconds: Double
}
