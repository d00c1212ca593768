/// A JSON-RPC 2.0 error object: a code, a short message and optional data.
public struct JSONRPCError: Error, Sendable, Hashable, CustomStringConvertible {
    public var code: Int
    public var message: String
    public var data: JSONValue?

    public init(code: Int, message: String, data: JSONValue? = nil) {
        self.code = code
        self.message = message
        self.data = data
    }

    public var description: String { "\(message) (\(code))" }

    // MARK: The standard errors of the specification

    public static let parseErrorCode = -32700
    public static let invalidRequestCode = -32600
    public static let methodNotFoundCode = -32601
    public static let invalidParamsCode = -32602
    public static let internalErrorCode = -32603

    /// -32700: the message is not valid JSON (or not UTF-8).
    public static func parseError(_ detail: String) -> JSONRPCError {
        JSONRPCError(code: parseErrorCode, message: "Parse error: \(detail)")
    }

    /// -32600: the JSON is not a valid request object.
    public static func invalidRequest(_ detail: String) -> JSONRPCError {
        JSONRPCError(code: invalidRequestCode, message: "Invalid Request: \(detail)")
    }

    /// -32601: no such method (on this socket).
    public static func methodNotFound(_ method: String) -> JSONRPCError {
        JSONRPCError(code: methodNotFoundCode, message: "Method not found: \(method)")
    }

    /// -32602: the params do not fit the method; `field` names the offending one when there is one.
    public static func invalidParams(field: String?, _ reason: String) -> JSONRPCError {
        guard let field, !field.isEmpty else {
            return JSONRPCError(code: invalidParamsCode, message: "Invalid params: \(reason)")
        }
        return JSONRPCError(code: invalidParamsCode, message: "Invalid params: \(field): \(reason)",
                            data: ["field": .string(field), "reason": .string(reason)])
    }

    /// -32603: something failed inside the server; no internals are given away.
    public static let internalError = JSONRPCError(code: internalErrorCode, message: "Internal error")

    /// The error as a JSON object.
    public var json: JSONValue {
        var object: JSONObject = ["code": .number(JSONNumber(code)), "message": .string(message)]
        if let data { object["data"] = data }
        return .object(object)
    }

    /// Reads an error object, or `nil` when `value` is not one.
    public init?(json value: JSONValue) {
        guard case .object(let object) = value, let code = object["code"]?.intValue,
              let message = object["message"]?.stringValue else { return nil }
        self.init(code: code, message: message, data: object["data"])
    }
}

/// A domain error that knows its JSON-RPC form. Conform at the service boundary, not in the domain.
public protocol JSONRPCErrorConvertible: Error {
    var jsonRPCError: JSONRPCError { get }
}

extension JSONRPCError: JSONRPCErrorConvertible {
    public var jsonRPCError: JSONRPCError { self }
}

/// A request id: a string, a number or null, echoed back with its JSON type.
public enum JSONRPCID: Sendable, Hashable, CustomStringConvertible {
    case string(String)
    case number(JSONNumber)
    case null

    /// The id as JSON.
    public var json: JSONValue {
        switch self {
        case .string(let string): .string(string)
        case .number(let number): .number(number)
        case .null: .null
        }
    }

    public var description: String { json.jsonText }
}
