/// The methods a socket serves, each a typed ``RPCMethod`` with its handler.
///
/// Params are always decoded on the thread that received the request, straight from its bytes. Handlers
/// registered with `inline:` then run on that same thread, with no hop, and their result is written straight
/// into the response: use them for work that takes microseconds and never blocks (the launch query). Others
/// run as tasks, bounded by the server's limit of requests in flight.
public struct MethodTable: Sendable {
    @usableFromInline
    enum Invoker: Sendable {
        case inline(@Sendable (ParamsSource, RPCContext, inout JSONWriter) throws -> Void)
        case async(@Sendable (ParamsSource) throws -> @Sendable (RPCContext) async throws -> [UInt8])
    }

    /// A method's way with compact calls: reads the params (the reader at their `{`) and, when the call is
    /// compact to its end, runs the handler through `run` and returns `true`; `false` when it is not (nothing ran).
    @usableFromInline
    typealias CompactInvoker = @Sendable (inout CompactReader, _ run: (_ handler: (RPCContext, inout JSONWriter) throws -> Void) -> Void) -> Bool

    /// A class, so that finding a method per request hands out one reference instead of copying its description.
    final class Entry: Sendable {
        let info: MethodInfo
        let invoker: Invoker
        let compact: CompactInvoker?

        init(info: MethodInfo, compact: CompactInvoker? = nil, invoker: Invoker) {
            self.info = info
            self.invoker = invoker
            self.compact = compact
        }
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
        let decode = ParamsDecoding.decoder(Params.self, positional: method.positionalParams)
        let encode = ResultEncoding.encoder(Result.self)
        add(method.info, invoker: .inline { source, context, writer in
            try encode(try handler(try decode(source), context), &writer)
        })
    }

    /// Registers a handler that runs on the receiving thread, for params that read themselves from the tape and a
    /// result that writes itself: the hot path, with no dynamic cast or existential box per request.
    public mutating func register<Params: JSONReadable & Sendable, Result: JSONWritable & Sendable>(
        _ method: RPCMethod<Params, Result>,
        inline handler: @escaping @Sendable (Params, RPCContext) throws -> Result
    ) {
        let positional = method.positionalParams
        add(method.info, invoker: .inline { source, context, writer in
            try handler(try Self.params(Params.self, source, positional: positional), context).write(json: &writer)
        })
    }

    /// Params that read themselves: straight from the tape when given by name, through `Codable` otherwise.
    @inline(__always)
    private static func params<Params: JSONReadable & Sendable>(_ type: Params.Type, _ source: ParamsSource, positional: [String]) throws -> Params {
        if let index = source.index, positional.isEmpty {
            return try ParamsDecoding.read(Params.self, JSONReader(tape: source.tape, index: index, path: nil))
        }
        return try ParamsDecoding.decode(source, positional: positional)
    }

    /// Registers a handler that runs on the receiving thread and writes its result straight into the response,
    /// for a result that is cheaper to write from what the handler has than to make as a value first (the launch
    /// answer). What it writes must be what `Result`'s encoding gives; if it throws, what it wrote is dropped and
    /// the error answered instead.
    public mutating func register<Params: JSONReadable & Sendable, Result>(
        _ method: RPCMethod<Params, Result>,
        writing handler: @escaping @Sendable (Params, RPCContext, inout JSONWriter) throws -> Void
    ) {
        let positional = method.positionalParams
        add(method.info, invoker: .inline { source, context, writer in
            try handler(try Self.params(Params.self, source, positional: positional), context, &writer)
        })
    }

    /// Registers a handler that runs on the receiving thread, takes its input read and checked in one pass by
    /// `read` from the params object, and writes its result into the response: the hot path for params that cost
    /// more to decode into `Params` and then check than to read straight into what the handler needs. `read` must
    /// give what decoding `Params` and then `check` give (the same input, or an error with the same code and field);
    /// params given by position, or none at all, take that way.
    ///
    /// `compact`, when given, reads the params of a compact call (see ``CompactReader``) straight from the
    /// message's bytes, before any parsing: a call whose members are `jsonrpc`, `id` and `method` in any order and
    /// then `params`, all compact. It must give the input `read` gives for those bytes when it gives one, and `nil`
    /// for anything else, an input `read` would refuse included; the message is then parsed and handled the
    /// general way.
    @inlinable  // so the compact way is specialized for `Input`: no box or type metadata per call
    public mutating func register<Params: Sendable, Result, Input>(
        _ method: RPCMethod<Params, Result>,
        reading read: @escaping @Sendable (JSONReader) throws -> Input,
        checking check: @escaping @Sendable (Params) throws -> Input,
        compact: (@Sendable (inout CompactReader) -> Input?)? = nil,
        writing handler: @escaping @Sendable (Input, RPCContext, inout JSONWriter) throws -> Void
    ) {
        // Made here rather than through `Optional.map`, whose generic result would wrap it in a thunk that allocates
        // per call.
        var compactInvoker: CompactInvoker?
        if let compact {
            compactInvoker = { reader, run in
                guard let input = compact(&reader), reader.take(UInt8(ascii: "}")), reader.isAtEnd else { return false }
                run { context, writer in try handler(input, context, &writer) }
                return true
            }
        }
        add(method.info, compact: compactInvoker, invoker: Self.generalInvoker(method, reading: read, checking: check, writing: handler))
    }

    /// The general way of a method registered with a reader and a checker: the params read from the tape by name,
    /// decoded and checked when given by position or not at all.
    @usableFromInline
    static func generalInvoker<Params: Sendable, Result, Input>(
        _ method: RPCMethod<Params, Result>,
        reading read: @escaping @Sendable (JSONReader) throws -> Input,
        checking check: @escaping @Sendable (Params) throws -> Input,
        writing handler: @escaping @Sendable (Input, RPCContext, inout JSONWriter) throws -> Void
    ) -> Invoker {
        let positional = method.positionalParams
        return .inline { source, context, writer in
            let input: Input
            if let index = source.index, positional.isEmpty {
                input = try ParamsDecoding.reading(JSONReader(tape: source.tape, index: index, path: nil), read)
            } else {
                let params: Params = try ParamsDecoding.decode(source, positional: positional)
                input = try ParamsDecoding.reading(params, check)
            }
            try handler(input, context, &writer)
        }
    }

    /// Adds a method (each name once).
    @usableFromInline
    mutating func add(_ info: MethodInfo, compact: CompactInvoker? = nil, invoker: Invoker) {
        precondition(entries[info.name] == nil, "method \(info.name) registered twice")
        entries[info.name] = Entry(info: info, compact: compact, invoker: invoker)
    }

    /// Registers a handler that runs as a task.
    public mutating func register<Params, Result>(
        _ method: RPCMethod<Params, Result>,
        handler: @escaping @Sendable (Params, RPCContext) async throws -> Result
    ) {
        let decode = ParamsDecoding.decoder(Params.self, positional: method.positionalParams)
        let encode = ResultEncoding.encoder(Result.self)
        add(method.info, invoker: .async { source in
            let params = try decode(source)
            return { context in
                var writer = JSONWriter()
                try encode(try await handler(params, context), &writer)
                return writer.bytes
            }
        })
    }

    /// Registers a handler that writes its result itself (used for `rpc.discover`).
    mutating func register(info: MethodInfo, raw handler: @escaping @Sendable (ParamsSource, RPCContext, inout JSONWriter) throws -> Void) {
        add(info, invoker: .inline(handler))
    }

    func entry(_ name: String) -> Entry? { entries[name] }
}

/// Where a request's params are: a token of the request's tape, or absent.
@usableFromInline
struct ParamsSource {
    let tape: JSONTape
    let index: Int?
}

/// Params that did not decode; the dispatcher turns it into -32602 naming the field.
struct InvalidParams: Error {
    let error: JSONRPCError
}

enum ParamsDecoding {
    static let decoder = JSONValueDecoder(rejectUnknownKeys: true)

    /// The decoding function for `Params`, chosen once: ``JSONReadable`` when the type has it, else `Codable`.
    static func decoder<Params: Decodable & Sendable>(_ type: Params.Type, positional: [String]) -> @Sendable (ParamsSource) throws -> Params {
        guard let readable = Params.self as? any JSONReadable.Type, positional.isEmpty else {
            return { source in try decode(source, positional: positional) }
        }
        return { source in
            guard let index = source.index else { return try decode(source, positional: positional) }
            return try read(readable, JSONReader(tape: source.tape, index: index, path: nil)) as! Params
        }
    }

    /// Reads `Params` from the tape by its own ``JSONReadable`` code; errors become -32602.
    @inline(__always)
    static func read<Params: JSONReadable>(_ type: Params.Type, _ reader: JSONReader) throws -> Params {
        try reading(reader) { try Params(json: $0) }
    }

    /// Runs a params reader or checker; its errors become -32602 as decoding's do.
    @inline(__always)
    static func reading<Source, Input>(_ source: Source, _ read: (Source) throws -> Input) throws -> Input {
        do {
            return try read(source)
        } catch let error as DecodingError {
            throw InvalidParams(error: .invalidParams(field: error.fieldPath, error.reason))
        } catch let error as JSONRPCErrorConvertible {
            throw InvalidParams(error: error.jsonRPCError)
        }
    }

    static func decode<Params: Decodable & Sendable>(_ source: ParamsSource, positional: [String]) throws -> Params {
        do {
            guard let index = source.index else {
                return try decoder.decode(Params.self, from: .object(JSONObject()))
            }
            if source.tape.kind(index) == .array, !positional.isEmpty {
                let elements = source.tape.elements(index)
                guard elements.count <= positional.count else {
                    throw InvalidParams(error: .invalidParams(field: nil, "expected at most \(positional.count) params by position, got \(elements.count)"))
                }
                let object = JSONObject(members: zip(positional, elements).map { (key: $0, value: source.tape.value($1)) })
                return try decoder.decode(Params.self, from: .object(object))
            }
            return try decoder.decode(Params.self, tape: source.tape, index: index)
        } catch let error as InvalidParams {
            throw error
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
    /// The encoding function for `Result`, chosen once: ``JSONWritable`` when the type has it, else `Codable`.
    static func encoder<Result: Encodable & Sendable>(_ type: Result.Type) -> @Sendable (Result, inout JSONWriter) throws -> Void {
        if Result.self is any JSONWritable.Type {
            return { result, writer in (result as! any JSONWritable).write(json: &writer) }
        }
        return { result, writer in try JSONValueEncoder().encode(result, into: &writer) }
    }
}
