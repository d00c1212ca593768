import CZeroMQ
import Foundation
import LaunchAdTesting
import Locking
import Testing
@testable import ZeroMQ

@Suite("ZeroMQ wrapper", .timeLimit(.minutes(1)))
struct ZeroMQTests {
    @Test("links libzmq 4.3 with CURVE")
    func version() {
        #expect(ZMQContext.version.major == 4)
        #expect(ZMQContext.has("curve"))
    }

    @Test("binds an ephemeral port, reports it, and keeps errno on failure")
    func ephemeralBind() throws {
        let context = try ZMQContext()
        let first = try Socket(context, type: .router)
        let bound = try first.bind("tcp://127.0.0.1:0")
        #expect(bound.hasPrefix("tcp://127.0.0.1:"))
        #expect(!bound.hasSuffix(":0") && !bound.hasSuffix(":*"))
        let second = try Socket(context, type: .router)
        #expect {
            try second.bind(bound)
        } throws: { error in
            (error as? ZMQError)?.code == EADDRINUSE
        }
    }

    @Test("a send or receive that would block keeps errno, its verb and the socket's type, and says them when asked")
    func socketErrorWords() throws {
        let context = try ZMQContext()
        let router = try Socket(context, type: .router)
        _ = try router.bind("tcp://127.0.0.1:0")
        #expect(try router.receive(into: Message(), dontWait: true) == false)
        let error = ZMQError.last(.receive, on: router.type)
        #expect(error.wouldBlock)
        #expect(error.operation == "receive on ROUTER")
        #expect(error == ZMQError(code: EAGAIN, operation: "receive on ROUTER"))
        #expect(error.hashValue == ZMQError(code: EAGAIN, operation: "receive on ROUTER").hashValue)
        #expect(error != ZMQError(code: EAGAIN, .send, on: .router))
        #expect(ZMQError(code: EHOSTUNREACH, .send, on: .dealer).description.hasPrefix("send on DEALER: "))
    }

    @Test("sends and receives multipart messages between DEALER and ROUTER")
    func multipart() async throws {
        let context = try ZMQContext()
        let router = try Socket(context, type: .router)
        let endpoint = try router.bind("tcp://127.0.0.1:0")
        let dealer = try Socket(context, type: .dealer)
        try dealer.setRoutingId(Array("peer-1".utf8))
        try dealer.connect(endpoint)
        try dealer.send(parts: [Array("a".utf8), [], Array("c".utf8)])
        try router.setReceiveTimeout(milliseconds: 5000)
        let frames = try #require(try router.receiveParts())
        #expect(frames == [Array("peer-1".utf8), Array("a".utf8), [], Array("c".utf8)])

        // Echo back through the reusable buffer: frames move on to libzmq without a copy.
        try dealer.send(parts: [Array("x".utf8), Array("y".utf8)])
        let buffer = MultipartBuffer(capacity: 4)
        var outcome = MultipartBuffer.Outcome.wouldBlock
        #expect(await eventually { outcome = (try? buffer.receive(from: router, dontWait: true)) ?? .wouldBlock; return outcome == .message })
        #expect(buffer.count == 3)
        #expect(Array(buffer.frame(2)) == Array("y".utf8))
        let echo = OutgoingBatch()
        echo.append(moving: 0, of: buffer)
        echo.append(moving: 1, of: buffer)
        Array("z".utf8).withUnsafeBytes { echo.append(copying: $0) }
        #expect(echo.flush(to: router).sent == 1)
        try dealer.setReceiveTimeout(milliseconds: 5000)
        #expect(try dealer.receiveParts() == [Array("x".utf8), Array("z".utf8)])
        buffer.clear()
        #expect(buffer.count == 0)
    }

    @Test("drops messages with more frames than the buffer holds, and reads the next one")
    func tooManyFrames() async throws {
        let context = try ZMQContext()
        let router = try Socket(context, type: .router)
        let endpoint = try router.bind("tcp://127.0.0.1:0")
        let dealer = try Socket(context, type: .dealer)
        try dealer.connect(endpoint)
        try dealer.send(parts: Array(repeating: Array("f".utf8), count: 1000))
        try dealer.send(parts: [Array("ok".utf8)])
        let buffer = MultipartBuffer(capacity: 8)
        var outcome = MultipartBuffer.Outcome.wouldBlock
        #expect(await eventually { outcome = (try? buffer.receive(from: router, dontWait: true)) ?? .wouldBlock; return outcome != .wouldBlock })
        #expect(outcome == .tooManyFrames(1001))
        #expect(try buffer.receive(from: router, dontWait: false) == .message)
        #expect(Array(buffer.frame(1)) == Array("ok".utf8))
    }

    /// A mandatory router and a dealer `peer-1` that has said hello: the router knows the peer, and `buffer` holds that
    /// first message (its routing id, the empty delimiter, `hello`), whose envelope a reply can move out of it.
    static func greetedRouter() async throws -> (context: ZMQContext, router: Socket, dealer: Socket, buffer: MultipartBuffer) {
        let context = try ZMQContext()
        let router = try Socket(context, type: .router)
        try router.setRouterMandatory(true)
        let endpoint = try router.bind("tcp://127.0.0.1:0")
        let dealer = try Socket(context, type: .dealer)
        try dealer.setRoutingId(Array("peer-1".utf8))
        try dealer.setReceiveTimeout(milliseconds: 5000)
        try dealer.connect(endpoint)
        try dealer.send(parts: [[], Array("hello".utf8)])
        let buffer = MultipartBuffer(capacity: 4)
        #expect(await eventually { (try? buffer.receive(from: router, dontWait: true)) == .message })
        return (context, router, dealer, buffer)
    }

    @Test("a socket's descriptor announces a message after a receive found none, and not once ZMQ_EVENTS took its command in")
    func signalDescriptor() async throws {
        let (context, router, dealer, buffer) = try await Self.greetedRouter()
        defer { withExtendedLifetime(context) {} }
        var poller = DescriptorPoller()
        let index = poller.add(fd: try router.signalDescriptor)
        // Drained: a receive said EAGAIN, so the descriptor is quiet and the next message will wake it.
        #expect(try buffer.receive(from: router, dontWait: true) == .wouldBlock)
        #expect(try poller.poll(timeoutMilliseconds: 0) == 0)
        try dealer.send(parts: [[], Array("one".utf8)])
        #expect(try poller.poll(timeoutMilliseconds: 5000) == 1 && poller.isReadable(index))
        // Looking at the events takes the command in: the message waits while the descriptor says nothing, which is
        // why a loop sleeps on it only right after an EAGAIN.
        #expect(try router.events.contains(.readable))
        #expect(try poller.poll(timeoutMilliseconds: 100) == 0)
        #expect(try buffer.receive(from: router, dontWait: true) == .message)
        #expect(buffer.count == 3 && Array(buffer.frame(2)) == Array("one".utf8))
        // Ignored, it does not wake the poll.
        #expect(try buffer.receive(from: router, dontWait: true) == .wouldBlock)
        poller.setWatched(false, at: index)
        try dealer.send(parts: [[], Array("two".utf8)])
        #expect(try poller.poll(timeoutMilliseconds: 200) == 0)
        poller.setWatched(true, at: index)
        #expect(try poller.poll(timeoutMilliseconds: 5000) == 1)
        #expect(try buffer.receive(from: router, dontWait: true) == .message)
    }

    @Test("an outgoing batch sends its messages whole and in order, drops those to unroutable peers, and grows")
    func outgoingBatch() async throws {
        // The router learns the peer from its first message; that message's frames are moved into the batch.
        let (context, router, dealer, buffer) = try await Self.greetedRouter()
        defer { withExtendedLifetime(context) {} }

        let batch = OutgoingBatch(frameCapacity: 2)  // grows several times below
        batch.append(moving: 0, of: buffer)
        batch.append(moving: 1, of: buffer)
        Array("reply 0".utf8).withUnsafeBytes { batch.append(copying: $0) }
        #expect(buffer.frame(0).isEmpty)  // moved out, not copied
        for index in 1..<20 {
            let peer = index == 7 ? "nobody" : "peer-1"
            Array(peer.utf8).withUnsafeBytes { batch.append(copying: $0, last: false) }
            batch.append(copying: UnsafeRawBufferPointer(start: nil, count: 0), last: false)
            Array("reply \(index)".utf8).withUnsafeBytes { batch.append(copying: $0) }
        }
        #expect(batch.messageCount == 20 && batch.frameCount == 60)
        let result = batch.flush(to: router)
        #expect(result == OutgoingBatch.FlushResult(sent: 19, dropped: 1, error: nil))
        #expect(batch.isEmpty && batch.messageCount == 0)
        for index in 0..<20 where index != 7 {
            #expect(try dealer.receiveParts() == [[], Array("reply \(index)".utf8)])
        }
        // Flushing an empty batch sends nothing; the batch is reusable after a flush.
        #expect(batch.flush(to: router) == OutgoingBatch.FlushResult())
        Array("peer-1".utf8).withUnsafeBytes { batch.append(copying: $0, last: false) }
        Array("again".utf8).withUnsafeBytes { batch.append(copying: $0) }
        #expect(batch.flush(to: router).sent == 1)
        #expect(try dealer.receiveParts() == [Array("again".utf8)])
    }

    @Test("a frame appended with whenReleased reports its size once libzmq lets go of it: sent and read, dropped, or never sent")
    func releasedFrames() async throws {
        let (context, router, dealer, buffer) = try await Self.greetedRouter()
        defer { withExtendedLifetime(context) {} }
        let released = Locked<[Int]>([])
        let body = [UInt8](repeating: 0x61, count: 100_000)

        // Sent: released once written out, whole and unchanged at the peer.
        let batch = OutgoingBatch()
        batch.append(moving: 0, of: buffer)
        batch.append(moving: 1, of: buffer)
        body.withUnsafeBytes { batch.append(copying: $0, last: true) { size in released.withLock { $0.append(size) } } }
        #expect(released.withLock { $0 }.isEmpty)
        #expect(batch.flush(to: router).sent == 1)
        #expect(try dealer.receiveParts() == [[], body])
        #expect(await eventually { released.withLock { $0 } == [100_000] })

        // Dropped (no such peer): released by the flush itself.
        Array("nobody".utf8).withUnsafeBytes { batch.append(copying: $0, last: false) }
        Array("lost".utf8).withUnsafeBytes { batch.append(copying: $0, last: true) { size in released.withLock { $0.append(size) } } }
        #expect(batch.flush(to: router) == OutgoingBatch.FlushResult(sent: 0, dropped: 1, error: nil))
        #expect(released.withLock { $0 } == [100_000, 4])

        // Never sent: released when the batch goes.
        do {
            let unsent = OutgoingBatch()
            Array("never".utf8).withUnsafeBytes { unsent.append(copying: $0, last: true) { size in released.withLock { $0.append(size) } } }
        }
        #expect(released.withLock { $0 } == [100_000, 4, 5])
    }

    @Test("a poll loop wakes at once when another thread posts to its mailbox")
    func wake() async throws {
        let mailbox = try Mailbox<Int>()
        let received = Locked<[Int]>([])
        let thread = OwnerThread(name: "test-loop") {
            var poller = Poller()
            poller.add(fd: mailbox.waker.fd)
            while true {
                _ = try? poller.poll(timeoutMilliseconds: 10_000)
                let items = mailbox.takeAll()
                received.withLock { $0.append(contentsOf: items) }
                if items.contains(-1) { return }
            }
        }
        let started = ContinuousClock.now
        await withTaskGroup(of: Void.self) { group in
            for producer in 0..<4 {
                group.addTask {
                    for index in 0..<250 { mailbox.post(producer * 1000 + index) }
                }
            }
        }
        mailbox.post(-1)
        await thread.joined()
        #expect(ContinuousClock.now - started < .seconds(5))
        let items = received.withLock { $0 }
        #expect(items.count == 1001)
        // Each producer's items arrive in its own order.
        for producer in 0..<4 {
            let mine = items.filter { $0 >= producer * 1000 && $0 < producer * 1000 + 1000 }
            #expect(mine == Array((0..<250).map { producer * 1000 + $0 }))
        }
    }

    @Test("generates, derives and validates CURVE keys")
    func curveKeys() throws {
        let pair = try CurveKeyPair.generate()
        #expect(pair.publicKey.count == 40 && pair.secretKey.count == 40)
        #expect(try CurveKeyPair(secretKey: pair.secretKey) == pair)
        #expect(CurveKey.isValid(pair.publicKey))
        #expect(!CurveKey.isValid("short"))
        #expect(!CurveKey.isValid(String(repeating: "\"", count: 40)))
        let other = try CurveKeyPair.generate()
        #expect(throws: CurveKeyError.mismatchedPair) { try CurveKeyPair(publicKey: other.publicKey, secretKey: pair.secretKey) }
        #expect(throws: CurveKeyError.self) { try CurveKeyPair(secretKey: "nope") }
    }

    @Test("ZAP admits listed CURVE keys only, and refuses plain clients")
    func zapAllowlist() throws {
        let context = try ZMQContext()
        let decisions = Locked<[ZAPAuthenticator.Decision]>([])
        let zap = try ZAPAuthenticator(context: context) { decision in decisions.withLock { $0.append(decision) } }
        let listed = try CurveKeyPair.generate()
        let unlisted = try CurveKeyPair.generate()
        try zap.allow(domain: "admin", keys: [listed.publicKey])
        try zap.start()
        defer { zap.stop() }

        let server = try CurveKeyPair.generate()
        let router = try Socket(context, type: .router)
        try router.setZAPDomain("admin")
        try router.makeCurveServer(secretKey: server.secretKey)
        let endpoint = try router.bind("tcp://127.0.0.1:0")

        func attempt(_ keyPair: CurveKeyPair?) throws -> String? {
            let dealer = try Socket(context, type: .dealer)
            if let keyPair { try dealer.makeCurveClient(serverKey: server.publicKey, keyPair: keyPair) }
            try dealer.connect(endpoint)
            try dealer.send(Array("hello".utf8))
            var poller = Poller()
            poller.add(router)
            guard try poller.poll(timeoutMilliseconds: 700) > 0, let frames = try router.receiveMultipart(dontWait: true) else { return nil }
            return frames.last?.property("User-Id")
        }
        #expect(try attempt(listed) == listed.publicKey)
        #expect(try attempt(unlisted) == nil)
        #expect(try attempt(nil) == nil)
        let seen = decisions.withLock { $0 }
        #expect(seen.contains { $0.clientKey == listed.publicKey && $0.admitted })
        #expect(seen.contains { $0.clientKey == unlisted.publicKey && !$0.admitted })
        #expect(throws: CurveKeyError.self) { try zap.allow(domain: "admin", keys: ["bad"]) }
    }
}
