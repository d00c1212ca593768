import Foundation
import JSONRPC
import LaunchAdDomain
import ZeroMQ

/// A way to call one edge with one JSON-RPC call in flight, all on the calling thread: its ZeroMQ client socket
/// (``CallLine``) or its HTTP `POST /rpc` (``HTTPCallLine``).
protocol ProbeLine: AnyObject {
    /// The address the line was opened to, as given.
    var endpoint: String { get }
    /// Sends a call; the line holds one in flight (a later one replaces the pending one).
    func send(_ method: String, _ params: JSONValue) throws
    /// Whether a call is pending.
    var hasPending: Bool { get }
    /// Gives up the pending call: its reply is not taken.
    func forget()
    /// The pending call's result if its reply has come, with when the call was sent (stamped before its send); throws
    /// its error.
    func receive() throws -> (result: JSONValue, sentAt: Timestamp)?
    /// Adds what becomes readable when a reply comes to `poller`.
    func add(to poller: inout Poller)
    /// One call, waiting at most `timeout` seconds for its result.
    func call(_ method: String, _ params: JSONValue, timeout: Double) throws -> JSONValue
}

extension ProbeLine {
    /// The pending call's result, waited for until `deadline`.
    func result(of method: String, until deadline: Date) throws -> JSONValue {
        var poller = Poller()
        add(to: &poller)
        while Date() < deadline {
            if try poller.poll(timeoutMilliseconds: 50) > 0, let reply = try receive() { return reply.result }
        }
        throw PropagationError.timedOut("\(method) on \(endpoint)", [endpoint])
    }
}

/// The calls a line has in flight: the ids it gives its requests, when each was sent, and which reply answers one.
struct PendingCall {
    private var nextId: UInt64 = 1
    /// The calls sent and not answered yet, oldest first, each with when it was sent (wall clock).
    private var pending: [(id: UInt64, sentAt: Timestamp)] = []

    /// How many calls are pending.
    var count: Int { pending.count }

    /// The next request's id and bytes; it is pending once ``sent(_:at:keeping:)`` says it went.
    mutating func request(_ method: String, _ params: JSONValue) -> (id: UInt64, bytes: [UInt8]) {
        let id = nextId
        nextId += 1
        var writer = JSONWriter()
        writer.writeObject { object in
            object.field("jsonrpc", "2.0")
            object.field("id", Int(id))
            object.field("method", method)
            object.field("params", params)
        }
        return (id, writer.bytes)
    }

    /// Call `id` went (stamped `sentAt`, before its send): it is pending, with the `keeping` calls sent before it at
    /// most (older ones are given up, and a reply to them is not taken); by default it replaces any call pending.
    mutating func sent(_ id: UInt64, at sentAt: Timestamp, keeping: Int = 0) {
        pending.removeFirst(max(0, pending.count - keeping))
        pending.append((id, sentAt))
    }

    /// Gives up every call pending: their replies are not taken.
    mutating func forget() {
        pending.removeAll()
    }

    /// The result (`.null` when it has none) of the pending call `reply` answers, with when that call was sent, and then
    /// that call is no longer pending; `nil` for a reply to no pending call or one that is not a JSON-RPC response.
    /// Throws the call's error.
    mutating func take(_ reply: UnsafeRawBufferPointer, endpoint: String) throws(PropagationError) -> (result: JSONValue, sentAt: Timestamp)? {
        guard let value = try? JSONParser.parse(reply), let object = value.objectValue,
              case let .number(number)? = object["id"], let id = UInt64(number.text),
              let position = pending.firstIndex(where: { $0.id == id }) else { return nil }
        let sentAt = pending.remove(at: position).sentAt
        if let error = object["error"]?.objectValue {
            throw .edge(endpoint, "\(error["message"]?.stringValue ?? "error") (\(error["code"]?.intValue ?? 0))")
        }
        return (object["result"] ?? .null, sentAt)
    }
}
