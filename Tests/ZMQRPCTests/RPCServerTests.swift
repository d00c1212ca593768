import Foundation
import JSONRPC
import LaunchAdTesting
import Synchronization
import Locking
import Testing
import ZMQRPC
import ZeroMQ

/// A server on an ephemeral loopback port, stopped by `stop()`.
struct RunningServer {
    let context: ZMQContext
    let server: RPCServer
    let endpoint: String

    init(dispatcher: JSONRPCDispatcher = SpecExamples.dispatcher(), configure: (inout RPCServerConfiguration) -> Void = { _ in }) throws {
        context = try ZMQContext()
        var configuration = RPCServerConfiguration(endpoint: "tcp://127.0.0.1:0", name: "test")
        configure(&configuration)
        server = try RPCServer(context: context, dispatcher: dispatcher, configuration: configuration)
        endpoint = try server.start()
    }

    func stop() async { await server.shutdown() }
}

@Suite("RPC server over ROUTER", .timeLimit(.minutes(2)))
struct RPCServerTests {
    enum Client: String, CaseIterable, CustomStringConvertible {
        case req, dealerWithDelimiter, dealerWithoutDelimiter
        var description: String { rawValue }
    }

    /// Sends `text` the way `client` frames it and returns the reply body (`.null` for an empty frame, `nil` for nothing).
    static func exchange(_ text: String, as client: Client, server: RunningServer, timeout: Duration = .seconds(5)) async throws -> (JSONValue?, [[UInt8]]?) {
        let peer = try TestPeer(server.context, type: client == .req ? .req : .dealer, endpoint: server.endpoint)
        switch client {
        case .req: try peer.send(text)
        case .dealerWithDelimiter: try peer.send([[], Array(text.utf8)])
        case .dealerWithoutDelimiter: try peer.send([Array(text.utf8)])
        }
        guard let reply = try await peer.receive(timeout: timeout) else { return (nil, nil) }
        let body = reply.last ?? []
        return (body.isEmpty ? .null : try JSONParser.parse(body), reply)
    }

    @Test("the specification's examples through a real socket, from REQ and DEALER peers, inline and async handlers",
          arguments: Client.allCases, [false, true])
    func specExamples(_ client: Client, _ async: Bool) async throws {
        let server = try RunningServer(dispatcher: SpecExamples.dispatcher(async: async))
        for example in SpecExamples.all {
            // A notification-only message gets one empty frame when the peer sent the delimiter, else nothing.
            let timeout: Duration = example.response == nil && client == .dealerWithoutDelimiter ? .milliseconds(300) : .seconds(5)
            let (response, frames) = try await Self.exchange(example.request, as: client, server: server, timeout: timeout)
            guard let expectedText = example.response else {
                switch client {
                case .req: #expect(frames == [[]], "\(example.name)")
                case .dealerWithDelimiter: #expect(frames == [[], []], "\(example.name)")
                case .dealerWithoutDelimiter: #expect(frames == nil, "\(example.name)")
                }
                continue
            }
            let actual = try #require(response, "\(example.name)")
            #expect(SpecExamples.normalized(actual) == SpecExamples.normalized(try JSONParser.parse(expectedText)), "\(example.name)")
            // The envelope is echoed: REQ sees one frame; a DEALER sees its delimiter when it sent one.
            #expect(frames?.count == (client == .dealerWithDelimiter ? 2 : 1))
        }
        await server.stop()
    }

    @Test("hostile frames leave the server answering the next good request")
    func hostileFrames() async throws {
        let server = try RunningServer { $0.maxMessageSize = 16 * 1024 * 1024 }
        let good = #"{"jsonrpc":"2.0","method":"sum","params":[1,2],"id":7}"#
        func stillAnswers() async throws {
            let peer = try TestPeer(server.context, type: .req, endpoint: server.endpoint)
            #expect(try await peer.request(good)?["result"] == 3)
        }
        func code(_ frames: [[UInt8]]) async throws -> Int? {
            let peer = try TestPeer(server.context, type: .dealer, endpoint: server.endpoint)
            try peer.send(frames)
            guard let reply = try await peer.receive(), let body = reply.last, !body.isEmpty else { return nil }
            return try JSONParser.parse(body)["error"]?["code"]?.intValue
        }
        // Invalid UTF-8 inside a string and outside one.
        #expect(try await code([[], Array(#"{"jsonrpc":"2.0","method":"sum","params":["#.utf8) + [0x22, 0xC3, 0x28, 0x22] + Array("],\"id\":1}".utf8)]) == -32700)
        #expect(try await code([[0xFF, 0xFE, 0x00]]) == -32700)
        try await stillAnswers()
        // A body of several frames after the delimiter.
        #expect(try await code([[], Array(good.utf8), Array(good.utf8)]) == -32600)
        // An empty frame, and an empty body after the delimiter.
        #expect(try await code([[]]) == -32700)
        #expect(try await code([[], []]) == -32700)
        // Deep nesting, and 10 MB of '['.
        #expect(try await code([[], Array((String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000)).utf8)]) == -32700)
        #expect(try await code([[], [UInt8](repeating: UInt8(ascii: "["), count: 10 * 1024 * 1024)]) == -32700)
        try await stillAnswers()
        // Thousands of frames in one message: dropped unanswered.
        let flood = try TestPeer(server.context, type: .dealer, endpoint: server.endpoint)
        try flood.send(Array(repeating: Array(good.utf8), count: 5000))
        #expect(try await flood.receive(timeout: .milliseconds(300)) == nil)
        #expect(await eventually { server.server.stats.malformed.load(ordering: .relaxed) >= 1 })
        try await stillAnswers()
        await server.stop()
    }

    @Test("a message over MAXMSGSIZE never reaches a handler, and the sender is cut off")
    func oversized() async throws {
        let calls = Atomic<Int>(0)
        var table = MethodTable()
        table.register(RPCMethod<JSONValue, Int>("count", summary: ""), inline: { _, _ in calls.add(1, ordering: .relaxed).newValue })
        let dispatcher = JSONRPCDispatcher(methods: table, info: OpenRPCInfo(title: "t", version: "1"))
        let server = try RunningServer(dispatcher: dispatcher) { $0.maxMessageSize = 1024 }
        let big = #"{"jsonrpc":"2.0","method":"count","params":{"x":""# + String(repeating: "a", count: 4096) + #""},"id":1}"#
        let peer = try TestPeer(server.context, type: .req, endpoint: server.endpoint)
        #expect(try await peer.request(big, timeout: .milliseconds(500)) == nil)
        #expect(calls.load(ordering: .relaxed) == 0)
        let other = try TestPeer(server.context, type: .req, endpoint: server.endpoint)
        #expect(try await other.request(#"{"jsonrpc":"2.0","method":"count","params":{},"id":2}"#)?["result"] == 1)
        await server.stop()
    }

    /// A gate that async handlers wait on until the test opens it.
    final class Gate: Sendable {
        private let state = Locked<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))
        func wait() async {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state in
                    if state.open { return true }
                    state.waiters.append(continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        }
        func open() {
            let waiters = state.withLock { state in
                state.open = true
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
        var waiting: Int { state.withLock { $0.waiters.count } }
    }

    @Test("bounds requests in flight: beyond the bound the server stops reading instead of queueing")
    func backPressure() async throws {
        let gate = Gate()
        let started = Atomic<Int>(0)
        var table = MethodTable()
        table.register(RPCMethod<NoParams, Int>("slow", summary: ""), handler: { _, _ in
            started.add(1, ordering: .relaxed)
            await gate.wait()
            return 1
        })
        table.register(RPCMethod<NoParams, Int>("fast", summary: ""), inline: { _, _ in 2 })
        let dispatcher = JSONRPCDispatcher(methods: table, info: OpenRPCInfo(title: "t", version: "1"))
        let server = try RunningServer(dispatcher: dispatcher) { $0.maxInFlight = 3 }
        let peer = try TestPeer(server.context, type: .dealer, endpoint: server.endpoint)
        for id in 1...10 { try peer.send([[], Array(#"{"jsonrpc":"2.0","method":"slow","id":\#(id)}"#.utf8)]) }
        try peer.send([[], Array(#"{"jsonrpc":"2.0","method":"fast","id":99}"#.utf8)])
        #expect(await eventually { gate.waiting == 3 })
        // Nothing beyond the bound was taken from the socket, not even the fast call queued behind. (Something that
        // must not happen has no event to wait for: the test gives it a while.)
        try await Task.sleep(for: .milliseconds(200))
        #expect(started.load(ordering: .relaxed) == 3)
        #expect(server.server.stats.received.load(ordering: .relaxed) == 3)
        #expect(server.server.stats.inFlight.load(ordering: .relaxed) == 3)
        gate.open()
        var ids: Set<Int> = []
        while ids.count < 11, let reply = try await peer.receive() {
            if let id = try JSONParser.parse(reply[1])["id"]?.intValue { ids.insert(id) }
        }
        #expect(ids == Set(1...10).union([99]))
        #expect(server.server.stats.inFlight.load(ordering: .relaxed) == 0)
        await server.stop()
    }

    @Test("pipelined requests are all answered, in order, across reply batches", arguments: [1, 7, 128])
    func pipelined(replyBatch: Int) async throws {
        let server = try RunningServer { $0.replyBatch = replyBatch }
        let peers = try (0..<2).map { _ in try TestPeer(server.context, type: .dealer, endpoint: server.endpoint) }
        let count = 1000
        func answered(_ id: Int) -> Bool { id % 97 == 0 || id % 10 != 5 }
        for id in 0..<count {
            // Inline requests, a notification every tenth (no reply), an invalid request every 97th (an error reply).
            let text = id % 97 == 0 ? #"{"jsonrpc":"2.0","method":7,"id":\#(id)}"#
                : id % 10 == 5 ? #"{"jsonrpc":"2.0","method":"sum","params":[\#(id)]}"#
                : #"{"jsonrpc":"2.0","method":"sum","params":[\#(id),1],"id":\#(id)}"#
            try peers[id % 2].send([Array(text.utf8)])  // no delimiter: a notification gets nothing back
        }
        for (which, peer) in peers.enumerated() {
            for id in stride(from: which, to: count, by: 2) where answered(id) {
                let reply = try #require(try await peer.receive())
                let body = try JSONParser.parse(reply.last ?? [])
                #expect(body["id"] == .number(JSONNumber(id)))
                if id % 97 == 0 {
                    #expect(body["error"]?["code"] == -32600)
                } else {
                    #expect(body["result"] == .number(JSONNumber(id + 1)))
                }
            }
        }
        // Nothing more: no reply twice, none for a notification.
        for peer in peers { #expect(try await peer.receive(timeout: .milliseconds(200)) == nil) }
        #expect(server.server.stats.replied.load(ordering: .relaxed) == (0..<count).filter(answered).count)
        #expect(server.server.stats.repliesDropped.load(ordering: .relaxed) == 0)
        await server.stop()
    }

    @Test("replies to peers that went away are dropped without blocking the server")
    func vanishedPeers() async throws {
        let gate = Gate()
        var table = SpecExamples.methods
        table.register(RPCMethod<NoParams, Int>("slow", summary: ""), handler: { _, _ in
            await gate.wait()
            return 1
        })
        let dispatcher = JSONRPCDispatcher(methods: table, info: OpenRPCInfo(title: "t", version: "1"))
        let server = try RunningServer(dispatcher: dispatcher) { $0.highWaterMark = 100 }
        do {
            let leaving = try TestPeer(server.context, type: .dealer, endpoint: server.endpoint)
            try leaving.send([[], Array(#"{"jsonrpc":"2.0","method":"slow","id":1}"#.utf8)])
            #expect(await eventually { gate.waiting == 1 })
            leaving.socket.close()
        }
        // A peer that floods and never reads its replies.
        let flooder = try TestPeer(server.context, type: .dealer, endpoint: server.endpoint)
        for id in 0..<5000 { try flooder.send([[], Array(#"{"jsonrpc":"2.0","method":"sum","params":[1],"id":\#(id)}"#.utf8)]) }
        #expect(await eventually { server.server.stats.received.load(ordering: .relaxed) >= 5001 })
        // The flood's replies back up in a queue that nobody reads: nothing announces when it is full, so a while.
        try await Task.sleep(for: .milliseconds(100))
        gate.open()
        #expect(await eventually { server.server.stats.inFlight.load(ordering: .relaxed) == 0 })
        #expect(server.server.stats.repliesDropped.load(ordering: .relaxed) >= 1)
        let good = try TestPeer(server.context, type: .req, endpoint: server.endpoint)
        #expect(try await good.request(#"{"jsonrpc":"2.0","method":"sum","params":[1,2],"id":1}"#)?["result"] == 3)
        await server.stop()
    }

    @Test("the server's thread carries its socket's name, for top -H and /proc")
    func threadName() async throws {
        func names() throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").compactMap { task in
                try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            }
        }
        var configuration = RPCServerConfiguration(endpoint: "tcp://127.0.0.1:0", name: "named-longer-than-linux-allows")
        configuration.maxInFlight = 4
        let context = try ZMQContext()
        let server = try RPCServer(context: context, dispatcher: SpecExamples.dispatcher(), configuration: configuration)
        #expect(try !names().contains("rpc-named-longe"))
        try server.start()
        // Linux keeps 15 bytes of a thread's name.
        #expect(try names().contains("rpc-named-longe"))
        await server.shutdown()
    }

    @Test("graceful shutdown finishes the requests in flight and sends their replies")
    func gracefulShutdown() async throws {
        let gate = Gate()
        var table = MethodTable()
        table.register(RPCMethod<NoParams, Int>("slow", summary: ""), handler: { _, _ in
            await gate.wait()
            return 42
        })
        let dispatcher = JSONRPCDispatcher(methods: table, info: OpenRPCInfo(title: "t", version: "1"))
        let server = try RunningServer(dispatcher: dispatcher)
        let peer = try TestPeer(server.context, type: .dealer, endpoint: server.endpoint)
        try peer.send([[], Array(#"{"jsonrpc":"2.0","method":"slow","id":1}"#.utf8)])
        #expect(await eventually { gate.waiting == 1 })
        async let stopped: Void = server.stop()
        // The stop must be under way while the request is held: it shows nowhere, so a while.
        try await Task.sleep(for: .milliseconds(100))
        gate.open()
        await stopped
        let reply = try #require(try await peer.receive())
        #expect(try JSONParser.parse(reply[1])["result"] == 42)
    }

    @Test("graceful shutdown still delivers the replies queued for a peer that reads slowly")
    func gracefulShutdownDeliversQueuedReplies() async throws {
        // Replies of 48 KiB, 256 of them (12 MiB): more than the kernel's buffers on both sides of the connection hold,
        // so most of them are still in libzmq's queue when the server stops.
        let body = String(repeating: "x", count: 48 * 1024)
        var table = MethodTable()
        table.register(RPCMethod<NoParams, String>("big", summary: ""), inline: { _, _ in body })
        let dispatcher = JSONRPCDispatcher(methods: table, info: OpenRPCInfo(title: "t", version: "1"))
        // A linger far longer than the reading takes, even on a loaded host: this test is about what is delivered.
        let server = try RunningServer(dispatcher: dispatcher) { $0.shutdownLinger = .seconds(30) }
        let peer = try TestPeer(server.context, type: .dealer, endpoint: server.endpoint) { socket in
            try socket.setReceiveHighWaterMark(1)
            try socket.setReceiveBufferSize(64 * 1024)
            try socket.setReceiveTimeout(milliseconds: 5000)
        }
        let count = 256
        for id in 1...count { try peer.send([[], Array(#"{"jsonrpc":"2.0","method":"big","id":\#(id)}"#.utf8)]) }
        #expect(await eventually { server.server.stats.replied.load(ordering: .relaxed) == count })
        await server.stop()
        // The peer reads only now (blocking, as fast as the replies come, and read after): every reply comes, in order, whole.
        var replies: [[UInt8]] = []
        while replies.count < count, let reply = try peer.socket.receiveParts() { replies.append(reply[1]) }
        var ids: [Int] = []
        for reply in replies {
            let response = try JSONParser.parse(reply)
            #expect(response["result"]?.stringValue?.utf8.count == body.utf8.count)
            ids.append(response["id"]?.intValue ?? 0)
        }
        #expect(ids.count == count)
        #expect(ids == Array(1...ids.count))
    }

    @Test("the context's termination ends the loop as no failure: the service returns")
    func contextTerminated() async throws {
        let server = try RunningServer()
        server.context.shutdown()
        try await server.server.run()
        #expect(server.server.failure == nil)
    }

    @Test("a socket loop that ended on its own fails its service, so the group (and the process) ends with an error")
    func loopFailureFailsTheService() async throws {
        struct EndedLoop: SocketService {
            var endpoint: String? { "tcp://127.0.0.1:1" }
            func start() throws(ZMQError) -> String { "tcp://127.0.0.1:1" }
            func beginShutdown() {}
            func stopped() async {}
            var failure: ZMQError? { ZMQError(code: EBADF, operation: "poll") }
        }
        await #expect(throws: ZMQError(code: EBADF, operation: "poll")) { try await EndedLoop().run() }
    }

    @Test("CURVE: a listed key gets answers; an unlisted key and a plain client get nothing")
    func curve() async throws {
        let context = try ZMQContext()
        let zap = try ZAPAuthenticator(context: context)
        let listed = try CurveKeyPair.generate()
        try zap.allow(domain: "admin", keys: [listed.publicKey])
        try zap.start()
        defer { zap.stop() }
        let serverKeys = try CurveKeyPair.generate()
        var configuration = RPCServerConfiguration(endpoint: "tcp://127.0.0.1:0", name: "admin")
        configuration.curve = CurveServerOptions(keyPair: serverKeys, zapDomain: "admin")
        var table = SpecExamples.methods
        table.register(RPCMethod<NoParams, String>("whoami", summary: ""), inline: { _, context in context.peerKey ?? "" })
        let server = try RPCServer(context: context, dispatcher: JSONRPCDispatcher(methods: table, info: OpenRPCInfo(title: "t", version: "1")),
                                   configuration: configuration)
        let endpoint = try server.start()
        let whoami = #"{"jsonrpc":"2.0","method":"whoami","id":1}"#

        let good = try TestPeer(context, type: .req, endpoint: endpoint, curve: (serverKeys.publicKey, listed))
        #expect(try await good.request(whoami)?["result"] == .string(listed.publicKey))
        let stranger = try TestPeer(context, type: .req, endpoint: endpoint, curve: (serverKeys.publicKey, try CurveKeyPair.generate()))
        #expect(try await stranger.request(whoami, timeout: .milliseconds(500)) == nil)
        let plain = try TestPeer(context, type: .req, endpoint: endpoint)
        #expect(try await plain.request(whoami, timeout: .milliseconds(500)) == nil)

        // The typed client over CURVE too.
        var clientConfiguration = RPCClientConfiguration(endpoint: endpoint)
        clientConfiguration.curve = CurveClientOptions(serverKey: serverKeys.publicKey, keyPair: listed)
        let client = try RPCClient(context: context, configuration: clientConfiguration)
        #expect(try await client.call(SpecExamples.subtract, .init(minuend: 5, subtrahend: 3)) == 2)
        await client.close()
        await server.shutdown()
    }
}
