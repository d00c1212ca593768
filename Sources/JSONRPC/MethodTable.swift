/// The methods a socket serves, each a typed ``RPCMethod`` with its handler.
///
/// Handlers registered with `inline:` run on the thread that received the request, with no hop: use them
/// for work that takes microseconds and never blocks (the launch query). Others run as tasks, bounded by
/// the server's limit of requests in flight.
public struct MethodTable: Sendable {
    enum Invoker: Sendable {
        case inline(@Sendable (JSONValue?, RPCContext) throws -> JSONValue)
        case async(@Sendable (JSONValue?, RPCContext) async throws -> JSONValue)
    }

    struct Entry: Sendable {
        let info: MethodInfo
        let invoker: Invoker
    }

    private(set) var entries: [String: Entry] = [:]

    public init() {}

    /// The methods registered, by name.
    public var methods: [MethodInfo] { entries.values.map(\.info).sorted { $0.name < $1.name } }

    /// Registers a handler that runs on the receiving thread.
    public mutating func register<Params, Result>(
        _ method: RPCMethod<Params, Result>,
        inline handler: @escaping @Sendable (Params, RPCContext) throws -> Result
    ) {
        precondition(entries[method.name] == nil, "method \(method.name) registered twice")
        let positional = method.positionalParams
        entries[method.name] = Entry(info: method.info, invoker: .inline { params, context in
            let decoded: Params = try ParamsDecoding.decode(params, positional: positional)
            return try ResultEncoding.encode(try handler(decoded, context))
        })
    }

    /// Registers a handler that runs as a task.
    public mutating func register<Params, Result>(
        _ method: RPCMethod<Params, Result>,
        handler: @escaping @Sendable (Params, RPCContext) async throws -> Result
    ) {
        precondition(entries[method.name] == nil, "method \(method.name) registered twice")
        let positional = method.positionalParams
        entries[method.name] = Entry(info: method.info, invoker: .async { params, context in
            let decoded: Params = try ParamsDecoding.decode(params, positional: positional)
            return try ResultEncoding.encode(try await handler(decoded, context))
        })
    }

    /// Registers a handler for untyped params and results (used for `rpc.discover`).
    mutating func register(info: MethodInfo, inline handler: @escaping @Sendable (JSONValue?, RPCContext) throws -> JSONValue) {
        entries[info.name] = Entry(info: info, invoker: .inline(handler))
    }

    func entry(_ name: String) -> Entry? { entries[name] }
}

/// Params that did not decode; the dispatcher turns it into -32602 naming the field.
struct InvalidParams: Error {
    let error: JSONRPCError
}

enum ParamsDecoding {
    static let decoder = JSONValueDecoder(rejectUnknownKeys: true)

    static func decode<Params: Decodable>(_ params: JSONValue?, positional: [String]) throws -> Params {
        var value = params ?? .object(JSONObject())
        if case .array(let elements) = value, !positional.isEmpty {
            guard elements.count <= positional.count else {
                throw InvalidParams(error: .invalidParams(field: nil, "expected at most \(positional.count) params by position, got \(elements.count)"))
            }
            value = .object(JSONObject(members: zip(positional, elements).map { (key: $0, value: $1) }))
        }
        do {
            return try decoder.decode(Params.self, from: value)
        } catch let error as DecodingError {
            throw InvalidParams(error: .invalidParams(field: error.fieldPath, error.reason))
        } catch let error as JSONRPCErrorConvertible {
            throw InvalidParams(error: error.jsonRPCError)
        } catch {
            throw InvalidParams(error: .invalidParams(field: nil, "\(error)"))
        }
    }
}

enum ResultEncoding {
    static let encoder = JSONValueEncoder()

    static func encode<Result: Encodable>(_ result: Result) throws -> JSONValue {
        try encoder.encode(result)
    }
}
