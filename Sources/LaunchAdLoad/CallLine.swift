import Foundation
import JSONRPC
import LaunchAdDomain
import ZeroMQ
import ZMQRPC

/// A DEALER socket (to one endpoint, or to a comma-separated list) with one JSON-RPC call in flight at a time; all on
/// the calling thread.
final class CallLine: ProbeLine {
    let endpoint: String
    let socket: Socket
    private var calls = PendingCall()
    private let message = Message()

    init(_ context: ZMQContext, endpoint: String, curve: (serverKey: String, keyPair: CurveKeyPair)?) throws {
        self.endpoint = endpoint
        socket = try Socket(context, type: .dealer)
        try socket.setLinger(milliseconds: 0)
        try socket.setMaxMessageSize(64 * 1024 * 1024)
        if let curve { try socket.makeCurveClient(serverKey: curve.serverKey, keyPair: curve.keyPair) }
        // Several endpoints (campaignd sharing a database): calls go only to those connected, whichever answers.
        let endpoints = EndpointList.split(endpoint)
        if endpoints.count > 1 { try socket.setImmediate(true) }
        for endpoint in endpoints { try socket.connect(endpoint) }
    }

    deinit { socket.close() }

    func send(_ method: String, _ params: JSONValue) throws {
        guard try trySend(method, params) else { throw PropagationError.edge(endpoint, "cannot send (queue full)") }
    }

    /// Sends the call unless no connected peer can take it now; returns whether it went.
    private func trySend(_ method: String, _ params: JSONValue) throws -> Bool {
        let (id, bytes) = calls.request(method, params)
        let now = Timestamp.now()
        guard try socket.send(bytes, dontWait: true) else { return false }
        calls.sent(id, at: now)
        return true
    }

    var hasPending: Bool { calls.count > 0 }

    func forget() { calls.forget() }

    func receive() throws -> (result: JSONValue, sentAt: Timestamp)? {
        while try socket.receive(into: message, dontWait: true) {
            if let reply = try message.withUnsafeBytes({ try calls.take($0, endpoint: endpoint) }) { return reply }
        }
        return nil
    }

    func add(to poller: inout Poller) {
        poller.add(socket)
    }

    /// One call, waiting at most `timeout` seconds.
    /// Until the deadline, a call that cannot go yet (no peer connected, as between a campaignd's death and the
    /// connection to another) waits for one.
    func call(_ method: String, _ params: JSONValue, timeout: Double) throws -> JSONValue {
        let deadline = Date().addingTimeInterval(timeout)
        while try !trySend(method, params) {
            guard Date() < deadline else { throw PropagationError.timedOut("\(method) on \(endpoint): no connection", [endpoint]) }
            usleep(5_000)
        }
        return try result(of: method, until: deadline)
    }
}
