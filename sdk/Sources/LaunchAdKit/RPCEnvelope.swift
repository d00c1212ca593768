import Foundation

/// A JSON-RPC 2.0 call as the SDK sends it to an edge's `POST /rpc`.
struct RPCCall<Params: Encodable>: Encodable {
    let jsonrpc = "2.0"
    let id: Int
    let method: String
    let params: Params
}

/// A JSON-RPC 2.0 response: a result or an error.
struct RPCReply<Result: Decodable>: Decodable {
    let result: Result?
    let error: EdgeError.RPCError?
}

/// What went wrong talking to an edge.
public enum EdgeError: Error, Equatable, CustomStringConvertible {
    /// The edge answered with a JSON-RPC error: a refusal of the call itself, which retrying will not help
    /// (``RPCError/refusesTheCall``), or one that says nothing of it (the edge busy, an internal error), which a
    /// later retry may get past.
    case rpc(RPCError)
    /// No answer within the time allowed.
    case timedOut
    /// The HTTP exchange failed or answered another status than expected.
    case transport(String)
    /// The answer was not the JSON the method promises.
    case malformed(String)

    public struct RPCError: Decodable, Equatable, Sendable {
        public let code: Int
        public let message: String
        /// The member of the params the edge names as the one at fault (its error's `data.field`, as
        /// `events[0].at`), when it names one.
        public let field: String?

        private struct Details: Decodable {
            var field: String?
        }

        private enum CodingKeys: String, CodingKey {
            case code, message, data
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            code = try container.decode(Int.self, forKey: .code)
            message = try container.decode(String.self, forKey: .message)
            // `data` is the server's to shape: anything but an object naming a field is no field.
            field = (try? container.decodeIfPresent(Details.self, forKey: .data))?.field
        }

        /// Whether the call itself is at fault (JSON-RPC's parse error, invalid request, unknown method, invalid
        /// params): the same call is refused again. Any other code (the edge busy, an internal error) says nothing of
        /// the call, which may go through later.
        public var refusesTheCall: Bool { (-32602 ... -32600).contains(code) || code == -32700 }

        /// Whether the edge is busy (-32006: too many large replies unread by its peers): the call is to be retried
        /// later, however long that takes.
        public var isBusy: Bool { code == -32006 }
    }

    public var description: String {
        switch self {
        case .rpc(let error): error.refusesTheCall ? "the edge refused the call: \(error.message) (\(error.code))"
            : "the edge answered an error: \(error.message) (\(error.code))"
        case .timedOut: "the edge did not answer in time"
        case .transport(let reason): "HTTP: \(reason)"
        case .malformed(let reason): "a malformed answer: \(reason)"
        }
    }
}

/// RFC 3339 times as the edge writes them (`2026-11-21T13:21:53Z`, or with milliseconds).
enum RFC3339 {
    static func date(_ text: String) -> Date? {
        if let date = try? Date(text, strategy: .iso8601) { return date }
        return try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    static func text(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
