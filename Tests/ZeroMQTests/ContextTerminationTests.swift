import Foundation
import Testing
import ZeroMQ

@Suite("the context's termination before a process exits", .timeLimit(.minutes(1)))
struct ContextTerminationTests {
    @Test("terminate waits for a lingering reply to reach a peer that reads late, and says when a socket still open ran the wait out")
    func terminateWaits() async throws {
        let server = try ZMQContext(), client = try ZMQContext()
        let peer = try Socket(client, type: .dealer)
        defer { peer.close() }
        try peer.setReceiveTimeout(milliseconds: 5000)
        let router = try Socket(server, type: .router)
        let endpoint = try router.bind("tcp://127.0.0.1:0")
        try peer.connect(endpoint)
        try peer.send(parts: [Array("hello".utf8)])
        let request = try #require(try router.receiveParts())
        // A reply queued, then the socket closed with a linger: the termination is what delivers it.
        try router.send(parts: [request[0], Array(repeating: UInt8(ascii: "r"), count: 100_000)])
        try router.setLinger(milliseconds: 5000)
        router.close()
        #expect(await server.terminate(waitingAtMost: .seconds(10)))
        #expect(try peer.receiveParts()?.first?.count == 100_000)

        // A socket left open: the wait runs out, and says so; the termination ends once the socket closes.
        let other = try ZMQContext()
        let open = try Socket(other, type: .dealer)
        let started = ContinuousClock.now
        #expect(await other.terminate(waitingAtMost: .milliseconds(300)) == false)
        #expect(ContinuousClock.now - started >= .milliseconds(300))
        open.close()
        #expect(await other.terminate(waitingAtMost: .seconds(1)), "a second call says the termination has begun")
    }
}
