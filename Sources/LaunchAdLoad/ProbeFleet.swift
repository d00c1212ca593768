import JSONRPC
import LaunchAdDomain
import ZMQRPC
import ZeroMQ

/// Every edge's probe line at once, for one poll loop: a call sent to an edge by its index, and the replies that came
/// handed over by index, each edge with up to ``inFlight`` calls pending.
protocol ProbeFleet: AnyObject {
    var endpoints: [String] { get }
    /// How many calls an edge may have pending; a call sent beyond it gives up the oldest.
    var inFlight: Int { get }
    /// How many calls edge `index` has pending.
    func pending(_ index: Int) -> Int
    /// Sends a call to edge `index`.
    func send(_ index: Int, _ method: String, _ params: JSONValue) throws
    /// Gives up every pending call, so that replies still to come from an earlier step are not taken.
    func forget()
    /// Adds what becomes readable when a reply comes to `poller`.
    func add(to poller: inout Poller)
    /// After `poller` polled: hands each pending call's result that came to `body`, with the edge's index and when the
    /// call was sent (wall clock, stamped before its send).
    func receive(after poller: Poller, _ body: (Int, Timestamp, JSONValue) throws -> Void) throws
}

/// One line to each edge (HTTP connections), each polled on its own, with one call in flight.
final class LineFleet: ProbeFleet {
    private let lines: [any ProbeLine]
    private var first = 0

    init(_ lines: [any ProbeLine]) { self.lines = lines }

    var endpoints: [String] { lines.map(\.endpoint) }
    var inFlight: Int { 1 }

    func pending(_ index: Int) -> Int { lines[index].hasPending ? 1 : 0 }

    func send(_ index: Int, _ method: String, _ params: JSONValue) throws {
        try lines[index].send(method, params)
    }

    func forget() {
        for line in lines { line.forget() }
    }

    func add(to poller: inout Poller) {
        first = poller.count
        for line in lines { line.add(to: &poller) }
    }

    func receive(after poller: Poller, _ body: (Int, Timestamp, JSONValue) throws -> Void) throws {
        for (index, line) in lines.enumerated() where poller.ready(first + index).contains(.readable) {
            if let (result, sentAt) = try line.receive() { try body(index, sentAt, result) }
        }
    }
}

/// One ROUTER socket connected to every edge's client socket, each connection named by the edge's index: a poll
/// waits on one socket and wakes with the replies that came, where with a DEALER to each edge every poll asked every
/// socket for its events (libzmq's `zmq_poll` does, a system call each), and the first probes of a step to hundreds
/// of edges left over several milliseconds.
final class RouterFleet: ProbeFleet {
    let endpoints: [String]
    let inFlight: Int
    /// Each edge's connection's name, by index (``routingId(_:)``).
    private let names: [[UInt8]]
    private let socket: Socket
    private var calls: [PendingCall]
    private let reply = MultipartBuffer(capacity: 4)
    /// The socket's index in the poller.
    private var polled = 0

    init(_ context: ZMQContext, endpoints: [String], inFlight: Int = 1) throws {
        precondition(inFlight >= 1)
        self.endpoints = endpoints
        self.inFlight = inFlight
        names = endpoints.indices.map(Self.routingId)
        calls = Array(repeating: PendingCall(), count: endpoints.count)
        socket = try Socket(context, type: .router)
        try socket.setLinger(milliseconds: 0)
        try socket.setMaxMessageSize(64 * 1024 * 1024)
        // A call to an edge that cannot take it is an error, not a message silently dropped.
        try socket.setRouterMandatory(true)
        for (index, endpoint) in endpoints.enumerated() {
            guard EndpointList.split(endpoint).count == 1 else {
                throw PropagationError.edge(endpoint, "a probed edge is one endpoint, not a list")
            }
            try socket.setConnectRoutingId(names[index])
            try socket.connect(endpoint)
        }
    }

    deinit { socket.close() }

    /// The name of edge `index`'s connection: not starting with a zero byte, which libzmq keeps for names it makes.
    static func routingId(_ index: Int) -> [UInt8] {
        let value = UInt32(index)
        return [0x70, UInt8(value >> 24), UInt8((value >> 16) & 0xff), UInt8((value >> 8) & 0xff), UInt8(value & 0xff)]
    }

    /// The edge a reply came from, by its connection's name; nil for a name not one of ours.
    static func index(of routingId: UnsafeRawBufferPointer, edges: Int) -> Int? {
        guard routingId.count == 5, routingId[0] == 0x70 else { return nil }
        let value = routingId[1...4].reduce(0) { $0 << 8 | Int($1) }
        return value < edges ? value : nil
    }

    func pending(_ index: Int) -> Int { calls[index].count }

    func send(_ index: Int, _ method: String, _ params: JSONValue) throws {
        let (id, bytes) = calls[index].request(method, params)
        let now = Timestamp.now()
        let sent = try socket.send(names[index], more: true, dontWait: true)
            && socket.send(bytes, dontWait: true)
        guard sent else { throw PropagationError.edge(endpoints[index], "cannot send (queue full)") }
        calls[index].sent(id, at: now, keeping: inFlight - 1)
    }

    func forget() {
        for index in calls.indices { calls[index].forget() }
    }

    func add(to poller: inout Poller) {
        polled = poller.add(socket)
    }

    func receive(after poller: Poller, _ body: (Int, Timestamp, JSONValue) throws -> Void) throws {
        guard poller.ready(polled).contains(.readable) else { return }
        while true {
            switch try reply.receive(from: socket, dontWait: true) {
            case .wouldBlock: return
            case .tooManyFrames: continue
            case .message:
                guard reply.count == 2, let edge = Self.index(of: reply.frame(0), edges: endpoints.count) else { continue }
                if let (result, sentAt) = try calls[edge].take(reply.frame(1), endpoint: endpoints[edge]) { try body(edge, sentAt, result) }
            }
        }
    }
}
