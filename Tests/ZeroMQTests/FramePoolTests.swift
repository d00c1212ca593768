import CZeroMQ
import LaunchAdTesting
import Synchronization
import Testing
@testable import ZeroMQ

/// Counts the times a frame pool's block is freed (the pool's `freed` hook, called from C).
private final class FreeCounter: Sendable {
    let count = Atomic<Int>(0)
}

private func watch(_ pool: OpaquePointer, with counter: FreeCounter) {
    launchad_frame_pool_on_free(pool, { context in
        guard let context else { return }
        Unmanaged<FreeCounter>.fromOpaque(context).takeUnretainedValue().count.add(1, ordering: .relaxed)
    }, Unmanaged.passUnretained(counter).toOpaque())
}

private func bytes(of message: UnsafeMutablePointer<zmq_msg_t>) -> [UInt8] {
    Array(UnsafeRawBufferPointer(start: zmq_msg_data(message), count: zmq_msg_size(message)))
}

@Suite("Reply frames lent from a pool", .timeLimit(.minutes(1)))
struct FramePoolTests {
    @Test("slots are lent in turn and only when free, hold a copy of the bytes, and come back when the frame is closed")
    func lending() throws {
        let pool = try #require(launchad_frame_pool_create(16, 2))
        let counter = FreeCounter()
        watch(pool, with: counter)
        let messages = UnsafeMutablePointer<zmq_msg_t>.allocate(capacity: 4)
        defer { messages.deallocate() }

        var first: [UInt8] = Array("first frame".utf8)
        let second: [UInt8] = Array("second, 16 bytes".utf8)
        #expect(launchad_frame_pool_copy(pool, messages, first, first.count) == 0)
        #expect(launchad_frame_pool_copy(pool, messages + 1, second, second.count) == 0)
        first[0] = 0x46  // the frame holds a copy
        #expect(bytes(of: messages) == Array("first frame".utf8))
        #expect(bytes(of: messages + 1) == second)
        #expect(zmq_msg_data(messages) != zmq_msg_data(messages + 1))
        // Both slots lent: the next copy finds its slot busy and leaves the message alone; so do bytes that do not
        // fit a slot, and no bytes at all.
        #expect(launchad_frame_pool_copy(pool, messages + 2, first, first.count) == -1)
        let large = [UInt8](repeating: 7, count: 17)
        #expect(launchad_frame_pool_copy(pool, messages + 2, large, large.count) == -1)
        #expect(launchad_frame_pool_copy(pool, messages + 2, first, 0) == -1)

        // The first slot comes back when its frame is closed, and is lent again with the new bytes in it.
        let firstSlot = zmq_msg_data(messages)
        zmq_msg_close(messages)
        let third: [UInt8] = Array("third".utf8)
        var tries = 0
        while launchad_frame_pool_copy(pool, messages + 2, third, third.count) != 0 {
            tries += 1
            try #require(tries < 2, "the freed slot is reached within one turn of the cursor")
        }
        #expect(zmq_msg_data(messages + 2) == firstSlot)
        #expect(bytes(of: messages + 2) == third)

        // The owner lets go first: the block lives on while frames hold it, and goes with the last of them.
        launchad_frame_pool_close(pool)
        #expect(counter.count.load(ordering: .relaxed) == 0)
        zmq_msg_close(messages + 1)
        #expect(counter.count.load(ordering: .relaxed) == 0)
        zmq_msg_close(messages + 2)
        #expect(counter.count.load(ordering: .relaxed) == 1)
    }

    @Test("frames made and let go one at a time reuse the same slot, whose memory is still in the cache")
    func quietReuse() throws {
        let pool = try #require(launchad_frame_pool_create(32, 8))
        defer { launchad_frame_pool_close(pool) }
        let message = UnsafeMutablePointer<zmq_msg_t>.allocate(capacity: 1)
        defer { message.deallocate() }
        var addresses: Set<UnsafeMutableRawPointer> = []
        for index in 0..<20 {
            let body = Array("frame \(index)".utf8)
            try #require(launchad_frame_pool_copy(pool, message, body, body.count) == 0)
            #expect(bytes(of: message) == body)
            addresses.insert(zmq_msg_data(message))
            zmq_msg_close(message)
        }
        #expect(addresses.count == 1)
    }

    @Test("a pool is freed at once when its owner lets go with nothing lent, and after many turns of its slots")
    func freedByOwner() throws {
        let idle = try #require(launchad_frame_pool_create(64, 4))
        let idleCounter = FreeCounter()
        watch(idle, with: idleCounter)
        launchad_frame_pool_close(idle)
        #expect(idleCounter.count.load(ordering: .relaxed) == 1)

        // More frames than one reserve of references, each closed before the next: the count comes out even.
        let busy = try #require(launchad_frame_pool_create(8, 3))
        let busyCounter = FreeCounter()
        watch(busy, with: busyCounter)
        let message = UnsafeMutablePointer<zmq_msg_t>.allocate(capacity: 1)
        defer { message.deallocate() }
        let body: [UInt8] = [1, 2, 3]
        for _ in 0..<2_500 {
            try #require(launchad_frame_pool_copy(busy, message, body, body.count) == 0)
            zmq_msg_close(message)
        }
        #expect(busyCounter.count.load(ordering: .relaxed) == 0)
        launchad_frame_pool_close(busy)
        #expect(busyCounter.count.load(ordering: .relaxed) == 1)
    }

    @Test("a batch with a pool sends its frames from free slots, allocates the rest, and lends the slots again once written")
    func batchFromSlots() async throws {
        let (context, router, dealer, buffer) = try await ZeroMQTests.greetedRouter()
        defer { withExtendedLifetime(context) {} }
        let batch = OutgoingBatch(pooled: OutgoingBatch.Slots(size: 32, count: 4))
        // Each message after the first copies its routing id and its body: the four slots run out at the second.
        Self.appendReplies(4, to: batch, after: buffer)
        // Larger than a slot: allocated, and neither lent nor missed.
        let large = [UInt8](repeating: 0x6c, count: 33)
        Array("peer-1".utf8).withUnsafeBytes { batch.append(copying: $0, last: false) }
        large.withUnsafeBytes { batch.append(copying: $0) }
        #expect(batch.pooledFrames == 4)
        #expect(batch.slotMisses == 4)
        #expect(batch.flush(to: router).sent == 5)
        #expect(try dealer.receiveParts() == [[], Array("reply 0".utf8)])
        for index in 1..<4 {
            #expect(try dealer.receiveParts() == [Array("reply \(index)".utf8)])
        }
        #expect(try dealer.receiveParts() == [large])

        // Once libzmq has written them, the slots are lent again: a message's two frames both find a free slot.
        var sent = 0
        #expect(await eventually {
            let before = batch.pooledFrames
            Array("peer-1".utf8).withUnsafeBytes { batch.append(copying: $0, last: false) }
            Array("again".utf8).withUnsafeBytes { batch.append(copying: $0) }
            sent += batch.flush(to: router).sent
            return batch.pooledFrames - before == 2
        })
        for _ in 0..<sent {
            #expect(try dealer.receiveParts() == [Array("again".utf8)])
        }
    }

    @Test("frames lent to libzmq stay whole after their batch is gone, until the peer has read them")
    func outlivesBatch() async throws {
        let (context, router, dealer, buffer) = try await ZeroMQTests.greetedRouter()
        defer { withExtendedLifetime(context) {} }
        do {
            let batch = OutgoingBatch(pooled: OutgoingBatch.Slots(size: 64, count: 8))
            Self.appendReplies(8, to: batch, after: buffer)
            #expect(batch.flush(to: router).sent == 8)
        }
        // The batch is gone; whatever libzmq has not written yet still points into the pool's block (a block freed
        // with the batch would be read after its free here, which the address sanitizer's run reports).
        #expect(try dealer.receiveParts() == [[], Array("reply 0".utf8)])
        for index in 1..<8 {
            #expect(try dealer.receiveParts() == [Array("reply \(index)".utf8)])
        }
    }

    /// Appends `count` replies to the greeted peer, "reply 0" to "reply N": the first through the envelope received in
    /// `buffer` (moved), the others addressed by a copy of the peer's routing id.
    static func appendReplies(_ count: Int, to batch: OutgoingBatch, after buffer: MultipartBuffer) {
        batch.append(moving: 0, of: buffer)
        batch.append(moving: 1, of: buffer)
        Array("reply 0".utf8).withUnsafeBytes { batch.append(copying: $0) }
        for index in 1..<count {
            Array("peer-1".utf8).withUnsafeBytes { batch.append(copying: $0, last: false) }
            Array("reply \(index)".utf8).withUnsafeBytes { batch.append(copying: $0) }
        }
    }
}
