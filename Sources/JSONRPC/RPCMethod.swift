/// An application error a method may return, documented in the OpenRPC document.
public struct RPCErrorInfo: Sendable, Hashable {
    public var code: Int
    public var message: String
    /// The error's name under `components/errors`, where its meaning is written once for every method that lists it.
    public var name: String?

    public init(code: Int, message: String, name: String? = nil) {
        self.code = code
        self.message = message
        self.name = name
    }
}

/// A typed JSON-RPC method: its name, its params and result types, and what the OpenRPC document says of it.
///
/// Declared once and shared: the server registers a handler for it, the client calls it, and the
/// OpenRPC document is generated from it.
public struct RPCMethod<Params: Codable & Sendable, Result: Codable & Sendable>: Sendable {
    public let name: String
    public let summary: String
    /// A longer account of what the method does, when the summary is not enough.
    public let description: String?
    /// Safe to send again when no answer came (the client retries such calls after a timeout).
    public let idempotent: Bool
    /// The param names in order, when the method also accepts params by position.
    public let positionalParams: [String]
    /// The application errors the method may return.
    public let errors: [RPCErrorInfo]
    /// Calls and their results, for the document.
    public let examples: [RPCExample<Params, Result>]

    public init(_ name: String, summary: String, description: String? = nil, idempotent: Bool = false,
                positionalParams: [String] = [], errors: [RPCErrorInfo] = [], examples: [RPCExample<Params, Result>] = []) {
        self.name = name
        self.summary = summary
        self.description = description
        self.idempotent = idempotent
        self.positionalParams = positionalParams
        self.errors = errors
        self.examples = examples
    }

    /// The params' JSON Schema, inline (from ``JSONSchemaDescribable`` when the type describes itself).
    public var paramsSchema: JSONSchema {
        (Params.self as? any JSONSchemaDescribable.Type)?.jsonSchema ?? JSONSchema(["type": "object"])
    }

    /// The result's JSON Schema (a `$ref` when the type is a named component).
    public var resultSchema: JSONSchema {
        guard let type = Result.self as? any JSONSchemaDescribable.Type else { return .any }
        return Self.schema(of: type)
    }

    private static func schema<T: JSONSchemaDescribable>(of type: T.Type) -> JSONSchema { .of(type) }

    /// What the OpenRPC document needs of the method.
    public var info: MethodInfo {
        let params = paramsSchema
        let result = resultSchema
        return MethodInfo(name: name, summary: summary, description: description, idempotent: idempotent,
                          positionalParams: positionalParams, errors: errors, paramsSchema: params.json,
                          resultSchema: result.json, components: params.components.merging(result.components) { first, _ in first },
                          examples: examples.map(example))
    }

    private func example(_ example: RPCExample<Params, Result>) -> MethodExample {
        let params = (try? JSONValueEncoder().encode(example.params)) ?? .null
        let result = (try? JSONParser.parse(encodeResult(example.result))) ?? .null
        return MethodExample(name: example.name, summary: example.summary, params: params, result: result)
    }

    // MARK: The codec, as servers and clients use it

    /// Decodes params from JSON text exactly as a server does: strictly, by name (or by position when the method
    /// allows it), through the type's fast path when it has one. Throws a -32602 ``JSONRPCError`` naming the field.
    public func decodeParams(fromJSON bytes: [UInt8]) throws -> Params {
        let decode = ParamsDecoding.decoder(Params.self, positional: positionalParams)
        do {
            return try bytes.withUnsafeBytes { raw in
                try JSONTape.parse(raw, maxDepth: JSONParser.defaultMaxDepth) { tape in
                    try decode(ParamsSource(tape: tape, index: 0))
                }
            }
        } catch let error as InvalidParams {
            throw error.error
        }
    }

    /// Encodes a result exactly as a server writes it.
    public func encodeResult(_ result: Result) throws -> [UInt8] {
        var writer = JSONWriter()
        try ResultEncoding.encoder(Result.self)(result, &writer)
        return writer.bytes
    }
}

/// One call of a method and its result, shown in the OpenRPC document.
public struct RPCExample<Params: Codable & Sendable, Result: Codable & Sendable>: Sendable {
    public var name: String
    public var summary: String?
    public var params: Params
    public var result: Result

    public init(_ name: String, summary: String? = nil, params: Params, result: Result) {
        self.name = name
        self.summary = summary
        self.params = params
        self.result = result
    }
}

/// An example as JSON: the params object and the result.
public struct MethodExample: Sendable, Hashable {
    public var name: String
    public var summary: String?
    public var params: JSONValue
    public var result: JSONValue
}

/// A method's description without its types.
public struct MethodInfo: Sendable, Hashable {
    public var name: String
    public var summary: String
    public var description: String?
    public var idempotent: Bool
    public var positionalParams: [String]
    public var errors: [RPCErrorInfo]
    public var paramsSchema: JSONValue
    public var resultSchema: JSONValue
    /// The named schemas the params and result refer to.
    public var components: [String: JSONValue]
    public var examples: [MethodExample]
}

/// Params of a method that takes none: accepts absent params, `{}` and `[]`.
public struct NoParams: Codable, Sendable, Hashable, JSONSchemaDescribable {
    public init() {}
    public init(from decoder: any Decoder) throws {
        if let container = try? decoder.unkeyedContainer() {
            guard container.count == 0 else {
                throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "this method takes no params"))
            }
            return
        }
        let container = try decoder.container(keyedBy: PathKey.self)
        if let key = container.allKeys.first {
            throw DecodingError.dataCorrupted(.init(codingPath: [key], debugDescription: "is not a known field"))
        }
    }
    public func encode(to encoder: any Encoder) throws {
        _ = encoder.container(keyedBy: PathKey.self)
    }
    public static var jsonSchema: JSONSchema { .object([:], description: "No params: absent, `{}` or `[]`.") }
}

/// Facts about the request a handler is answering.
public struct RPCContext: Sendable {
    /// The id, or `nil` for a notification.
    public var id: JSONRPCID? {
        get {
            switch storedID {
            case .none: nil
            case .id(let id): id
            case .integer(let value): .number(JSONNumber(value))
            }
        }
        set { storedID = newValue.map(StoredID.id) ?? .none }
    }
    /// The caller's CURVE public key (Z85) when the socket authenticates with CURVE.
    public var peerKey: String?
    /// The caller's name when the transport signed it in by other means than CURVE (campaignd's web console, in
    /// process): the change log records it as the actor.
    public var principal: String?

    /// The id as it came: an integer is kept as one, and made a ``JSONRPCID`` (with its text) only when asked for,
    /// which the query path never does.
    private var storedID: StoredID

    private enum StoredID {
        case none
        case id(JSONRPCID)
        /// An id written as a plain integer (no sign but a minus, no leading zero, not `-0`): the text of the
        /// number is `String(value)`.
        case integer(Int64)
    }

    public init(id: JSONRPCID? = nil, peerKey: String? = nil, principal: String? = nil) {
        self.storedID = id.map(StoredID.id) ?? .none
        self.peerKey = peerKey
        self.principal = principal
    }

    /// A context whose id is the integer `value`, written in the request as `String(value)`.
    init(integerID value: Int64, peerKey: String?, principal: String? = nil) {
        self.storedID = .integer(value)
        self.peerKey = peerKey
        self.principal = principal
    }

    /// Whether the caller expects no answer.
    public var isNotification: Bool {
        if case .none = storedID { return true }
        return false
    }
}
