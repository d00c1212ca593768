/// A type that describes itself with a JSON Schema, for the OpenRPC document.
public protocol JSONSchemaProviding {
    static var jsonSchema: JSONValue { get }
}

/// An application error a method may return, documented in the OpenRPC document.
public struct RPCErrorInfo: Sendable, Hashable {
    public var code: Int
    public var message: String
    public init(code: Int, message: String) {
        self.code = code
        self.message = message
    }
}

/// A typed JSON-RPC method: its name, its params and result types, and what the OpenRPC document says of it.
///
/// Declared once and shared: the server registers a handler for it, the client calls it, and the
/// OpenRPC document is generated from it.
public struct RPCMethod<Params: Codable & Sendable, Result: Codable & Sendable>: Sendable {
    public let name: String
    public let summary: String
    /// Safe to send again when no answer came (the client retries such calls after a timeout).
    public let idempotent: Bool
    /// The param names in order, when the method also accepts params by position.
    public let positionalParams: [String]
    /// The application errors the method may return.
    public let errors: [RPCErrorInfo]

    public init(_ name: String, summary: String, idempotent: Bool = false, positionalParams: [String] = [],
                errors: [RPCErrorInfo] = []) {
        self.name = name
        self.summary = summary
        self.idempotent = idempotent
        self.positionalParams = positionalParams
        self.errors = errors
    }

    /// The params' JSON Schema (from ``JSONSchemaProviding`` when the type provides one).
    public var paramsSchema: JSONValue {
        (Params.self as? any JSONSchemaProviding.Type)?.jsonSchema ?? ["type": "object"]
    }

    /// The result's JSON Schema (from ``JSONSchemaProviding`` when the type provides one).
    public var resultSchema: JSONValue {
        (Result.self as? any JSONSchemaProviding.Type)?.jsonSchema ?? [:]
    }

    /// What the OpenRPC document needs of the method.
    public var info: MethodInfo {
        MethodInfo(name: name, summary: summary, idempotent: idempotent, positionalParams: positionalParams,
                   errors: errors, paramsSchema: paramsSchema, resultSchema: resultSchema)
    }
}

/// A method's description without its types.
public struct MethodInfo: Sendable, Hashable {
    public var name: String
    public var summary: String
    public var idempotent: Bool
    public var positionalParams: [String]
    public var errors: [RPCErrorInfo]
    public var paramsSchema: JSONValue
    public var resultSchema: JSONValue
}

/// Params of a method that takes none: accepts absent params, `{}` and `[]`.
public struct NoParams: Codable, Sendable, Hashable, JSONSchemaProviding {
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
    public static var jsonSchema: JSONValue { ["type": "object", "additionalProperties": false, "properties": [:]] }
}

/// Facts about the request a handler is answering.
public struct RPCContext: Sendable {
    /// The id, or `nil` for a notification.
    public var id: JSONRPCID?
    /// The caller's CURVE public key (Z85) when the socket authenticates with CURVE.
    public var peerKey: String?

    public init(id: JSONRPCID? = nil, peerKey: String? = nil) {
        self.id = id
        self.peerKey = peerKey
    }

    /// Whether the caller expects no answer.
    public var isNotification: Bool { id == nil }
}
