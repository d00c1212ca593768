public struct PropagationResult: Codable, Sendable {
    public var edges: Int
    /// How many of them each step's probes went to (``PropagationConfiguration/probeSample``): the seen rows (`force`,
    /// `expire`, `all`, `rounds`, `worstByEdge`) are theirs, the applied rows every edge's.
    public var probedEdges: Int
    public var repeats: Int
    public var app: String
    /// Seconds between two queries to an edge that did not show the change yet: the delays' resolution.
    public var probeIntervalSeconds: Double
    /// `answer` or `call`: when the probes of each step began (``PropagationConfiguration/ProbeStart``).
    public var probeFrom: String
    /// `zmq` or `http`: what the probes went through (``PropagationConfiguration/ProbeTransport``).
    public var probeOver: String
    /// How many launch queries an edge could have in flight (``PropagationConfiguration/probesInFlight``).
    public var probesInFlight: Int
    /// From the admin answer to the edge's first launch answer showing the forced campaign.
    public var force: DelayStatistics
    /// From the admin answer to the edge's first launch answer no longer showing the expired campaign.
    public var expire: DelayStatistics
    /// Both together.
    public var all: DelayStatistics
    /// How long campaignd took to answer the admin call (durable commit included).
    public var admin: DelayStatistics
    /// Edge answers that showed the change before the admin answer reached adload (counted as 0 ms); always 0 when the
    /// probes begin at the answer.
    public var beforeAdminAnswer: Int
    /// The slowest edge's worst delay, by edge endpoint, in milliseconds.
    public var worstByEdge: [String: Double]
    /// Each force and expire in the order made: whether a high percentile comes from every round or from a few.
    public var rounds: [PropagationRound]
    /// From the admin answer to when each edge applied the forced campaign, by the edge's own clock (on one machine,
    /// the same clock as adload's; to the millisecond): the delays above less the probe's way back and its wait for
    /// the next probe.
    public var forceApplied: DelayStatistics
    /// The same for the expire.
    public var expireApplied: DelayStatistics
    /// Steps at edges that did not say when they applied them (one that moved past the step's seq before it was asked).
    public var appliedUnknown: Int
    /// Steps whose applied time was checked against the edge's probes: it must come after the send of the last probe
    /// the edge answered without the change, and before the first answer with it came back.
    public var appliedChecked: Int
    /// The steps where an edge's applied time falls outside what its probes tell (whole milliseconds apart): the edge's
    /// reading would not be when it began answering with the change. On one machine, none.
    public var appliedOutsideProbes: [String]
    /// How long after each step's probes began the last edge's first probe left: how long adload took to send them
    /// all, or with ``spreadFirstProbes`` about one probe interval.
    public var firstProbes: DelayStatistics
    /// Whether each step's first probes were spread over the probe interval (``PropagationConfiguration/spreadFirstProbes``).
    public var spreadFirstProbes: Bool
    /// Seconds waited before each force and expire (``PropagationConfiguration/stepPause``).
    public var stepPauseSeconds: Double
}

/// One force or expire of a propagation run, in milliseconds.
public struct PropagationRound: Codable, Sendable {
    public var round: Int
    /// `force` or `expire`.
    public var step: String
    /// How long campaignd took to answer the admin call.
    public var adminMilliseconds: Double
    /// From the admin answer to the median edge's first answer showing the change.
    public var p50Milliseconds: Double
    /// From the admin answer to the last edge's.
    public var maxMilliseconds: Double
}
