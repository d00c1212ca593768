import JSONRPC
import ZMQRPC
import ZeroMQ

/// Every edge's probe line at once, for one poll loop: a call sent to an edge by its index, and the replies that came
/// handed over by index, each edge with one call in flight.
protocol ProbeFleet: AnyObject {
    var endpoints: [String] { get }
    /// Sends a call to edge `index`; it replaces the one pending there.
    func send(_ index: Int, _ method: String, _ params: JSONValue) throws
    /// Adds what becomes readable when a reply comes to `poller`.
    func add(to poller: inout Poller)
    /// After `poller` polled: hands each edge's pending call's result that came to `body`, with the edge's index.
    func receive(after poller: Poller, _ body: (Int, JSONValue) throws -> Void) throws
}

/// One line to each edge (HTTP connections), each polled on its own.
final class LineFleet: ProbeFleet {
    private let lines: [any ProbeLine]
    private var first = 0

    init(_ lines: [any ProbeLine]) { self.lines = lines }

    var endpoints: [String] { lines.map(\.endpoint) }

    func send(_ index: Int, _ method: String, _ params: JSONValue) throws {
        try lines[index].send(method, params)
    }

    func add(to poller: inout Poller) {
        first = poller.count
        for line in lines { line.add(to: &poller) }
    }

    func receive(after poller: Poller, _ body: (Int, JSONValue) throws -> Void) throws {
        for (index, line) in lines.enumerated() where poller.ready(first + index).contains(.readable) {
            if let result = try line.receive() { try body(index, result) }
        }
    }
}

/// One ROUTER socket connected to every edge's client socket, each connection named by the edge's index: a poll
/// waits on one socket and wakes with the replies that came, where with a DEALER to each edge every poll asked every
/// socket for its events (libzmq's `zmq_poll` does, a system call each), and the first probes of a step to hundreds
/// of edges left over several milliseconds.
final class RouterFleet: ProbeFleet {
    let endpoints: [String]
    /// Each edge's connection's name, by index (``routingId(_:)``).
    private let names: [[UInt8]]
    private let socket: Socket
    private var calls: [PendingCall]
    private let reply = MultipartBuffer(capacity: 4)
    /// The socket's index in the poller.
    private var polled = 0

    init(_ context: ZMQContext, endpoints: [String]) throws {
        self.endpoints = endpoints
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

    func send(_ index: Int, _ method: String, _ params: JSONValue) throws {
        let (id, bytes) = calls[index].request(method, params)
        let sent = try socket.send(names[index], more: true, dontWait: true)
            && socket.send(bytes, dontWait: true)
        guard sent else { throw PropagationError.edge(endpoints[index], "cannot send (queue full)") }
        calls[index].sent(id)
    }

    func add(to poller: inout Poller) {
        polled = poller.add(socket)
    }

    func receive(after poller: Poller, _ body: (Int, JSONValue) throws -> Void) throws {
        guard poller.ready(polled).contains(.readable) else { return }
        while true {
            switch try reply.receive(from: socket, dontWait: true) {
            case .wouldBlock: return
            case .tooManyFrames: continue
            case .message:
                guard reply.count == 2, let edge = Self.index(of: reply.frame(0), edges: endpoints.count) else { continue }
                if let result = try calls[edge].take(reply.frame(1), endpoint: endpoints[edge]) { try body(edge, result) }
            }
        }
    }
}
