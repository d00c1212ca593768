import JSONRPC
import LaunchAdAPI

/// A dispatcher with every public method of the three request sockets, each answering with its params decoded
/// and encoded again: what the dispatcher does with any input, through the real params decoding of each method
/// (the `JSONReadable` fast path of `launch.query` included), without the services behind it.
enum EchoDispatcher {
    struct Method: Sendable {
        let name: String
        let register: @Sendable (inout MethodTable) -> Void
        /// The result expected for these params (as the dispatcher hands them over: `{}` when absent), or `nil`
        /// when they must be refused with -32602.
        let expected: @Sendable (JSONValue) -> JSONValue?

        init<Params: Codable & Sendable, Result>(_ method: RPCMethod<Params, Result>) {
            name = method.name
            register = { table in
                let echo = RPCMethod<Params, JSONValue>(method.name, summary: method.summary, idempotent: method.idempotent,
                                                        positionalParams: method.positionalParams)
                table.register(echo, inline: { params, _ in try JSONValueEncoder().encode(params) })
            }
            expected = { params in
                guard let decoded = try? JSONValueDecoder().decode(Params.self, from: params) else { return nil }
                return try? JSONValueEncoder().encode(decoded)
            }
        }
    }

    /// The methods by name (`creative.get` is on both the sync and the client socket, with the same params).
    static let methods: [String: Method] = {
        var methods: [String: Method] = [:]
        let all: [Method] = [
            Method(AdminAPI.creativeUpload), Method(AdminAPI.campaignCreate), Method(AdminAPI.campaignUpdate),
            Method(AdminAPI.campaignGet), Method(AdminAPI.campaignList), Method(AdminAPI.edgeList), Method(AdminAPI.campaignStats), Method(AdminAPI.appStats),
            Method(AdminAPI.changeList), Method(AdminAPI.launchExplain),
        ] + AdminAPI.operations.map { Method($0.0) } + [
            Method(SyncAPI.snapshot), Method(SyncAPI.changes), Method(SyncAPI.creative), Method(SyncAPI.ack), Method(SyncAPI.acks), Method(SyncAPI.report),
            Method(ClientAPI.launchQuery), Method(ClientAPI.edgeStatus), Method(ClientAPI.launchReport),
            Method(ClientAPI.launchPrefetch), Method(ClientAPI.launchWhy), Method(ClientAPI.creativeGet),
        ]
        for method in all where methods[method.name] == nil { methods[method.name] = method }
        return methods
    }()

    static let dispatcher: JSONRPCDispatcher = {
        var table = MethodTable()
        for method in methods.values.sorted(by: { $0.name < $1.name }) { method.register(&table) }
        return JSONRPCDispatcher(methods: table, info: OpenRPCInfo(title: "echo", version: "1"))
    }()

    static func check(_ bytes: [UInt8], parsed: JSONValue?, _ violations: inout [InvariantViolation]) {
        func fail(_ invariant: String, _ detail: String) { violations.append(.init(invariant, detail)) }
        let limits = dispatcher.limits
        switch dispatcher.dispatch(bytes) {
        case .deferred:
            fail("inline handlers answer at once", "the dispatcher deferred")
        case .noReply:
            guard let parsed else { return fail("a message that does not parse is answered", "no reply") }
            if isNotification(parsed) { return }
            if case .array(let calls) = parsed, !calls.isEmpty, calls.count <= limits.maxBatch, calls.allSatisfy(isNotification) { return }
            fail("only notifications go unanswered", parsed.jsonText.prefix(200).description)
        case .reply(let writer):
            let response: JSONValue
            do {
                response = try JSONParser.parse(writer.bytes)
            } catch {
                return fail("replies are JSON", "\(error): \(String(decoding: writer.bytes, as: UTF8.self).prefix(200))")
            }
            guard let parsed else {
                checkResponse(response, to: nil, &violations)
                if response["error"]?["code"]?.intValue != JSONRPCError.parseErrorCode {
                    fail("a message that does not parse gets -32700", response.jsonText)
                }
                return
            }
            if case .array(let calls) = parsed, !calls.isEmpty, calls.count <= limits.maxBatch {
                let answered = calls.filter { !isNotification($0) }
                guard case .array(let responses) = response, !answered.isEmpty else {
                    return fail("a batch is answered by an array with a response per call", response.jsonText.prefix(200).description)
                }
                guard responses.count == answered.count else {
                    return fail("a batch is answered by an array with a response per call", "\(answered.count) calls, \(responses.count) responses")
                }
                for (call, answer) in zip(answered, responses) { checkResponse(answer, to: call, &violations) }
            } else {
                checkResponse(response, to: parsed, &violations)
            }
        }
    }

    /// A well-formed request without an id.
    static func isNotification(_ value: JSONValue) -> Bool {
        guard let call = wellFormed(value) else { return false }
        return call.id == nil
    }

    /// The parts of a well-formed request (what the dispatcher must not refuse as -32600).
    static func wellFormed(_ value: JSONValue) -> (method: String, params: JSONValue?, id: JSONValue?)? {
        guard case .object(let object) = value else { return nil }
        guard object.keys.allSatisfy({ ["jsonrpc", "method", "params", "id"].contains($0) }) else { return nil }
        guard object["jsonrpc"] == .string("2.0"), case .string(let method)? = object["method"] else { return nil }
        let params = object["params"]
        switch params {
        case nil, .array?, .object?: break
        default: return nil
        }
        let id = object["id"]
        switch id {
        case nil, .string?, .number?, .null?: break
        default: return nil
        }
        return (method, params, id)
    }

    static func checkResponse(_ response: JSONValue, to request: JSONValue?, _ violations: inout [InvariantViolation]) {
        func fail(_ invariant: String, _ detail: String) {
            violations.append(.init(invariant, "\(detail) in \(response.jsonText.prefix(200)) to \(request?.jsonText.prefix(200) ?? "unparsable bytes")"))
        }
        guard case .object(let object) = response else { return fail("a response is an object", "not an object") }
        guard object.keys.allSatisfy({ ["jsonrpc", "id", "result", "error"].contains($0) }) else { return fail("a response has only its members", "extra member") }
        guard object["jsonrpc"] == .string("2.0") else { return fail("a response says jsonrpc 2.0", "jsonrpc") }
        guard let id = object["id"] else { return fail("a response has an id", "no id") }
        switch id {
        case .string, .number, .null: break
        default: return fail("a response's id is a string, a number or null", "id")
        }
        let result = object["result"]
        let error = object["error"]
        guard (result == nil) != (error == nil) else { return fail("a response has a result or an error", "both or neither") }
        var code: Int?
        if let error {
            guard case .object(let members) = error, members.keys.allSatisfy({ ["code", "message", "data"].contains($0) }),
                  let errorCode = members["code"]?.intValue, case .string? = members["message"] else {
                return fail("an error has an integer code and a message", "error")
            }
            code = errorCode
        }
        guard let request, let call = wellFormed(request) else {
            if code != JSONRPCError.invalidRequestCode && code != JSONRPCError.parseErrorCode {
                fail("what is not a request gets -32600", "code \(code.map(String.init) ?? "none")")
            }
            if case .object(let members) = request, let requestID = members["id"], [.string, .number, .null].contains(requestID.kind),
               id != requestID {
                fail("an invalid request with a usable id gets it back", "id")
            }
            return
        }
        if id != (call.id ?? .null) { fail("a response echoes the request's id", "id") }
        guard let method = methods[call.method] else {
            if call.method == "rpc.discover" { return }
            if code != JSONRPCError.methodNotFoundCode { fail("an unknown method gets -32601", "code") }
            return
        }
        let expected = method.expected(call.params ?? .object(JSONObject()))
        switch (expected, result) {
        case (let expected?, let result?):
            if expected != result { fail("a call answers with its params decoded", "expected \(expected.jsonText.prefix(200))") }
        case (nil, nil):
            if code != JSONRPCError.invalidParamsCode { fail("params that do not decode get -32602", "code") }
        case (nil, _?):
            fail("params that do not decode are refused", "they were accepted")
        case (_?, nil):
            fail("params that decode are accepted", "they were refused")
        }
    }
}

extension JSONValue {
    /// The kind of value, for comparisons that ignore the contents.
    fileprivate enum Kind { case null, bool, number, string, array, object }

    fileprivate var kind: Kind {
        switch self {
        case .null: .null
        case .bool: .bool
        case .number: .number
        case .string: .string
        case .array: .array
        case .object: .object
        }
    }
}
