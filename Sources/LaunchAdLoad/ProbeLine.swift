import Foundation
import JSONRPC
import ZeroMQ

/// A way to call one edge with one JSON-RPC call in flight, all on the calling thread: its ZeroMQ client socket
/// (``CallLine``) or its HTTP `POST /rpc` (``HTTPCallLine``).
protocol ProbeLine: AnyObject {
    /// The address the line was opened to, as given.
    var endpoint: String { get }
    /// Sends a call; the line holds one in flight (a later one replaces the pending one).
    func send(_ method: String, _ params: JSONValue) throws
    /// The pending call's result if its reply has come; throws its error.
    func receive() throws -> JSONValue?
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
            if try poller.poll(timeoutMilliseconds: 50) > 0, let result = try receive() { return result }
        }
        throw PropagationError.timedOut("\(method) on \(endpoint)", [endpoint])
    }
}

/// The call a line has in flight: the ids it gives its requests, and which reply answers the pending one.
struct PendingCall {
    private var nextId: UInt64 = 1
    private var pending: UInt64?

    /// The next request's id and bytes; it is pending once ``sent(_:)`` says it went.
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

    mutating func sent(_ id: UInt64) {
        pending = id
    }

    /// The pending call's result (`.null` when it has none) if `reply` answers it, and then nothing is pending; `nil`
    /// for a reply to another call or one that is not a JSON-RPC response. Throws the call's error.
    mutating func take(_ reply: UnsafeRawBufferPointer, endpoint: String) throws(PropagationError) -> JSONValue? {
        guard let value = try? JSONParser.parse(reply), let object = value.objectValue,
              case let .number(number)? = object["id"], UInt64(number.text) == pending else { return nil }
        pending = nil
        if let error = object["error"]?.objectValue {
            throw .edge(endpoint, "\(error["message"]?.stringValue ?? "error") (\(error["code"]?.intValue ?? 0))")
        }
        return object["result"] ?? .null
    }
}
