import JSONRPC
import LaunchAdAPI
import LaunchAdDomain

/// The console's way into campaignd: the admin socket's own dispatcher, called in process, so a write from the console
/// runs the very handler an `adctl` write runs (the same validation, the same change log), with the signed-in user as
/// the actor. Creative bytes, which the admin API does not serve, come from the store.
public struct AdminGateway: Sendable {
    /// Sends one JSON-RPC request (bytes) as `actor` and answers the response's bytes.
    public typealias Call = @Sendable (_ request: [UInt8], _ actor: String) async -> [UInt8]
    /// A stored creative's facts, or `nil`.
    public typealias CreativeFactsReader = @Sendable (_ sha256: String) async throws -> CreativeFacts?
    /// A stored creative's facts and bytes, or `nil`.
    public typealias CreativeReader = @Sendable (_ sha256: String) async throws -> (CreativeFacts, [UInt8])?
    /// A page of one campaign's history, newest first: its changes before `seq` (from the last when `nil`), at most
    /// `limit`, fewer when their campaigns are large (the store bounds the page in bytes too).
    public typealias HistoryReader = @Sendable (_ campaign: Int64, _ before: Int64?, _ limit: Int) async throws -> [ChangeEntry]

    let call: Call
    let facts: CreativeFactsReader
    let creative: CreativeReader
    let history: HistoryReader

    public init(call: @escaping Call, facts: @escaping CreativeFactsReader, creative: @escaping CreativeReader,
                history: @escaping HistoryReader) {
        self.call = call
        self.facts = facts
        self.creative = creative
        self.history = history
    }

    /// The dispatcher's way of answering, made a `Call`: the request is dispatched with `actor` as the principal.
    public static func calling(_ dispatcher: JSONRPCDispatcher) -> Call {
        { request, actor in
            switch dispatcher.dispatch(request, context: RPCContext(id: .number(JSONNumber(1)), principal: actor)) {
            case .reply(let writer): return writer.bytes
            case .noReply: return []
            case .deferred(let work):
                let reply = await work() ?? []
                dispatcher.release(deferredReply: reply.count)  // copied into the page, not held by a socket
                return reply
            }
        }
    }

    /// Calls `method` as `actor`; a JSON-RPC error answer is thrown as ``JSONRPCError`` (its message is the handler's,
    /// naming the field at fault).
    func call<Params, Result>(_ method: RPCMethod<Params, Result>, _ params: Params, actor: String) async throws -> Result {
        let object: JSONObject = ["jsonrpc": "2.0", "id": 1, "method": .string(method.name),
                                  "params": try JSONValueEncoder().encode(params)]
        let response = try JSONParser.parse(await call(JSONValue.object(object).jsonBytes, actor))
        if let error = response["error"] {
            var code = JSONRPCError.internalErrorCode
            if case .number(let number)? = error["code"], let value = number.exactly(Int.self) { code = value }
            var message = "the call failed"
            if case .string(let text)? = error["message"] { message = text }
            throw JSONRPCError(code: code, message: message)
        }
        guard let result = response["result"] else {
            throw JSONRPCError(code: JSONRPCError.internalErrorCode, message: "\(method.name) answered no result")
        }
        return try JSONValueDecoder(rejectUnknownKeys: false).decode(Result.self, from: result)
    }
}
