/// What an OpenRPC document says of the API as a whole.
public struct OpenRPCInfo: Sendable {
    public var title: String
    public var version: String
    public var description: String?

    public init(title: String, version: String, description: String? = nil) {
        self.title = title
        self.version = version
        self.description = description
    }
}

/// Builds OpenRPC 1.3 documents from typed method descriptions.
///
/// Each method's params are listed one content descriptor per member of its params object (unknown members are
/// refused with -32602, as the strict decoder does); schemas of types used in several places are kept once under
/// `components/schemas`; every error is kept once under `components/errors` with its meaning, and each method
/// lists by `$ref` the ones it may return.
public enum OpenRPC {
    /// The OpenRPC version written.
    public static let version = "1.3.2"

    /// `rpc.discover`, answered on every socket with that socket's document.
    static let discoverInfo = MethodInfo(
        name: "rpc.discover", summary: "Returns the OpenRPC document of this socket's API.", description: nil,
        idempotent: true, positionalParams: [], errors: [], paramsSchema: NoParams.jsonSchema.json,
        resultSchema: ["type": "object"], components: [:], examples: [])

    /// The errors of the JSON-RPC 2.0 specification, by their names under `components/errors`.
    public static let standardErrors: [(name: String, error: RPCErrorInfo)] = [
        ("ParseError", RPCErrorInfo(code: JSONRPCError.parseErrorCode,
                                    message: "Parse error: the message is not valid UTF-8 JSON (or nests too deep, or repeats a key); the id is null")),
        ("InvalidRequest", RPCErrorInfo(code: JSONRPCError.invalidRequestCode,
                                        message: "Invalid Request: not a request object, or an empty or oversized batch")),
        ("MethodNotFound", RPCErrorInfo(code: JSONRPCError.methodNotFoundCode, message: "Method not found on this socket")),
        ("InvalidParams", RPCErrorInfo(code: JSONRPCError.invalidParamsCode,
                                       message: "Invalid params: a missing or unknown member, a wrong type or a value out of range; data.field names the field (screen.width, creatives[1].sha256) and data.reason the rule")),
        ("InternalError", RPCErrorInfo(code: JSONRPCError.internalErrorCode,
                                       message: "Internal error: something failed inside the service; nothing of it is given away")),
    ]

    static let errorsPrefix = "#/components/errors/"

    /// The document for `methods` (`rpc.discover` itself is implied, as the OpenRPC specification says).
    public static func document(info: OpenRPCInfo, methods: [MethodInfo]) -> JSONValue {
        var infoObject: JSONObject = ["title": .string(info.title), "version": .string(info.version)]
        if let description = info.description { infoObject["description"] = .string(description) }
        let documented = methods.filter { $0.name != discoverInfo.name }.sorted { $0.name < $1.name }

        var schemas: [String: JSONValue] = [:]
        var errors: [String: JSONValue] = [:]
        for (name, error) in standardErrors {
            errors[name] = ["code": .number(JSONNumber(error.code)), "message": .string(error.message)]
        }
        for method in documented {
            schemas.merge(method.components) { first, _ in first }
            for error in method.errors {
                if let name = error.name {
                    errors[name] = ["code": .number(JSONNumber(error.code)), "message": .string(error.message)]
                }
            }
        }
        var components = JSONObject()
        if !schemas.isEmpty { components["schemas"] = .object(sorted(schemas)) }
        components["errors"] = .object(sorted(errors))
        return ["openrpc": .string(version), "info": .object(infoObject), "methods": .array(documented.map(method)),
                "components": .object(components)]
    }

    static func sorted(_ dictionary: [String: JSONValue]) -> JSONObject {
        JSONObject(members: dictionary.sorted { $0.key < $1.key }.map { (key: $0.key, value: $0.value) })
    }

    static func method(_ info: MethodInfo) -> JSONValue {
        var params: [JSONValue] = []
        let properties = info.paramsSchema["properties"]?.objectValue ?? JSONObject()
        let required = Set((info.paramsSchema["required"]?.arrayValue ?? []).compactMap(\.stringValue))
        var names = properties.keys
        // Positional params come first, in their order.
        if !info.positionalParams.isEmpty {
            names = info.positionalParams + names.filter { !info.positionalParams.contains($0) }
        }
        for name in names {
            guard let schema = properties[name] else { continue }
            params.append(["name": .string(name), "required": .bool(required.contains(name)), "schema": schema])
        }
        var object: JSONObject = [
            "name": .string(info.name),
            "summary": .string(info.summary),
        ]
        if let description = info.description { object["description"] = .string(description) }
        object["paramStructure"] = .string(info.positionalParams.isEmpty ? "by-name" : "either")
        object["params"] = .array(params)
        object["result"] = ["name": "result", "schema": info.resultSchema]
        var errors: [JSONValue] = info.errors.map { error in
            if let name = error.name { return ["$ref": .string(errorsPrefix + name)] }
            return ["code": .number(JSONNumber(error.code)), "message": .string(error.message)]
        }
        errors.append(["$ref": .string(errorsPrefix + "InvalidParams")])
        errors.append(["$ref": .string(errorsPrefix + "InternalError")])
        object["errors"] = .array(errors)
        if !info.examples.isEmpty { object["examples"] = .array(info.examples.map { example(info, $0) }) }
        if info.idempotent { object["x-idempotent"] = true }
        return .object(object)
    }

    static func example(_ info: MethodInfo, _ example: MethodExample) -> JSONValue {
        var params: [JSONValue] = []
        if let members = example.params.objectValue {
            var names = members.keys
            if !info.positionalParams.isEmpty {
                names = info.positionalParams.filter { members[$0] != nil } + names.filter { !info.positionalParams.contains($0) }
            }
            params = names.map { ["name": .string($0), "value": members[$0]!] }
        }
        var object: JSONObject = ["name": .string(example.name)]
        if let summary = example.summary { object["summary"] = .string(summary) }
        object["params"] = .array(params)
        object["result"] = ["name": "result", "value": example.result]
        return .object(object)
    }
}
