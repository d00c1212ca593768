@testable import CampaignFollowing
import Foundation
import JSONRPC
import LaunchAdDomain
import Locking
import Testing
import ZMQRPC

/// The sync session's queue: a message is handled on arrival only while the session's task waits with nothing queued,
/// so the order of the update stream holds whichever thread handles a message.
@Suite("the sync session's event queue", .timeLimit(.minutes(1)))
struct EventQueueTests {
    static let arrived = Timestamp(milliseconds: 1_000)

    static func message(_ seq: Int) -> PublishedMessage {
        PublishedMessage(topic: "campaign", method: "campaign.changed", params: ["seq": .number(JSONNumber(seq))])
    }

    /// The seqs of the queued messages, in order.
    static func queued(_ events: [SyncEngine.Event]) -> [Int] {
        events.compactMap { event in
            if case .message(let message, _) = event { message.params["seq"]?.intValue } else { nil }
        }
    }

    @Test("before the task first waits, messages queue; once it waits with nothing queued, they are handled on arrival")
    func handledOnArrivalOnlyWhenIdle() {
        let queue = EventQueue(messageLimit: 10, burstGap: .zero)
        let handled = Locked<[Int]>([])
        let fast: (PublishedMessage) -> Bool = { message in
            handled.withLock { $0.append(message.params["seq"]!.intValue!) }
            return true
        }
        queue.offer(Self.message(1), arrived: Self.arrived, fast: fast)
        #expect(handled.withLock { $0 }.isEmpty)
        #expect(Self.queued(queue.drain()) == [1])

        // Still handling the batch it took: the next one queues.
        queue.offer(Self.message(2), arrived: Self.arrived, fast: fast)
        #expect(handled.withLock { $0 }.isEmpty)
        queue.finishBatch()
        // Waiting, but message 2 is still queued: 3 goes behind it, not ahead.
        queue.offer(Self.message(3), arrived: Self.arrived, fast: fast)
        #expect(handled.withLock { $0 }.isEmpty)
        #expect(Self.queued(queue.drain()) == [2, 3])
        queue.finishBatch()

        let before = queue.lastHeard
        queue.offer(Self.message(4), arrived: Self.arrived, fast: fast)
        queue.offer(Self.message(5), arrived: Self.arrived, fast: fast)
        #expect(handled.withLock { $0 } == [4, 5])
        #expect(queue.drain().isEmpty)
        // Word from upstream: a message handled on arrival, or what the task says it heard.
        let handledAt = queue.lastHeard
        #expect(handledAt > before)
        usleep(1_000)
        queue.heard()
        #expect(queue.lastHeard > handledAt)
    }

    @Test("a message the fast path declines is queued, and those after it queue behind it until the task has taken it")
    func declinedKeepsOrder() {
        let queue = EventQueue(messageLimit: 10, burstGap: .zero)
        queue.finishBatch()
        let handled = Locked<[Int]>([])
        let fast: (PublishedMessage) -> Bool = { message in
            let seq = message.params["seq"]!.intValue!
            guard seq != 7 else { return false }
            handled.withLock { $0.append(seq) }
            return true
        }
        for seq in 6...9 { queue.offer(Self.message(seq), arrived: Self.arrived, fast: fast) }
        #expect(handled.withLock { $0 } == [6])
        #expect(Self.queued(queue.drain()) == [7, 8, 9])
        queue.finishBatch()
        queue.offer(Self.message(10), arrived: Self.arrived, fast: fast)
        #expect(handled.withLock { $0 } == [6, 10])
    }

    @Test("messages beyond the limit are dropped while queued (a gap the session notices); ticks never are")
    func limitDropsMessagesNotTicks() {
        let queue = EventQueue(messageLimit: 2, burstGap: .zero)
        for seq in 1...4 { queue.offer(Self.message(seq), arrived: Self.arrived) { _ in true } }
        queue.post(.tick)
        let events = queue.drain()
        #expect(Self.queued(events) == [1, 2])
        #expect(events.count == 3)
    }

    @Test("a message that follows one handled on arrival within the burst gap is queued, with what comes behind it")
    func burstGoesToTheTask() {
        // A gap no test run gets through between two calls: the second is always within it.
        let queue = EventQueue(messageLimit: 10, burstGap: .seconds(60))
        let handled = Locked<[Int]>([])
        let fast: (PublishedMessage) -> Bool = { message in
            handled.withLock { $0.append(message.params["seq"]!.intValue!) }
            return true
        }
        queue.finishBatch()
        // The queue was made just now: a first message is within the gap too.
        queue.offer(Self.message(1), arrived: Self.arrived, fast: fast)
        #expect(handled.withLock { $0 }.isEmpty)
        #expect(Self.queued(queue.drain()) == [1])

        let quick = EventQueue(messageLimit: 10, burstGap: .milliseconds(200))
        quick.finishBatch()
        // Spaced beyond the gap, each is handled on arrival; right behind one, the next is queued.
        Thread.sleep(forTimeInterval: 0.25)
        quick.offer(Self.message(2), arrived: Self.arrived, fast: fast)
        Thread.sleep(forTimeInterval: 0.25)
        quick.offer(Self.message(3), arrived: Self.arrived, fast: fast)
        quick.offer(Self.message(4), arrived: Self.arrived, fast: fast)
        quick.offer(Self.message(5), arrived: Self.arrived, fast: fast)
        #expect(handled.withLock { $0 } == [2, 3])
        #expect(Self.queued(quick.drain()) == [4, 5])
        quick.finishBatch()

        // With another message waiting behind it in the socket, a message is queued however long the gap.
        Thread.sleep(forTimeInterval: 0.25)
        quick.offer(Self.message(6), arrived: Self.arrived, backlog: true, fast: fast)
        quick.offer(Self.message(7), arrived: Self.arrived, fast: fast)
        #expect(handled.withLock { $0 } == [2, 3])
        #expect(Self.queued(quick.drain()) == [6, 7])
    }
}
