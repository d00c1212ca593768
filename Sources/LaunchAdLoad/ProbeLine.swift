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

/// A JSON-RPC request as the lines write it.
enum ProbeRequest {
    static func bytes(id: UInt64, method: String, params: JSONValue) -> [UInt8] {
        var writer = JSONWriter()
        writer.writeObject { object in
            object.field("jsonrpc", "2.0")
            object.field("id", Int(id))
            object.field("method", method)
            object.field("params", params)
        }
        return writer.bytes
    }

    /// What a reply means for the call `pending`: `nil` when it answers another call (or is not a JSON-RPC response),
    /// else the call's result (`.null` when it has none) or its error.
    static func reply(_ bytes: UnsafeRawBufferPointer, pending: UInt64?, endpoint: String) -> Result<JSONValue, PropagationError>? {
        guard let value = try? JSONParser.parse(bytes), let object = value.objectValue,
              case let .number(number)? = object["id"], UInt64(number.text) == pending else { return nil }
        if let error = object["error"]?.objectValue {
            return .failure(.edge(endpoint, "\(error["message"]?.stringValue ?? "error") (\(error["code"]?.intValue ?? 0))"))
        }
        return .success(object["result"] ?? .null)
    }
}
