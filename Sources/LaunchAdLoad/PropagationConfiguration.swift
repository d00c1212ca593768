import LaunchAdDomain
import SeededRandomness
import ZeroMQ

/// What `adload propagation` does: against a campaignd admin socket and the client sockets of its edges, it forces a
/// campaign and then expires it, again and again, and measures from the admin answer to the moment each edge's
/// launch answer shows the change.
public struct PropagationConfiguration: Sendable {
    public var adminEndpoint: String
    /// CURVE for the admin socket: campaignd's public key and this client's key pair.
    public var adminCurve: (serverKey: String, keyPair: CurveKeyPair)?
    /// The edges' client endpoints.
    public var edges: [String]
    /// The edges' HTTP addresses, in the order of ``edges`` (`nil` for one not known); needed to probe over HTTP.
    public var edgeHTTP: [HTTPAddress?] = []
    /// What the launch queries that look for a change go through.
    public var probeOver = ProbeTransport.zmq
    public var repeats = 10
    /// The app the measuring campaigns are made for; by default a fresh name, so nothing else is touched.
    public var app: String
    /// Seconds an edge may take before the step fails.
    public var timeout = 10.0
    /// Seconds between two launch queries to the same edge while waiting for it to show a change (0: the next
    /// query as soon as the last answer arrives). Each delay is measured to within this interval; probing with no
    /// pause keeps every edge busy answering, which on a small machine slows the very change being measured.
    public var probeInterval = 0.001
    /// When the probes of a step begin.
    public var probeFrom = ProbeStart.answer
    /// How many launch queries an edge may have in flight. With 1 the next query waits for the last one's answer (and
    /// for ``probeInterval``), so an edge slow to answer is probed less often, as the change is applied; with more,
    /// one goes every ``probeInterval`` whatever came back, as phones launching on their own would send them, up to
    /// this many unanswered. Over ZeroMQ only.
    public var probesInFlight = 1
    /// Whether each step's first probes are spread over ``probeInterval`` (edge i's first at i/N of it) instead of
    /// sent to every edge at once: probes every edge sends at the same moments, step after step, where phones
    /// launch at moments of their own. Each edge is still probed every ``probeInterval``.
    public var spreadFirstProbes = false
    /// Seconds adload waits before each force and expire (0: none): with steps further apart than the edges' save delay
    /// and its saves' burst, a step's window holds its own change's work only, as when operators' changes are seconds
    /// apart, not that of the step before (whose saves and acknowledgements otherwise land in it).
    public var stepPause = 0.0
    /// How many of the edges each step's probes go to (`nil`: every edge). Every edge still applies each change and is
    /// asked when it did (the applied rows are every edge's); the seen rows are the sample's. Probing every edge every
    /// few milliseconds is load of its own: with hundreds of edges on a few cores, the probes, their answers and this
    /// process's one thread that times them compete with the change's own work while it is being applied, where each
    /// edge of a real deployment answers its apps on its own machine. The sample is the same in every step, drawn by a
    /// seeded shuffle (``probedEdges``), so that edges listed in a pattern (in turn behind each relay) are drawn from
    /// alike.
    public var probeSample: Int?

    /// The indices in ``edges`` of the edges probed, in order: all of them, or ``probeSample`` of them drawn by a
    /// shuffle seeded with a constant, so that two runs over the same list probe the same edges.
    public var probedEdges: [Int] {
        guard let probeSample, probeSample < edges.count else { return Array(edges.indices) }
        var random = SeededRandom(seed: 1)
        return Array(edges.indices.shuffled(using: &random).prefix(probeSample)).sorted()
    }

    /// When the probes of a step begin: at campaignd's answer, or as soon as the admin call is sent.
    public enum ProbeStart: String, Sendable, CaseIterable {
        /// At the answer: every delay is counted from there, and a change shown before it counts as 0 ms anyway, so
        /// earlier probes add nothing to the delays. They do add load, on the machine whose CPU and disk campaignd's
        /// commit shares when edges run beside it.
        case answer
        /// At the call: the same delays, plus a count of the edges that showed the change before the answer came.
        case call
    }

    /// What the probes go through: the edge's ZeroMQ client socket, or its HTTP `POST /rpc` as apps call it.
    public enum ProbeTransport: String, Sendable, CaseIterable {
        /// The client socket: each query crosses libzmq's I/O thread and the edge's client thread, both ways.
        case zmq
        /// `POST /rpc` on a kept-alive HTTP/1.1 connection: the edge answers on its event loop.
        case http
    }

    public init(adminEndpoint: String, edges: [String], app: String = "adload-propagation-\(UInt32.random(in: 0...UInt32.max))") {
        self.adminEndpoint = adminEndpoint
        self.edges = edges
        self.app = app
    }

    public func validate() throws(LoadConfigurationError) {
        for endpoint in [adminEndpoint] + edges where !(endpoint.hasPrefix("tcp://") || endpoint.hasPrefix("ipc://")) {
            throw .invalid("--admin/--edge", "expected tcp://HOST:PORT or ipc://PATH, got \"\(endpoint)\"")
        }
        guard !edges.isEmpty else { throw .invalid("--edge", "name at least one edge client endpoint") }
        guard Set(edges).count == edges.count else { throw .invalid("--edge", "an edge is named twice") }
        guard edges.count <= 1000 else { throw .invalid("--edge", "at most 1000 edges") }
        if probeOver == .http {
            guard edgeHTTP.count <= edges.count else { throw .invalid("--edge", "more HTTP addresses than edges") }
            for (index, endpoint) in edges.enumerated() where index >= edgeHTTP.count || edgeHTTP[index] == nil {
                throw .invalid("--probe-over", "http needs every edge's HTTP address; \(endpoint) has none")
            }
        }
        guard (1...10_000).contains(repeats) else { throw .invalid("--repeats", "must be 1...10000") }
        guard timeout > 0, timeout <= 600 else { throw .invalid("--timeout", "must be above 0 and at most 600 seconds") }
        guard probeInterval >= 0, probeInterval <= 1 else { throw .invalid("--probe-interval", "must be 0 to 1 second") }
        guard (1...64).contains(probesInFlight) else { throw .invalid("--probes-in-flight", "must be 1...64") }
        if probesInFlight > 1 {
            guard probeOver == .zmq else { throw .invalid("--probes-in-flight", "more than 1 needs --probe-over zmq (an HTTP line holds one call)") }
            guard probeInterval > 0 else { throw .invalid("--probes-in-flight", "more than 1 needs a --probe-interval above 0") }
        }
        if let probeSample, !(1...edges.count).contains(probeSample) {
            throw .invalid("--probe-sample", "must be 1 to the number of edges (\(edges.count))")
        }
        guard stepPause >= 0, stepPause <= 60 else { throw .invalid("--step-pause", "must be 0 to 60000 milliseconds") }
        if spreadFirstProbes, probeInterval == 0 { throw .invalid("--spread-first-probes", "needs a --probe-interval above 0 to spread them over") }
        guard AppID.isValid(app) else { throw .invalid("--app", "must be \(AppID.rule)") }
    }
}
