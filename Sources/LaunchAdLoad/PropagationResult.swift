public struct PropagationResult: Codable, Sendable {
    public var edges: Int
    public var repeats: Int
    public var app: String
    /// Seconds between two queries to an edge that did not show the change yet: the delays' resolution.
    public var probeIntervalSeconds: Double
    /// From the admin answer to the edge's first launch answer showing the forced campaign.
    public var force: DelayStatistics
    /// From the admin answer to the edge's first launch answer no longer showing the expired campaign.
    public var expire: DelayStatistics
    /// Both together.
    public var all: DelayStatistics
    /// How long campaignd took to answer the admin call (durable commit included).
    public var admin: DelayStatistics
    /// Edge answers that showed the change before the admin answer reached adload (counted as 0 ms).
    public var beforeAdminAnswer: Int
    /// The slowest edge's worst delay, by edge endpoint, in milliseconds.
    public var worstByEdge: [String: Double]
}
