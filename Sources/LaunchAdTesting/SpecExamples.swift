import JSONRPC

/// The methods of the JSON-RPC 2.0 specification's examples (section 7), and the examples themselves.
public enum SpecExamples {
    public struct SubtractParams: Codable, Sendable, JSONSchemaDescribable {
        public var minuend: Int
        public var subtrahend: Int
        public init(minuend: Int, subtrahend: Int) {
            self.minuend = minuend
            self.subtrahend = subtrahend
        }
        public static var jsonSchema: JSONSchema {
            .object(["minuend": .integer(), "subtrahend": .integer()], required: ["minuend", "subtrahend"])
        }
    }

    public static let subtract = RPCMethod<SubtractParams, Int>("subtract", summary: "minuend - subtrahend",
                                                                idempotent: true, positionalParams: ["minuend", "subtrahend"])
    public static let sum = RPCMethod<[Int], Int>("sum", summary: "The sum of the numbers.", idempotent: true)
    public static let update = RPCMethod<[Int], Bool>("update", summary: "Takes five numbers.")
    public static let notifyHello = RPCMethod<[Int], Bool>("notify_hello", summary: "Says hello.")
    public static let notifySum = RPCMethod<[Int], Int>("notify_sum", summary: "Sums, for nobody.")
    public static let getData = RPCMethod<NoParams, JSONValue>("get_data", summary: "Some data.", idempotent: true)

    /// The methods registered inline.
    public static var methods: MethodTable {
        var table = MethodTable()
        table.register(subtract, inline: { params, _ in params.minuend - params.subtrahend })
        table.register(sum, inline: { numbers, _ in numbers.reduce(0, +) })
        table.register(update, inline: { _, _ in true })
        table.register(notifyHello, inline: { _, _ in true })
        table.register(notifySum, inline: { numbers, _ in numbers.reduce(0, +) })
        table.register(getData, inline: { _, _ in ["hello", 5] })
        return table
    }

    /// The same methods, each registered as an asynchronous handler.
    public static var asyncMethods: MethodTable {
        var table = MethodTable()
        table.register(subtract, handler: { params, _ in
            await Task.yield()
            return params.minuend - params.subtrahend
        })
        table.register(sum, handler: { numbers, _ in numbers.reduce(0, +) })
        table.register(update, handler: { _, _ in true })
        table.register(notifyHello, handler: { _, _ in true })
        table.register(notifySum, handler: { numbers, _ in numbers.reduce(0, +) })
        table.register(getData, handler: { _, _ in ["hello", 5] })
        return table
    }

    public static func dispatcher(async: Bool = false) -> JSONRPCDispatcher {
        JSONRPCDispatcher(methods: async ? asyncMethods : methods, info: OpenRPCInfo(title: "spec examples", version: "1.0"))
    }

    /// One example: what is sent and what must come back (`nil`: nothing).
    public struct Example: Sendable, CustomStringConvertible {
        public let name: String
        public let request: String
        public let response: String?
        public var description: String { name }
    }

    /// Section 7 of the specification, verbatim requests; expected responses as the specification gives them.
    public static let all: [Example] = [
        Example(name: "positional params", request: #"{"jsonrpc": "2.0", "method": "subtract", "params": [42, 23], "id": 1}"#,
                response: #"{"jsonrpc": "2.0", "result": 19, "id": 1}"#),
        Example(name: "positional params reversed", request: #"{"jsonrpc": "2.0", "method": "subtract", "params": [23, 42], "id": 2}"#,
                response: #"{"jsonrpc": "2.0", "result": -19, "id": 2}"#),
        Example(name: "named params", request: #"{"jsonrpc": "2.0", "method": "subtract", "params": {"subtrahend": 23, "minuend": 42}, "id": 3}"#,
                response: #"{"jsonrpc": "2.0", "result": 19, "id": 3}"#),
        Example(name: "named params reordered", request: #"{"jsonrpc": "2.0", "method": "subtract", "params": {"minuend": 42, "subtrahend": 23}, "id": 4}"#,
                response: #"{"jsonrpc": "2.0", "result": 19, "id": 4}"#),
        Example(name: "notification", request: #"{"jsonrpc": "2.0", "method": "update", "params": [1,2,3,4,5]}"#, response: nil),
        Example(name: "notification of unknown method", request: #"{"jsonrpc": "2.0", "method": "foobar"}"#, response: nil),
        Example(name: "unknown method", request: #"{"jsonrpc": "2.0", "method": "foobar", "id": "1"}"#,
                response: #"{"jsonrpc": "2.0", "error": {"code": -32601, "message": "Method not found"}, "id": "1"}"#),
        Example(name: "invalid JSON", request: #"{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]"#,
                response: #"{"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}, "id": null}"#),
        Example(name: "invalid request", request: #"{"jsonrpc": "2.0", "method": 1, "params": "bar"}"#,
                response: #"{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}"#),
        Example(name: "batch with invalid JSON", request: """
            [
              {"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},
              {"jsonrpc": "2.0", "method"
            ]
            """, response: #"{"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}, "id": null}"#),
        Example(name: "empty batch", request: "[]",
                response: #"{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}"#),
        Example(name: "batch of one invalid", request: "[1]",
                response: #"[{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}]"#),
        Example(name: "batch of three invalid", request: "[1,2,3]", response: """
            [
              {"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null},
              {"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null},
              {"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}
            ]
            """),
        Example(name: "mixed batch", request: """
            [
                {"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},
                {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]},
                {"jsonrpc": "2.0", "method": "subtract", "params": [42,23], "id": "2"},
                {"foo": "boo"},
                {"jsonrpc": "2.0", "method": "foo.get", "params": {"name": "myself"}, "id": "5"},
                {"jsonrpc": "2.0", "method": "get_data", "id": "9"}
            ]
            """, response: """
            [
                {"jsonrpc": "2.0", "result": 7, "id": "1"},
                {"jsonrpc": "2.0", "result": 19, "id": "2"},
                {"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null},
                {"jsonrpc": "2.0", "error": {"code": -32601, "message": "Method not found"}, "id": "5"},
                {"jsonrpc": "2.0", "result": ["hello", 5], "id": "9"}
            ]
            """),
        Example(name: "batch of notifications", request: """
            [
                {"jsonrpc": "2.0", "method": "notify_sum", "params": [1,2,4]},
                {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]}
            ]
            """, response: nil),
    ]

    /// A response with each error's message reduced to its code, so the specification's fixed texts can be
    /// compared with this implementation's more precise ones. Also checks that no other top-level member exists.
    public static func normalized(_ response: JSONValue) -> JSONValue {
        switch response {
        case .array(let elements): return .array(elements.map(normalized))
        case .object(var object):
            if case .object(let error)? = object["error"] {
                object["error"] = ["code": error["code"] ?? .null]
            }
            return .object(object)
        default: return response
        }
    }
}
