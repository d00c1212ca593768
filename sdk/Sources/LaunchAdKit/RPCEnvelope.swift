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
    /// The edge answered with a JSON-RPC error (the call itself was refused: retrying it will not help).
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
    }

    public var description: String {
        switch self {
        case .rpc(let error): "the edge refused the call: \(error.message) (\(error.code))"
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
