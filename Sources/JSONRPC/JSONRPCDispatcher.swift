#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// Turns JSON-RPC 2.0 messages into responses with a ``MethodTable``, exactly as the specification says:
/// single calls and batches, notifications answered by nothing, ids echoed with their JSON type (and their exact
/// text), and the standard errors where the specification puts them. It knows nothing of transports.
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
        case reply(JSONWriter)
        /// Send nothing (the message held only notifications).
        case noReply
        /// An asynchronous handler is involved: run this and send what it returns (nothing if `nil`). With a reply
        /// budget, a reply of ``JSONRPCDispatcher/largeReply`` bytes or more comes back already held against it (a
        /// call whose large response did not fit was answered the budget's error instead): whoever takes the reply
        /// lets go of it with ``JSONRPCDispatcher/release(deferredReply:)`` once it no longer holds it.
        case deferred(@Sendable () async -> [UInt8]?)
    }

    /// Hears each error that a handler threw and that was answered as -32603, for logging.
    public typealias InternalErrorObserver = @Sendable (_ method: String, _ error: any Error) -> Void

    private let table: MethodTable
    private let methodsByName: [(name: String, utf8: [UInt8], entry: MethodTable.Entry)]
    /// Each of `methodsByName`'s names of at most 15 bytes packed in two words with its length (as ``TextCache``
    /// packs a text; a longer name as no text packs): a name read is found by comparing words, where comparing
    /// bytes took a call and counted references of every method whose name has its length.
    private let packedNames: [(UInt64, UInt64)]
    public let limits: Limits
    /// The OpenRPC document of the methods (what `rpc.discover` answers).
    public let openRPCDocument: JSONValue
    private let onInternalError: InternalErrorObserver?
    private let onCall: CallObserver?
    /// Whether compact calls of methods with a compact reader skip the parser (see ``CompactReader``). Never when no
    /// method has one (no message is looked at twice), nor when the nesting limit is below the three levels a
    /// compact call may reach: such a call must then be refused as the parser refuses it.
    public let compactCalls: Bool
    /// The bound on large replies held by the transport, or `nil` for none (see ``ReplyBudget``).
    public let replyBudget: ReplyBudget?
    /// Its ``ReplyBudget/largeReply`` (`Int.max` without one): a reply below it is not looked at again.
    public let largeReply: Int

    /// Hears each call of a known method: its name, 0 or the error code answered, and how long it took in
    /// nanoseconds (of the monotonic clock).
    public typealias CallObserver = @Sendable (_ method: String, _ code: Int, _ nanoseconds: Int64) -> Void

    /// `compactCalls: false` handles every message the general way (for tests that compare the two). With a
    /// `replyBudget`, a call whose response would make its message a large reply that does not fit is answered the
    /// budget's error instead. An inline handler's reply is held by the server that sends it, from when it takes it;
    /// an asynchronous handler's is held here, as it is made (see ``Outcome/deferred(_:)``), so that replies finished
    /// together on several threads cannot all pass the budget at once.
    public init(methods: MethodTable, info: OpenRPCInfo, limits: Limits = Limits(),
                onInternalError: InternalErrorObserver? = nil, onCall: CallObserver? = nil, compactCalls: Bool = true,
                replyBudget: ReplyBudget? = nil) {
        var table = methods
        let document = OpenRPC.document(info: info, methods: methods.methods)
        let documentBytes = document.jsonBytes
        table.register(info: OpenRPC.discoverInfo, raw: { source, _, writer in
            let _: NoParams = try ParamsDecoding.decode(source, positional: [])
            writer.writeRaw(documentBytes)
        })
        self.table = table
        self.methodsByName = table.entries.map { (name: $0.key, utf8: Array($0.key.utf8), entry: $0.value) }.sorted { $0.name < $1.name }
        packedNames = methodsByName.map { method in method.utf8.withUnsafeBytes { Self.packed($0) ?? (.max, .max) } }
        self.limits = limits
        self.openRPCDocument = document
        self.onInternalError = onInternalError
        self.onCall = onCall
        self.compactCalls = compactCalls && limits.maxDepth >= CompactReader.maxDepth
            && table.entries.values.contains { $0.compact != nil }
        self.replyBudget = replyBudget
        largeReply = replyBudget?.largeReply ?? .max
    }

    /// Lets go of a reply that a deferred outcome's work returned: a large one was held against the reply budget
    /// (``Outcome/deferred(_:)``).
    public func release(deferredReply bytes: Int) {
        if bytes >= largeReply { replyBudget?.release(bytes) }
    }

    /// The methods served, `rpc.discover` included.
    public var methodNames: [String] { table.methods.map(\.name) }

    /// Handles one message given as bytes.
    public func dispatch(_ bytes: [UInt8], context: RPCContext = RPCContext()) -> Outcome {
        bytes.withUnsafeBytes { dispatch($0, context: context) }
    }

    /// Handles one message. The bytes need to live only during the call.
    public func dispatch(_ bytes: UnsafeRawBufferPointer, context: RPCContext = RPCContext()) -> Outcome {
        let scratch = Scratch()
        return dispatch(bytes, context: context, scratch: scratch)
    }

    /// Memory reused from one message to the next by a loop that dispatches many (one per thread).
    public final class Scratch {
        let tokens = TokenStorage()
        /// The buffer of the last single response, written into again by the next message once the caller has let
        /// go of that response (until then, the next one gets a buffer of its own). `nil` only while a response is
        /// being written.
        var response: JSONWriter? = JSONWriter(reservingCapacity: 512)
        /// Short strings that compact readers made before (see ``CompactReader/text(_:)``).
        let texts = TextCache()
        public init() {}

        /// Runs `body` with the response buffer emptied (in place when the caller has let go of the last response,
        /// else a buffer of its own), keeps that buffer for the next message, and returns it with `body`'s result.
        @inline(__always)
        func writingResponse<Result>(_ body: (inout JSONWriter) -> Result) -> (Result, JSONWriter) {
            // Taken out, so that `writer` holds the only reference when the caller let go (without a placeholder
            // put in its place, retained and released on every message).
            var writer = response.take() ?? JSONWriter(reservingCapacity: 512)
            writer.truncate(to: 0)
            let result = body(&writer)
            response = writer
            return (result, writer)
        }
    }

    /// Handles one message, reusing `scratch`'s memory. The bytes need to live only during the call.
    public func dispatch(_ bytes: UnsafeRawBufferPointer, context: RPCContext, scratch: Scratch) -> Outcome {
        if compactCalls, let outcome = dispatchCompact(bytes, context: context, scratch: scratch) { return outcome }
        do {
            return try JSONTape.parse(bytes, maxDepth: limits.maxDepth, reusing: scratch.tokens) { tape in
                dispatch(tape, context: context, scratch: scratch)
            }
        } catch {
            let detail = (error as? JSONParseError)?.description ?? "\(error)"
            return .reply(Self.errorWriter(id: nil, .parseError(detail)))
        }
    }

    private func dispatch(_ tape: JSONTape, context: RPCContext, scratch: Scratch) -> Outcome {
        guard tape.kind(0) == .array else {
            let (result, writer) = scratch.writingResponse { writer in handleCall(tape, 0, context: context, into: &writer) }
            switch result {
            case .none: return .noReply
            case .written: return .reply(writer)
            case .later(let work): return .deferred(work)
            }
        }
        let count = tape.count(0)
        guard count > 0 else { return .reply(Self.errorWriter(id: nil, .invalidRequest("empty batch"))) }
        guard count <= limits.maxBatch else {
            return .reply(Self.errorWriter(id: nil, .invalidRequest("batch of \(count) calls, the limit is \(limits.maxBatch)")))
        }
        enum Piece: Sendable {
            case bytes([UInt8])
            /// An asynchronous call, with its id's text (`nil` for a notification).
            case later(@Sendable () async -> [UInt8]?, id: [UInt8]?)
        }
        var pieces: [Piece] = []
        var anyLater = false
        // The bytes of the responses written so far: with a reply budget, each call's response counts with them.
        var written = 1  // the opening bracket
        for element in tape.elements(0) {
            var writer = JSONWriter()
            switch handleCall(tape, element, context: context, pending: written, into: &writer) {
            case .none: continue
            case .written:
                written += writer.count + 1  // and a comma or the closing bracket
                pieces.append(.bytes(writer.bytes))
            case .later(let work):
                anyLater = true
                pieces.append(.later(work, id: Self.echoedID(tape, element)))
            }
        }
        @Sendable func join(_ responses: [[UInt8]]) -> JSONWriter? {
            guard !responses.isEmpty else { return nil }
            var writer = JSONWriter(reservingCapacity: responses.reduce(2) { $0 + $1.count + 1 })
            writer.writeArray(responses) { writer, response in writer.writeRaw(response) }
            return writer
        }
        guard anyLater else {
            let responses = pieces.compactMap { piece -> [UInt8]? in
                if case .bytes(let bytes) = piece { return bytes }
                return nil
            }
            return join(responses).map(Outcome.reply) ?? .noReply
        }
        let pending = pieces
        return .deferred { [self] in
            var responses: [[UInt8]] = []
            var held = 0
            for piece in pending {
                switch piece {
                case .bytes(let bytes): responses.append(bytes)
                case .later(let work, _):
                    guard let bytes = await work() else { continue }
                    if bytes.count >= largeReply { held += bytes.count }
                    responses.append(bytes)
                }
            }
            // The whole message is held when large: the asynchronous responses in it that were large already are, the
            // rest (many responses each under the large size) must fit in the budget too, or a batch of them would be
            // held without bound for a peer that does not read. When it does not fit, each asynchronous call of the
            // batch is answered the budget's error instead (what was held for them let go).
            guard let joined = join(responses) else { return nil }
            guard joined.count >= largeReply, let replyBudget else { return joined.bytes }
            if replyBudget.tryHold(joined.count - held) { return joined.bytes }
            if held > 0 { replyBudget.release(held) }
            var refused: [[UInt8]] = []
            for piece in pending {
                switch piece {
                case .bytes(let bytes): refused.append(bytes)
                case .later(_, let id?): refused.append(id.withUnsafeBytes { Self.errorResponse(id: $0, replyBudget.error) })
                case .later(_, nil): continue
                }
            }
            guard let answer = join(refused) else { return nil }
            // Small as it is, a message the transport will count as large is held as such.
            if answer.count >= largeReply { replyBudget.hold(answer.count) }
            return answer.bytes
        }
    }

    /// The text of the id a response to the call at `index` echoes (a string, number or null); `nil` for a
    /// notification, or an id of another type (answered an error without it).
    static func echoedID(_ tape: JSONTape, _ index: Int) -> [UInt8]? {
        guard tape.kind(index) == .object else { return nil }
        for (key, value) in tape.members(index) where tape.keyEquals(key, "id" as StaticString) {
            switch tape.kind(value) {
            case .string, .escapedString, .number, .null: return Array(tape.rawText(value))
            default: return nil
            }
        }
        return nil
    }

    // MARK: One call

    enum CallResult {
        /// A notification: nothing to send.
        case none
        /// The response was written.
        case written
        /// The response comes later (an asynchronous handler).
        case later(@Sendable () async -> [UInt8]?)
    }

    /// Handles the call at `index`; `pending` is the bytes of the responses its message holds before it (a batch's).
    private func handleCall(_ tape: JSONTape, _ index: Int, context: RPCContext, pending: Int = 0, into writer: inout JSONWriter) -> CallResult {
        guard tape.kind(index) == .object else {
            let found = TapeDecoding.typeName(tape.kind(index))
            writer.writeRaw(Self.errorResponse(id: nil, .invalidRequest("expected a request object, got \(found)")))
            return .written
        }
        var jsonrpc: Int?, method: Int?, params: Int?, idToken: Int?, unknown: Int?
        for (key, value) in tape.members(index) {
            // By length first: the four names differ in length but for "method" and "params".
            let length = tape.kind(key) == .string ? tape.slice(key).count : -1  // -1: escaped, compared in full
            if (length == 6 || length < 0) && tape.keyEquals(key, "method" as StaticString) { method = value }
            else if (length == 6 || length < 0) && tape.keyEquals(key, "params" as StaticString) { params = value }
            else if (length == 2 || length < 0) && tape.keyEquals(key, "id" as StaticString) { idToken = value }
            else if (length == 7 || length < 0) && tape.keyEquals(key, "jsonrpc" as StaticString) { jsonrpc = value }
            else if unknown == nil { unknown = key }
        }
        // The id, when present and well-typed, is echoed even on an invalid request, so the caller can match it.
        var id: UnsafeRawBufferPointer?
        if let idToken {
            switch tape.kind(idToken) {
            case .string, .escapedString, .number, .null:
                id = tape.rawText(idToken)
            default:
                let found = TapeDecoding.typeName(tape.kind(idToken))
                writer.writeRaw(Self.errorResponse(id: nil, .invalidRequest("\"id\" must be a string, a number or null, got \(found)")))
                return .written
            }
        }
        func invalid(_ detail: String, _ writer: inout JSONWriter) -> CallResult {
            writer.writeRaw(Self.errorResponse(id: id, .invalidRequest(detail)))
            return .written
        }
        guard let jsonrpc, tape.kind(jsonrpc) == .string, tape.keyEquals(jsonrpc, "2.0" as StaticString) else {
            return invalid("\"jsonrpc\" must be \"2.0\"", &writer)
        }
        guard let method, tape.kind(method) == .string || tape.kind(method) == .escapedString else {
            return invalid("\"method\" must be a string", &writer)
        }
        if let params, tape.kind(params) != .object && tape.kind(params) != .array {
            return invalid("\"params\" must be an array or an object, got \(TapeDecoding.typeName(tape.kind(params)))", &writer)
        }
        if let unknown { return invalid("unexpected member \"\(tape.string(unknown))\"", &writer) }
        guard let (name, entry) = lookup(tape, method) else {
            guard let id else { return .none }
            writer.writeRaw(Self.errorResponse(id: id, .methodNotFound(tape.string(method))))
            return .written
        }
        let callID: JSONRPCID? = idToken.map { token in
            switch tape.kind(token) {
            case .number: .number(JSONNumber(validatedText: String(decoding: tape.slice(token), as: UTF8.self)))
            case .string, .escapedString: .string(tape.string(token))
            default: .null
            }
        }
        let callContext = RPCContext(id: callID, peerKey: context.peerKey, principal: context.principal)
        let source = ParamsSource(tape: tape, index: params)
        switch entry.invoker {
        case .inline(let handler):
            let started = onCall == nil ? nil : MonotonicClock.nanoseconds()
            guard let id else {
                var scratch = JSONWriter()
                var code = 0
                do { try handler(source, callContext, &scratch) } catch {
                    code = Self.wireError(error, method: name, observer: onInternalError).code
                }
                if let started { onCall?(name, code, MonotonicClock.nanoseconds() - started) }
                return .none
            }
            run(name, id: id, context: callContext, started: started, pending: pending, into: &writer) { context, writer in
                try handler(source, context, &writer)
            }
            return .written
        case .async(let prepare):
            let started = onCall == nil ? nil : MonotonicClock.nanoseconds()
            let work: @Sendable (RPCContext) async throws -> [UInt8]
            do {
                work = try prepare(source)
            } catch {
                let wire = Self.wireError(error, method: name, observer: onInternalError)
                if let started { onCall?(name, wire.code, MonotonicClock.nanoseconds() - started) }
                guard let id else { return .none }
                writer.writeRaw(Self.errorResponse(id: id, wire))
                return .written
            }
            let callObserver = onCall
            let idCopy = id.map { Array($0) }
            let observer = onInternalError
            let frozenContext = callContext
            let largeReply = largeReply
            let replyBudget = replyBudget
            return .later {
                do {
                    let result = try await work(frozenContext)
                    guard let idCopy else {
                        if let started { callObserver?(name, 0, MonotonicClock.nanoseconds() - started) }
                        return nil
                    }
                    var writer = JSONWriter(reservingCapacity: result.count + 64)
                    idCopy.withUnsafeBytes { Self.writeResultPrefix(id: $0, into: &writer) }
                    writer.writeRaw(result)
                    writer.append(UInt8(ascii: "}"))
                    // A large response is held against the budget from here, or answered its error when it does not fit.
                    if writer.count >= largeReply, let replyBudget, !replyBudget.tryHold(writer.count) {
                        if let started { callObserver?(name, replyBudget.error.code, MonotonicClock.nanoseconds() - started) }
                        return idCopy.withUnsafeBytes { Self.errorResponse(id: $0, replyBudget.error) }
                    }
                    if let started { callObserver?(name, 0, MonotonicClock.nanoseconds() - started) }
                    return writer.bytes
                } catch {
                    let wire = Self.wireError(error, method: name, observer: observer)
                    if let started { callObserver?(name, wire.code, MonotonicClock.nanoseconds() - started) }
                    guard let idCopy else { return nil }
                    return idCopy.withUnsafeBytes { Self.errorResponse(id: $0, wire) }
                }
            }
        }
    }

    /// Runs an inline handler of a call with an id, writing its response: the result, or the error it threw.
    @inline(__always)
    private func run(_ name: String, id: UnsafeRawBufferPointer, context: RPCContext, started: Int64?, pending: Int = 0,
                     into writer: inout JSONWriter, _ handler: (RPCContext, inout JSONWriter) throws -> Void) {
        let start = writer.count
        Self.writeResultPrefix(id: id, into: &writer)
        var code = 0
        do {
            try handler(context, &writer)
            writer.append(UInt8(ascii: "}"))
            let message = pending + writer.count - start
            if message >= largeReply, let replyBudget, !replyBudget.admits(message) {
                // The message would be a large reply that the budget has no room for: the call is answered its error.
                writer.truncate(to: start)
                code = replyBudget.error.code
                writer.writeRaw(Self.errorResponse(id: id, replyBudget.error))
            }
        } catch {
            writer.truncate(to: start)
            let wire = Self.wireError(error, method: name, observer: onInternalError)
            code = wire.code
            writer.writeRaw(Self.errorResponse(id: id, wire))
        }
        if let started { onCall?(name, code, MonotonicClock.nanoseconds() - started) }
    }

    // MARK: Compact calls

    /// Handles a compact call of a method with a compact reader, or returns `nil` (having written nothing and run
    /// nothing) for any other message: `{"jsonrpc":"2.0","id":…,"method":"…"` with those three in any order, then
    /// `"params":{…}}` last, all compact (see ``CompactReader``), the id an integer or a string.
    private func dispatchCompact(_ bytes: UnsafeRawBufferPointer, context: RPCContext, scratch: Scratch) -> Outcome? {
        var reader = CompactReader(bytes, texts: scratch.texts)
        guard reader.take(UInt8(ascii: "{")) else { return nil }
        var version = false
        var id: UnsafeRawBufferPointer?
        var callID: JSONRPCID?, integerID: Int64?
        var method: (name: String, entry: MethodTable.Entry)?
        while let key = reader.key() {
            if CompactReader.equals(key, "params") {
                guard version, let id, let method, let compact = method.entry.compact else { return nil }
                // The params come last: their reader runs the handler only once the call has ended right after them.
                let started = onCall == nil ? nil : MonotonicClock.nanoseconds()
                let callContext = integerID.map { RPCContext(integerID: $0, peerKey: context.peerKey, principal: context.principal) }
                    ?? RPCContext(id: callID, peerKey: context.peerKey, principal: context.principal)
                let (taken, writer) = scratch.writingResponse { writer in
                    compact(&reader) { handler in
                        run(method.name, id: id, context: callContext, started: started, into: &writer, handler)
                    }
                }
                return taken ? .reply(writer) : nil
            } else if CompactReader.equals(key, "jsonrpc") {
                guard !version, let value = reader.string(), CompactReader.equals(value, "2.0") else { return nil }
                version = true
            } else if CompactReader.equals(key, "id") {
                guard id == nil else { return nil }
                let start = reader.offset
                if reader.next == UInt8(ascii: "\"") {
                    guard let text = reader.string() else { return nil }
                    callID = .string(String(decoding: text, as: UTF8.self))
                } else {
                    guard let value = reader.int() else { return nil }
                    // Kept as an integer when its text is what `String(value)` writes: all but `-0`.
                    if value != 0 || reader.offset - start == 1 {
                        integerID = Int64(value)
                    } else {
                        callID = .number(JSONNumber(validatedText: "-0"))
                    }
                }
                id = UnsafeRawBufferPointer(rebasing: bytes[start..<reader.offset])
            } else if CompactReader.equals(key, "method") {
                guard method == nil, let name = reader.string(), let found = lookup(name), found.entry.compact != nil else { return nil }
                method = found
            } else {
                return nil
            }
            guard reader.take(UInt8(ascii: ",")) else { return nil }
        }
        return nil
    }

    /// Finds a method by the bytes of its name, without making a string (names are few and short).
    private func lookup(_ tape: JSONTape, _ token: Int) -> (String, MethodTable.Entry)? {
        if tape.kind(token) == .escapedString {
            let name = tape.string(token)
            return table.entry(name).map { (name, $0) }
        }
        return lookup(tape.slice(token))
    }

    /// Finds a method by its name's bytes (without escapes).
    private func lookup(_ raw: UnsafeRawBufferPointer) -> (name: String, entry: MethodTable.Entry)? {
        if let key = Self.packed(raw) {
            guard let index = packedNames.firstIndex(where: { $0 == key }) else { return nil }
            return (methodsByName[index].name, methodsByName[index].entry)
        }
        for method in methodsByName where method.utf8.count == raw.count {
            let same = method.utf8.withUnsafeBytes { utf8 in
                raw.count == 0 || memcmp(utf8.baseAddress!, raw.baseAddress!, raw.count) == 0
            }
            if same { return (method.name, method.entry) }
        }
        return nil
    }

    /// A name of at most 15 bytes packed as ``packedNames`` holds them, or `nil` for a longer one.
    @inline(__always)
    private static func packed(_ name: UnsafeRawBufferPointer) -> (UInt64, UInt64)? {
        guard name.count <= 15 else { return nil }
        guard let base = name.baseAddress else { return (0, 0) }
        let (low, rest) = TextCache.pack(base, count: name.count)
        return (low, rest | UInt64(name.count) << 56)
    }

    static func wireError(_ error: any Error, method: String, observer: InternalErrorObserver?) -> JSONRPCError {
        switch error {
        case let invalid as InvalidParams: return invalid.error
        case let convertible as JSONRPCErrorConvertible:
            // An error answered as an internal one (a dependency away, say) is the server's to log, as any other.
            let wire = convertible.jsonRPCError
            if wire.code == JSONRPCError.internalErrorCode { observer?(method, error) }
            return wire
        default:
            observer?(method, error)
            return .internalError
        }
    }

    // MARK: Encoding

    private static let prefix: StaticString = #"{"jsonrpc":"2.0","id":"#
    private static let resultKey: StaticString = #","result":"#
    private static let errorKey: StaticString = #","error":"#

    private static func writeResultPrefix(id: UnsafeRawBufferPointer, into writer: inout JSONWriter) {
        writer.append(UnsafeRawBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount), id,
                      UnsafeRawBufferPointer(start: resultKey.utf8Start, count: resultKey.utf8CodeUnitCount))
    }

    /// A whole error response; `id` is the id's JSON text (`nil` writes `null`).
    static func errorResponse(id: UnsafeRawBufferPointer?, _ error: JSONRPCError) -> [UInt8] {
        errorWriter(id: id, error).bytes
    }

    static func errorWriter(id: UnsafeRawBufferPointer?, _ error: JSONRPCError) -> JSONWriter {
        var writer = JSONWriter()
        writer.writeRaw(prefix)
        if let id { writer.append(id) } else { writer.writeRaw("null") }
        writer.writeRaw(errorKey)
        writer.write(error.json)
        writer.append(UInt8(ascii: "}"))
        return writer
    }
}
