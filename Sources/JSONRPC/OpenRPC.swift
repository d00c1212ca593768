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
public enum OpenRPC {
    /// The OpenRPC version written.
    public static let version = "1.3.2"

    /// `rpc.discover`, answered on every socket with that socket's document.
    static let discoverInfo = MethodInfo(
        name: "rpc.discover", summary: "Returns the OpenRPC document of this socket's API.", idempotent: true,
        positionalParams: [], errors: [], paramsSchema: NoParams.jsonSchema, resultSchema: ["type": "object"])

    /// The document for `methods` (`rpc.discover` itself is implied, as the OpenRPC specification says).
    public static func document(info: OpenRPCInfo, methods: [MethodInfo]) -> JSONValue {
        var infoObject: JSONObject = ["title": .string(info.title), "version": .string(info.version)]
        if let description = info.description { infoObject["description"] = .string(description) }
        let methodObjects = methods.filter { $0.name != discoverInfo.name }.sorted { $0.name < $1.name }.map(method)
        return ["openrpc": .string(version), "info": .object(infoObject), "methods": .array(methodObjects)]
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
            "paramStructure": .string(info.positionalParams.isEmpty ? "by-name" : "either"),
            "params": .array(params),
            "result": ["name": "result", "schema": info.resultSchema],
        ]
        if !info.errors.isEmpty {
            object["errors"] = .array(info.errors.map { ["code": .number(JSONNumber($0.code)), "message": .string($0.message)] })
        }
        if info.idempotent { object["x-idempotent"] = true }
        return .object(object)
    }
}
