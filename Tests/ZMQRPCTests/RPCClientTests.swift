import Foundation
import JSONRPC
import LaunchAdTesting
import Locking
import Synchronization
import Testing
import ZMQRPC
import ZeroMQ

@Suite("RPC client over DEALER, publisher and subscriber", .timeLimit(.minutes(2)))
struct RPCClientTests {
    @Test("many calls in flight on one socket, each matched to its answer")
    func concurrentCalls() async throws {
        let server = try RunningServer(dispatcher: SpecExamples.dispatcher(async: true))
        let client = try RPCClient(context: server.context, configuration: RPCClientConfiguration(endpoint: server.endpoint))
        try await withThrowingTaskGroup(of: (Int, Int).self) { group in
            for index in 0..<500 {
                group.addTask { (index, try await client.call(SpecExamples.subtract, .init(minuend: index, subtrahend: 1))) }
            }
            var seen = 0
            for try await (index, result) in group {
                #expect(result == index - 1)
                seen += 1
            }
            #expect(seen == 500)
        }
        await client.close()
        await server.stop()
    }

    @Test("server errors arrive as JSONRPCError with their code")
    func serverErrors() async throws {
        let server = try RunningServer()
        let client = try RPCClient(context: server.context, configuration: RPCClientConfiguration(endpoint: server.endpoint))
        await #expect {
            _ = try await client.call("nope", params: nil)
        } throws: { error in
            (error as? JSONRPCError)?.code == -32601
        }
        await #expect {
            _ = try await client.call("subtract", params: ["minuend": "x", "subtrahend": 1])
        } throws: { error in
            (error as? JSONRPCError)?.code == -32602
        }
        let document = try await client.call("rpc.discover", params: nil)
        #expect(document["openrpc"] == "1.3.2")
        await client.close()
        await server.stop()
    }

    @Test("a call with no answer times out; a non-idempotent one is not sent again")
    func timeout() async throws {
        let context = try ZMQContext()
        // A ROUTER that never answers.
        let silent = try Socket(context, type: .router)
        let endpoint = try silent.bind("tcp://127.0.0.1:0")
        var configuration = RPCClientConfiguration(endpoint: endpoint)
        configuration.timeout = .milliseconds(200)
        let client = try RPCClient(context: context, configuration: configuration)
        let started = ContinuousClock.now
        await #expect(throws: RPCClientError.timeout(method: "update", endpoint: endpoint)) {
            _ = try await client.call(SpecExamples.update, [1])
        }
        // The configured 200 ms, not the default 5 s. (The bound leaves room for the start of a full parallel run,
        // when the test threads can be busy for a few seconds before this task is resumed.)
        #expect(ContinuousClock.now - started < .milliseconds(4_500))
        var received = 0
        while (try silent.receiveParts(dontWait: true)) != nil { received += 1 }
        #expect(received == 1)
        await client.close()
        withExtendedLifetime(silent) {}
    }

    @Test("an idempotent call survives a server that starts late (Lazy Pirate: reconnect and resend)")
    func lazyPirate() async throws {
        // An endpoint nobody serves yet (IPC, so no other test can take it meanwhile, as could happen to a port).
        let directory = try makeTemporaryDirectory("lazy-pirate")
        defer { removeTemporaryDirectory(directory) }
        let endpoint = "ipc://\(directory.appendingPathComponent("server.sock").path)"

        let context = try ZMQContext()
        var configuration = RPCClientConfiguration(endpoint: endpoint)
        configuration.timeout = .milliseconds(250)
        configuration.retries = 20
        let client = try RPCClient(context: context, configuration: configuration)
        async let answer = client.call(SpecExamples.subtract, .init(minuend: 10, subtrahend: 4))
        // The server comes only once the client has given up on a try and reconnected.
        #expect(await eventually { client.reconnects.load(ordering: .relaxed) >= 1 })
        let server = try RPCServer(context: context, dispatcher: SpecExamples.dispatcher(),
                                   configuration: RPCServerConfiguration(endpoint: endpoint, name: "late"))
        try server.start()
        #expect(try await answer == 6)
        #expect(client.reconnects.load(ordering: .relaxed) >= 1)
        await client.close()
        await server.shutdown()
    }

    @Test("a cancelled call stops waiting at once")
    func cancellation() async throws {
        let context = try ZMQContext()
        let silent = try Socket(context, type: .router)
        let endpoint = try silent.bind("tcp://127.0.0.1:0")
        let client = try RPCClient(context: context, configuration: RPCClientConfiguration(endpoint: endpoint))
        let task = Task { try await client.call(SpecExamples.update, [1], timeout: .seconds(30)) }
        // Cancelled once the call is out: the silent server has its request.
        #expect(await eventually { (try? silent.receiveParts(dontWait: true)) != nil })
        task.cancel()
        await #expect(throws: CancellationError.self) { _ = try await task.value }
        // A call made by a task already cancelled: it is cancelled too, not left to wait out its timeout.
        let late = Task { () async throws -> Bool in
            while !Task.isCancelled { await Task.yield() }
            return try await client.call(SpecExamples.update, [1], timeout: .seconds(30))
        }
        late.cancel()
        let started = ContinuousClock.now
        await #expect(throws: CancellationError.self) { _ = try await late.value }
        #expect(ContinuousClock.now - started < .seconds(5))
        await client.close()
        await #expect(throws: RPCClientError.closed) { _ = try await client.call(SpecExamples.update, [1]) }
        withExtendedLifetime(silent) {}
    }

    @Test("a subscriber receives two-frame notifications in order, for its topics only, by stream or by handler",
          arguments: [false, true])
    func pubSub(byHandler: Bool) async throws {
        let context = try ZMQContext()
        let publisher = try Publisher(context: context, configuration: .init(endpoint: "tcp://127.0.0.1:0"))
        let endpoint = try publisher.start()
        let (handled, handle) = AsyncStream.makeStream(of: PublishedMessage.self)
        var handler: (@Sendable (PublishedMessage, Bool) -> Void)?
        if byHandler { handler = { @Sendable message, _ in _ = handle.yield(message) } }
        let subscriber = try Subscriber(context: context, configuration: .init(endpoint: endpoint, topics: ["campaign"]),
                                        handler: handler)
        // PUB/SUB joins late: publish heartbeats until the subscription is in place, then the real stream.
        var iterator = (byHandler ? handled : subscriber.messages).makeAsyncIterator()
        let probe = Task {
            for _ in 0..<500 {
                publisher.publish(topic: "campaign", method: "probe", params: [:])
                // Pacing of the probes; the wait itself is for the first message, below.
                try await Task.sleep(for: .milliseconds(10))
            }
        }
        let first = await iterator.next()
        probe.cancel()
        #expect(first?.method == "probe")
        _ = try? await probe.value
        for seq in 1...1000 {
            publisher.publish(topic: "heartbeat", method: "heartbeat", params: ["seq": .number(JSONNumber(seq))])
            publisher.publish(topic: "campaign", method: "campaign.changed", params: ["seq": .number(JSONNumber(seq))])
        }
        var seqs: [Int] = []
        while seqs.count < 1000, let message = await iterator.next() {
            #expect(message.topic == "campaign")
            if message.method == "campaign.changed", let seq = message.params["seq"]?.intValue { seqs.append(seq) }
        }
        #expect(seqs == Array(1...1000))
        await subscriber.stop()
        if byHandler {
            // Everything went to the handler; the stream, finished by stop(), held nothing.
            var streamed = 0
            for await _ in subscriber.messages { streamed += 1 }
            #expect(streamed == 0)
        }
        await publisher.shutdown()
        #expect(publisher.published.load(ordering: .relaxed) >= 2001)
    }

    struct Ping: Codable, Sendable, Equatable {
        var seq: Int
    }

    @Test("a subscriber skips and counts what is not a JSON-RPC 2.0 notification in two frames; params decode from the bytes, members a publisher added passed over")
    func subscriberReadsBytes() async throws {
        let context = try ZMQContext()
        let socket = try Socket(context, type: .pub)
        let endpoint = try socket.bind("tcp://127.0.0.1:0")
        let received = Locked<[PublishedMessage]>([])
        let subscriber = try Subscriber(context: context, configuration: .init(endpoint: endpoint, topics: ["t"])) { message, _ in
            received.withLock { $0.append(message) }
        }
        func send(_ parts: [String]) throws { _ = try socket.send(parts: parts.map { Array($0.utf8) }, dontWait: true) }
        // PUB/SUB joins late: probes until the subscription is in place.
        for _ in 0..<500 where received.withLock({ $0.isEmpty }) {
            try send(["t", #"{"jsonrpc":"2.0","method":"probe"}"#])
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(received.withLock { $0.first?.method } == "probe")
        for bad in [["t", "not json"], ["t", #"{"jsonrpc":"1.0","method":"ping","params":{"seq":1}}"#],
                    ["t", #"{"jsonrpc":"2.0","params":{"seq":1}}"#], ["t", #"{"jsonrpc":"2.0","method":7}"#],
                    ["t", #"{"jsonrpc":"2.0","method":"ping","method":"ping"}"#], ["t", "{}", "extra"]] {
            try send(bad)
        }
        try send(["t", #"{"jsonrpc":"2.0","method":"ping","params":{"seq":7,"added":true},"also":[1]}"#])
        #expect(await eventually { received.withLock { $0.last?.method == "ping" } })
        // Read in order: the six sent before the good one were all counted, and none was passed on.
        #expect(subscriber.malformed.load(ordering: .relaxed) == 6)
        #expect(received.withLock { $0.allSatisfy { $0.method == "probe" || $0.method == "ping" } })
        let good = try #require(received.withLock { $0.last })
        let ping = StreamNotification<Ping>(topic: "t", method: "ping")
        #expect(good.is(ping))
        #expect(good.params(as: ping) == Ping(seq: 7))
        #expect(good.params(as: StreamNotification<Ping>(topic: "t", method: "pong")) == nil)
        #expect(good.params == ["seq": 7, "added": true])
        await subscriber.stop()
        socket.close()
    }

    /// Params that write themselves, and count how often they did, so that a test sees which way they went.
    struct Written: Codable, Sendable, Equatable, JSONWritable {
        var seq: Int
        var name: String
        static let writes = Atomic<Int>(0)

        func write(json: inout JSONWriter) {
            Self.writes.add(1, ordering: .relaxed)
            json.writeObject { object in
                object.field("seq", seq)
                object.field("name", name)
            }
        }
    }

    /// Publishes `params` by their generic encoding, whatever else they conform to.
    static func publishEncoded<Params: Codable & Sendable>(_ publisher: Publisher, _ notification: StreamNotification<Params>, _ params: Params) {
        publisher.publish(notification, params)
    }

    @Test("params that write themselves are published as the same bytes as their generic encoding, and read back")
    func writtenParams() async throws {
        let context = try ZMQContext()
        let publisher = try Publisher(context: context, configuration: .init(endpoint: "tcp://127.0.0.1:0"))
        let endpoint = try publisher.start()
        let received = Locked<[PublishedMessage]>([])
        let subscriber = try Subscriber(context: context, configuration: .init(endpoint: endpoint, topics: ["t"])) { message, _ in
            received.withLock { $0.append(message) }
        }
        let notification = StreamNotification<Written>(topic: "t", method: "written")
        // PUB/SUB joins late: probes until the subscription is in place.
        for _ in 0..<500 where received.withLock({ $0.isEmpty }) {
            publisher.publish(topic: "t", method: "probe", params: [:])
            try await Task.sleep(for: .milliseconds(10))
        }
        let params = [Written(seq: 1, name: "plain"), Written(seq: -9_007_199_254_740_993, name: "\"quoted\" \\ 双\n\u{1}")]
        for value in params {
            publisher.publish(notification, value)
            Self.publishEncoded(publisher, notification, value)
        }
        // Written directly once each; the generic encoding does not call the writer.
        #expect(Written.writes.load(ordering: .relaxed) == params.count)
        #expect(await eventually { received.withLock { $0.count(where: { $0.is(notification) }) == 4 } })
        let messages = received.withLock { $0.filter { $0.is(notification) } }
        for (index, value) in params.enumerated() {
            let written = messages[2 * index], encoded = messages[2 * index + 1]
            #expect(written.body == encoded.body, "\(String(decoding: written.body, as: UTF8.self))")
            #expect(written.topic == "t")
            #expect(written.params(as: notification) == value)
        }
        await subscriber.stop()
        await publisher.shutdown()
    }

    @Test("loopback endpoints are told apart from the rest")
    func loopback() {
        for endpoint in ["tcp://127.0.0.1:7100", "tcp://127.1.2.3:0", "tcp://localhost:1", "tcp://[::1]:5", "ipc:///tmp/x", "inproc://a"] {
            #expect(isLoopbackEndpoint(endpoint), "\(endpoint)")
        }
        for endpoint in ["tcp://0.0.0.0:7100", "tcp://*:7100", "tcp://10.0.0.1:1", "tcp://eth0:1", "tcp://128.0.0.1:1", "udp://127.0.0.1:1"] {
            #expect(!isLoopbackEndpoint(endpoint), "\(endpoint)")
        }
    }
}
