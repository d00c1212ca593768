/// Turns JSON-RPC 2.0 messages into responses with a ``MethodTable``, exactly as the specification says:
/// single calls and batches, notifications answered by nothing, ids echoed with their JSON type, and the
/// standard errors where the specification puts them. It knows nothing of transports.
public final class JSONRPCDispatcher: Sendable {
    /// Limits on what one message may hold.
    public struct Limits: Sendable {
        /// The deepest nesting of arrays and objects accepted.
        public var maxDepth: Int = JSONParser.defaultMaxDepth
        /// The most calls in one batch.
        public var maxBatch: Int = 256
        public init() {}
    }

    /// What a message produced.
    public enum Outcome: Sendable {
        /// Send these bytes back.
        case reply([UInt8])
        /// Send nothing (the message held only notifications).
        case noReply
        /// An asynchronous handler is involved: run this and send what it returns (nothing if `nil`).
        case deferred(@Sendable () async -> [UInt8]?)
    }

    /// Hears each error that a handler threw and that was answered as -32603, for logging.
    public typealias InternalErrorObserver = @Sendable (_ method: String, _ error: any Error) -> Void

    private let table: MethodTable
    public let limits: Limits
    /// The OpenRPC document of the methods (what `rpc.discover` answers).
    public let openRPCDocument: JSONValue
    private let onInternalError: InternalErrorObserver?

    public init(methods: MethodTable, info: OpenRPCInfo, limits: Limits = Limits(),
                onInternalError: InternalErrorObserver? = nil) {
        var table = methods
        let document = OpenRPC.document(info: info, methods: methods.methods)
        table.register(info: OpenRPC.discoverInfo, inline: { _, _ in document })
        self.table = table
        self.limits = limits
        self.openRPCDocument = document
        self.onInternalError = onInternalError
    }

    /// The methods served, `rpc.discover` included.
    public var methodNames: [String] { table.methods.map(\.name) }

    /// Handles one message.
    public func dispatch(_ bytes: UnsafeRawBufferPointer, context: RPCContext = RPCContext()) -> Outcome {
        let message: JSONValue
        do {
            message = try JSONParser.parse(bytes, maxDepth: limits.maxDepth)
        } catch {
            return .reply(Self.encode(Response(id: .null, outcome: .failure(.parseError(error.description)))))
        }
        return dispatch(parsed: message, context: context)
    }

    /// Handles one message given as bytes.
    public func dispatch(_ bytes: [UInt8], context: RPCContext = RPCContext()) -> Outcome {
        bytes.withUnsafeBytes { dispatch($0, context: context) }
    }

    /// Handles one already parsed message.
    public func dispatch(parsed message: JSONValue, context: RPCContext) -> Outcome {
        guard case .array(let calls) = message else {
            switch handleCall(message, context: context) {
            case .none: return .noReply
            case .done(let response): return .reply(Self.encode(response))
            case .later(let work):
                return .deferred {
                    guard let response = await work() else { return nil }
                    return Self.encode(response)
                }
            }
        }
        guard !calls.isEmpty else {
            return .reply(Self.encode(Response(id: .null, outcome: .failure(.invalidRequest("empty batch")))))
        }
        guard calls.count <= limits.maxBatch else {
            return .reply(Self.encode(Response(id: .null, outcome: .failure(.invalidRequest("batch of \(calls.count) calls, the limit is \(limits.maxBatch)")))))
        }
        var results: [CallResult] = []
        results.reserveCapacity(calls.count)
        var anyLater = false
        for call in calls {
            let result = handleCall(call, context: context)
            if case .later = result { anyLater = true }
            results.append(result)
        }
        guard anyLater else {
            let responses = results.compactMap { result -> Response? in
                if case .done(let response) = result { return response }
                return nil
            }
            return responses.isEmpty ? .noReply : .reply(Self.encodeBatch(responses))
        }
        let pending = results
        return .deferred {
            var responses: [Response] = []
            for result in pending {
                switch result {
                case .none: continue
                case .done(let response): responses.append(response)
                case .later(let work): if let response = await work() { responses.append(response) }
                }
            }
            return responses.isEmpty ? nil : Self.encodeBatch(responses)
        }
    }

    // MARK: One call

    struct Response: Sendable {
        let id: JSONRPCID
        let outcome: Result<JSONValue, JSONRPCError>
    }

    enum CallResult: Sendable {
        case none
        case done(Response)
        case later(@Sendable () async -> Response?)
    }

    private static let requestMembers: Set<String> = ["jsonrpc", "method", "params", "id"]

    private func handleCall(_ call: JSONValue, context: RPCContext) -> CallResult {
        guard case .object(let object) = call else {
            return .done(Response(id: .null, outcome: .failure(.invalidRequest("expected a request object, got \(call.typeName)"))))
        }
        // The id, when present and well-typed, is echoed even on an invalid request, so the caller can match it.
        var id: JSONRPCID?
        if let rawId = object["id"] {
            guard let valid = JSONRPCID(json: rawId) else {
                return .done(Response(id: .null, outcome: .failure(.invalidRequest("\"id\" must be a string, a number or null, got \(rawId.typeName)"))))
            }
            id = valid
        }
        func invalid(_ detail: String) -> CallResult {
            .done(Response(id: id ?? .null, outcome: .failure(.invalidRequest(detail))))
        }
        guard object["jsonrpc"] == .string("2.0") else { return invalid("\"jsonrpc\" must be \"2.0\"") }
        guard case .string(let method)? = object["method"] else { return invalid("\"method\" must be a string") }
        let params = object["params"]
        if let params {
            switch params {
            case .array, .object: break
            default: return invalid("\"params\" must be an array or an object, got \(params.typeName)")
            }
        }
        if object.count > 2 + (params == nil ? 0 : 1) + (id == nil ? 0 : 1) {
            let extra = object.keys.first { !Self.requestMembers.contains($0) } ?? ""
            return invalid("unexpected member \"\(extra)\"")
        }
        guard let entry = table.entry(method) else {
            guard let id else { return .none }
            return .done(Response(id: id, outcome: .failure(.methodNotFound(method))))
        }
        var mutableContext = context
        mutableContext.id = id
        let callContext = mutableContext
        let callId = id
        switch entry.invoker {
        case .inline(let handler):
            let outcome = run(method) { try handler(params, callContext) }
            guard let id else { return .none }
            return .done(Response(id: id, outcome: outcome))
        case .async(let handler):
            let observer = onInternalError
            return .later {
                let outcome: Result<JSONValue, JSONRPCError>
                do {
                    outcome = .success(try await handler(params, callContext))
                } catch {
                    outcome = .failure(Self.wireError(error, method: method, observer: observer))
                }
                guard let callId else { return nil }
                return Response(id: callId, outcome: outcome)
            }
        }
    }

    private func run(_ method: String, _ body: () throws -> JSONValue) -> Result<JSONValue, JSONRPCError> {
        do {
            return .success(try body())
        } catch {
            return .failure(Self.wireError(error, method: method, observer: onInternalError))
        }
    }

    static func wireError(_ error: any Error, method: String, observer: InternalErrorObserver?) -> JSONRPCError {
        switch error {
        case let invalid as InvalidParams: return invalid.error
        case let convertible as JSONRPCErrorConvertible: return convertible.jsonRPCError
        default:
            observer?(method, error)
            return .internalError
        }
    }

    // MARK: Encoding

    private static let prefix = Array(#"{"jsonrpc":"2.0","id":"#.utf8)
    private static let resultKey = Array(#","result":"#.utf8)
    private static let errorKey = Array(#","error":"#.utf8)

    private static func write(_ response: Response, into writer: inout JSONWriter) {
        writer.writeRaw(prefix)
        writer.write(response.id.json)
        switch response.outcome {
        case .success(let result):
            writer.writeRaw(resultKey)
            writer.write(result)
        case .failure(let error):
            writer.writeRaw(errorKey)
            writer.write(error.json)
        }
        writer.bytes.append(UInt8(ascii: "}"))
    }

    static func encode(_ response: Response) -> [UInt8] {
        var writer = JSONWriter()
        write(response, into: &writer)
        return writer.bytes
    }

    static func encodeBatch(_ responses: [Response]) -> [UInt8] {
        var writer = JSONWriter(reservingCapacity: 256 * responses.count)
        writer.bytes.append(UInt8(ascii: "["))
        for (index, response) in responses.enumerated() {
            if index > 0 { writer.bytes.append(UInt8(ascii: ",")) }
            write(response, into: &writer)
        }
        writer.bytes.append(UInt8(ascii: "]"))
        return writer.bytes
    }
}
