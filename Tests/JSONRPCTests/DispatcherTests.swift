import JSONRPC
import LaunchAdTesting
import Testing

@Suite("JSON-RPC 2.0 dispatcher", .timeLimit(.minutes(1)))
struct DispatcherTests {
    /// Dispatches and waits for any asynchronous part; `nil` means no response.
    static func respond(_ dispatcher: JSONRPCDispatcher, _ text: String, context: RPCContext = RPCContext()) async throws -> JSONValue? {
        switch dispatcher.dispatch(Array(text.utf8), context: context) {
        case .noReply: return nil
        case .reply(let writer): return try JSONParser.parse(writer.bytes)
        case .deferred(let work):
            guard let bytes = await work() else { return nil }
            return try JSONParser.parse(bytes)
        }
    }

    @Test("the specification's examples, inline handlers", arguments: SpecExamples.all)
    func specExamplesInline(_ example: SpecExamples.Example) async throws {
        try await check(example, SpecExamples.dispatcher(async: false))
    }

    @Test("the specification's examples, asynchronous handlers", arguments: SpecExamples.all)
    func specExamplesAsync(_ example: SpecExamples.Example) async throws {
        try await check(example, SpecExamples.dispatcher(async: true))
    }

    func check(_ example: SpecExamples.Example, _ dispatcher: JSONRPCDispatcher) async throws {
        let response = try await Self.respond(dispatcher, example.request)
        guard let expectedText = example.response else {
            #expect(response == nil)
            return
        }
        let expected = try JSONParser.parse(expectedText)
        let actual = try #require(response)
        #expect(SpecExamples.normalized(actual) == SpecExamples.normalized(expected))
        // Only jsonrpc, id and result or error at the top level, and ids with their JSON type.
        for object in (actual.arrayValue ?? [actual]).compactMap(\.objectValue) {
            #expect(Set(object.keys) == ["jsonrpc", "id", "result"] || Set(object.keys) == ["jsonrpc", "id", "error"])
        }
    }

    struct Blob: Codable, Sendable { var size: Int }

    @Test("with a reply budget, a call whose response would make its message a large reply that does not fit is answered the budget's error; small ones always go")
    func replyBudget() async throws {
        var methods = MethodTable()
        methods.register(RPCMethod<Blob, String>("blob", summary: ""), inline: { params, _ in String(repeating: "x", count: params.size) })
        let budget = ReplyBudget(limit: 10_000, largeReply: 1_000, error: JSONRPCError(code: -32006, message: "busy"))
        let dispatcher = JSONRPCDispatcher(methods: methods, info: OpenRPCInfo(title: "t", version: "1"), replyBudget: budget)
        func call(_ size: Int, id: Int) -> String { #"{"jsonrpc":"2.0","id":\#(id),"method":"blob","params":{"size":\#(size)}}"# }
        func code(_ response: JSONValue?) -> Int? { response?["error"]?["code"]?.intValue }

        // Room: small and large replies go.
        #expect(try await Self.respond(dispatcher, call(500, id: 1))?["result"]?.stringValue?.count == 500)
        #expect(try await Self.respond(dispatcher, call(5_000, id: 2))?["result"]?.stringValue?.count == 5_000)
        // The transport holds 8,000 bytes: a large reply no longer fits, a small one still goes.
        budget.hold(8_000)
        let refused = try #require(try await Self.respond(dispatcher, call(5_000, id: 3)))
        #expect(code(refused) == -32006 && refused["id"] == 3 && refused["result"] == nil)
        #expect(try await Self.respond(dispatcher, call(500, id: 4))?["result"]?.stringValue?.count == 500)
        // A batch of small calls is one large reply: the calls that would take it past the budget are refused, each
        // with its id, and everything after them too; the message stays within what the budget had room for.
        let batch = "[" + (10..<20).map { call(300, id: $0) }.joined(separator: ",") + "]"
        let (reply, bytes): (JSONValue, Int) = try {
            guard case .reply(let writer) = dispatcher.dispatch(Array(batch.utf8)) else { throw JSONRPCError.internalError }
            return (try JSONParser.parse(writer.bytes), writer.count)
        }()
        let responses = try #require(reply.arrayValue)
        #expect(responses.map { $0["id"]?.intValue } == Array(10..<20))
        let answered = responses.prefix { $0["result"] != nil }.count
        #expect(answered >= 2 && answered < 10)
        #expect(responses.dropFirst(answered).allSatisfy { code($0) == -32006 })
        #expect(bytes <= budget.limit - budget.held + 64 * (10 - answered))
        // Once the transport lets go, large replies go again.
        budget.release(8_000)
        #expect(budget.held == 0)
        #expect(try await Self.respond(dispatcher, call(5_000, id: 5))?["result"]?.stringValue?.count == 5_000)
        #expect(try await Self.respond(dispatcher, batch)?.arrayValue?.allSatisfy { $0["result"] != nil } == true)
    }

    @Test("with a reply budget, an asynchronous call's large response is held as it is made, once, or answered the budget's error; many finishing together never pass the budget, and one larger than all of it goes alone")
    func replyBudgetAsync() async throws {
        var methods = MethodTable()
        methods.register(RPCMethod<Blob, String>("blob", summary: ""), handler: { params, _ async in String(repeating: "x", count: params.size) })
        let budget = ReplyBudget(limit: 10_000, largeReply: 1_000, error: JSONRPCError(code: -32006, message: "busy"))
        let dispatcher = JSONRPCDispatcher(methods: methods, info: OpenRPCInfo(title: "t", version: "1"), replyBudget: budget)
        func call(_ size: Int, id: Int) -> String { #"{"jsonrpc":"2.0","id":\#(id),"method":"blob","params":{"size":\#(size)}}"# }
        func work(_ text: String) throws -> @Sendable () async -> [UInt8]? {
            let outcome = dispatcher.dispatch(Array(text.utf8))
            guard case .deferred(let work) = outcome else { Issue.record("\(text): \(outcome)"); throw JSONRPCError.internalError }
            return work
        }

        // Twenty responses of 3,000 bytes finish together: three fit and are held (no one has let go of them), the
        // others are refused, each with its id.
        let works = try (0..<20).map { try work(call(3_000, id: $0)) }
        let replies = await withTaskGroup(of: [UInt8]?.self) { group in
            for work in works { group.addTask { await work() } }
            return await group.reduce(into: []) { $0.append($1) }
        }.compactMap { $0 }
        let held = replies.filter { $0.count >= 1_000 }
        #expect(held.count == 3 && budget.held == held.reduce(0) { $0 + $1.count })
        let refused = try replies.filter { $0.count < 1_000 }.map { try JSONParser.parse($0) }
        #expect(refused.count == 17 && refused.allSatisfy { $0["error"]?["code"]?.intValue == -32006 && $0["id"]?.intValue != nil })
        // Small responses go whatever the budget holds.
        #expect(await (try work(call(100, id: 30)))()?.count ?? 0 > 100)
        // Whoever took the replies lets go of them: the budget is empty again.
        for reply in held { dispatcher.release(deferredReply: reply.count) }
        #expect(budget.held == 0)
        // A response larger than the whole budget goes while nothing else is held, and is held.
        let whole = try #require(await (try work(call(20_000, id: 31)))())
        #expect(whole.count > 20_000 && budget.held == whole.count)
        #expect(try JSONParser.parse(try #require(await (try work(call(2_000, id: 32)))()))["error"]?["code"]?.intValue == -32006)
        dispatcher.release(deferredReply: whole.count)
        // A batch's message is held whole: its asynchronous parts once, and the rest of it with them.
        let batch = try #require(await (try work("[" + call(3_000, id: 40) + "," + call(500, id: 41) + "]"))())
        #expect(budget.held == batch.count)
        dispatcher.release(deferredReply: batch.count)
        #expect(budget.held == 0)
        // A batch of responses each under the large size, together over what the budget has left: not held past it,
        // but each asynchronous call answered the budget's error with its id (a notification nothing).
        let hold = try #require(await (try work(call(8_000, id: 50)))())
        let small = (60..<75).map { call(700, id: $0) } + [#"{"jsonrpc":"2.0","method":"blob","params":{"size":700}}"#]
        let crowded = try #require(await (try work("[" + small.joined(separator: ",") + "]"))())
        let answers = try #require(try JSONParser.parse(crowded).arrayValue)
        #expect(answers.count == 15 && answers.allSatisfy { $0["error"]?["code"]?.intValue == -32006 && $0["id"]?.intValue != nil })
        // The refused batch holds only its own small message, as any message of the large size is held.
        #expect(budget.held == hold.count + (crowded.count >= 1_000 ? crowded.count : 0), "\(budget.held)")
        dispatcher.release(deferredReply: crowded.count)
        dispatcher.release(deferredReply: hold.count)
        #expect(budget.held == 0)
        // With room, the same batch goes and is held whole.
        let roomy = try #require(await (try work("[" + small.joined(separator: ",") + "]"))())
        #expect(roomy.count > 10_000 && budget.held == roomy.count)
        dispatcher.release(deferredReply: roomy.count)
        #expect(budget.held == 0)
    }

    @Test("echoes ids with their JSON type and exact text", arguments: [#""abc""#, "7", "1.50", "-0", "123456789012345678901234567890", "null"])
    func echoesIds(_ id: String) async throws {
        let response = try #require(try await Self.respond(SpecExamples.dispatcher(), #"{"jsonrpc":"2.0","method":"sum","params":[1],"id":\#(id)}"#))
        #expect(response["id"]?.jsonText == id)
        #expect(response["result"] == 1)
    }

    @Test("refuses what is not a request", arguments: [
        (#"{"jsonrpc":"1.0","method":"sum","params":[1],"id":1}"#, -32600, "1"),
        (#"{"method":"sum","params":[1],"id":1}"#, -32600, "1"),
        (#"{"jsonrpc":"2.0","method":"sum","params":5,"id":1}"#, -32600, "1"),
        (#"{"jsonrpc":"2.0","method":"sum","params":[1],"id":[1]}"#, -32600, "null"),
        (#"{"jsonrpc":"2.0","method":"sum","params":[1],"id":true}"#, -32600, "null"),
        (#"{"jsonrpc":"2.0","method":"sum","params":[1],"id":1,"extra":2}"#, -32600, "1"),
        (#"{"jsonrpc":"2.0","method":"subtract","params":{"minuend":"x","subtrahend":1},"id":1}"#, -32602, "1"),
        (#"{"jsonrpc":"2.0","method":"subtract","params":{"minuend":1},"id":1}"#, -32602, "1"),
        (#"{"jsonrpc":"2.0","method":"subtract","params":{"minuend":1,"subtrahend":2,"x":3},"id":1}"#, -32602, "1"),
        (#"{"jsonrpc":"2.0","method":"subtract","params":[1,2,3],"id":1}"#, -32602, "1"),
        (#"{"jsonrpc":"2.0","method":"get_data","params":{"a":1},"id":1}"#, -32602, "1"),
        ("\"just a string\"", -32600, "null"),
        ("{\"a\":" + String(repeating: "[", count: 200), -32700, "null"),
    ])
    func refusesInvalid(_ request: String, _ code: Int, _ id: String) async throws {
        let response = try #require(try await Self.respond(SpecExamples.dispatcher(), request))
        #expect(response["error"]?["code"]?.intValue == code)
        #expect(response["id"]?.jsonText == id)
        #expect(response["result"] == nil)
    }

    @Test("names the offending field in -32602")
    func invalidParamsNamesField() async throws {
        let response = try #require(try await Self.respond(SpecExamples.dispatcher(),
            #"{"jsonrpc":"2.0","method":"subtract","params":{"minuend":"x","subtrahend":1},"id":1}"#))
        #expect(response["error"]?["data"]?["field"] == "minuend")
        #expect(response["error"]?["message"]?.stringValue?.contains("minuend") == true)
    }

    enum Failure: Error, JSONRPCErrorConvertible {
        case domain
        var jsonRPCError: JSONRPCError { JSONRPCError(code: -32010, message: "campaign not found") }
    }

    struct Internal: Error { let detail = "password=hunter2" }

    @Test("maps domain errors to their codes and hides internal ones")
    func errorMapping() async throws {
        var table = MethodTable()
        table.register(RPCMethod<NoParams, Int>("domain", summary: ""), inline: { _, _ in throw Failure.domain })
        table.register(RPCMethod<NoParams, Int>("internal", summary: ""), inline: { _, _ in throw Internal() })
        table.register(RPCMethod<NoParams, Int>("internalAsync", summary: ""), handler: { _, _ in throw Internal() })
        let seen = LockedList()
        let dispatcher = JSONRPCDispatcher(methods: table, info: OpenRPCInfo(title: "t", version: "1"),
                                           onInternalError: { method, _ in seen.append(method) })
        let domain = try #require(try await Self.respond(dispatcher, #"{"jsonrpc":"2.0","method":"domain","id":1}"#))
        #expect(domain["error"] == ["code": -32010, "message": "campaign not found"])
        for method in ["internal", "internalAsync"] {
            let response = try #require(try await Self.respond(dispatcher, #"{"jsonrpc":"2.0","method":"\#(method)","id":1}"#))
            #expect(response["error"] == ["code": -32603, "message": "Internal error"])
            #expect(!response.jsonText.contains("hunter2"))
        }
        #expect(seen.items == ["internal", "internalAsync"])
    }

    @Test("a handler that writes its result: what it writes is the result; if it throws, the error replaces it")
    func writingHandler() async throws {
        var table = MethodTable()
        table.register(RPCMethod<QueryParams, [String: Int]>("count", summary: ""), writing: { params, _, json in
            json.writeRaw("{\"length\":")
            json.write(int: params.app.count)
            if params.app == "boom" { throw Failure.domain }  // after writing part of the result
            json.writeRaw("}")
        })
        let dispatcher = JSONRPCDispatcher(methods: table, info: OpenRPCInfo(title: "t", version: "1"))
        let ok = try #require(try await Self.respond(dispatcher, #"{"jsonrpc":"2.0","method":"count","params":{"app":"shop"},"id":1}"#))
        #expect(ok == ["jsonrpc": "2.0", "id": 1, "result": ["length": 4]])
        let failed = try #require(try await Self.respond(dispatcher, #"{"jsonrpc":"2.0","method":"count","params":{"app":"boom"},"id":2}"#))
        #expect(failed == ["jsonrpc": "2.0", "id": 2, "error": ["code": -32010, "message": "campaign not found"]])
        let bad = try #require(try await Self.respond(dispatcher, #"{"jsonrpc":"2.0","method":"count","params":{"app":3},"id":3}"#))
        #expect(bad["error"]?["code"] == -32602)
        // In a batch too, the failed call is answered with its error and the next call with its own result.
        let batch = try #require(try await Self.respond(dispatcher, #"[{"jsonrpc":"2.0","method":"count","params":{"app":"boom"},"id":4},{"jsonrpc":"2.0","method":"count","params":{"app":"ab"},"id":5}]"#))
        #expect(batch == [["jsonrpc": "2.0", "id": 4, "error": ["code": -32010, "message": "campaign not found"]],
                          ["jsonrpc": "2.0", "id": 5, "result": ["length": 2]]])
    }

    @Test("a loop reusing its scratch memory never writes over a response its caller still holds")
    func scratchReuse() throws {
        let dispatcher = SpecExamples.dispatcher(async: false)
        let scratch = JSONRPCDispatcher.Scratch()
        func dispatch(_ text: String) -> JSONWriter? {
            let bytes = Array(text.utf8)
            return bytes.withUnsafeBytes { raw in
                if case .reply(let writer) = dispatcher.dispatch(raw, context: RPCContext(), scratch: scratch) { return writer }
                return nil
            }
        }
        let first = try #require(dispatch(#"{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}"#))
        let held = first.bytes
        // The next responses, one short and one long, while the first is still held, then after it is let go of.
        let second = try #require(dispatch(#"{"jsonrpc":"2.0","method":"subtract","params":[1,2],"id":"a-much-longer-id-than-before"}"#))
        #expect(first.bytes == held)
        #expect(try JSONParser.parse(second.bytes) == JSONParser.parse(#"{"jsonrpc":"2.0","result":-1,"id":"a-much-longer-id-than-before"}"#))
        for index in 0..<100 {
            let reply = try #require(dispatch(#"{"jsonrpc":"2.0","method":"subtract","params":[\#(index),1],"id":\#(index)}"#))
            #expect(try JSONParser.parse(reply.bytes) == JSONParser.parse(#"{"jsonrpc":"2.0","result":\#(index - 1),"id":\#(index)}"#))
        }
        #expect(first.bytes == held)
    }

    @Test("refuses batches over the limit")
    func batchLimit() async throws {
        var limits = JSONRPCDispatcher.Limits()
        limits.maxBatch = 3
        let dispatcher = JSONRPCDispatcher(methods: SpecExamples.methods, info: OpenRPCInfo(title: "t", version: "1"), limits: limits)
        let call = #"{"jsonrpc":"2.0","method":"sum","params":[1],"id":1}"#
        let response = try #require(try await Self.respond(dispatcher, "[\(call),\(call),\(call),\(call)]"))
        #expect(response["error"]?["code"] == -32600)
        let ok = try #require(try await Self.respond(dispatcher, "[\(call),\(call),\(call)]"))
        #expect(ok.arrayValue?.count == 3)
    }

    @Test("rpc.discover returns an OpenRPC document generated from the typed methods")
    func discover() async throws {
        let dispatcher = SpecExamples.dispatcher()
        let response = try #require(try await Self.respond(dispatcher, #"{"jsonrpc":"2.0","method":"rpc.discover","id":1}"#))
        let document = try #require(response["result"])
        #expect(document == dispatcher.openRPCDocument)
        #expect(document["openrpc"] == "1.3.2")
        let names = document["methods"]?.arrayValue?.compactMap { $0["name"]?.stringValue }
        #expect(names == ["get_data", "notify_hello", "notify_sum", "subtract", "sum", "update"])
        let subtract = document["methods"]?.arrayValue?.first { $0["name"] == "subtract" }
        #expect(subtract?["params"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["minuend", "subtrahend"])
        #expect(subtract?["paramStructure"] == "either")
    }

    @Test("passes the caller's key to handlers")
    func context() async throws {
        var table = MethodTable()
        table.register(RPCMethod<NoParams, String>("whoami", summary: ""), inline: { _, context in context.peerKey ?? "local" })
        let dispatcher = JSONRPCDispatcher(methods: table, info: OpenRPCInfo(title: "t", version: "1"))
        let response = try await Self.respond(dispatcher, #"{"jsonrpc":"2.0","method":"whoami","id":1}"#, context: RPCContext(peerKey: "K"))
        #expect(response?["result"] == "K")
    }
}

final class LockedList: Sendable {
    private let storage = Locked<[String]>([])
    func append(_ item: String) { storage.withLock { $0.append(item) } }
    var items: [String] { storage.withLock { $0 } }
}

import Locking
