import LaunchAdDomain
import Locking
import ZMQRPC

/// A session's events, taken in batches: whatever arrived while the last batch was handled comes out at once.
/// Messages beyond the limit are dropped (the edge notices the gap and catches up); ticks never are.
///
/// While the session's task waits with nothing queued, a message may instead be handled at once on the thread that
/// read it (``offer(_:arrived:fast:)``): the usual change, next in `seq`, then costs no hand-off to a task. The
/// order holds: a message is handled there only when nothing is queued and the task is not handling a batch, and
/// the task takes a batch only under the same lock. A burst goes to the task, which applies what queued as one new
/// state (each change applied alone would copy and index the state once each): a message with another already
/// waiting behind it in the socket, or one that comes within ``burstGap`` of the last handled on arrival, is queued.
final class EventQueue: Sendable {
    private struct Items {
        var events: [SyncEngine.Event] = []
        var messages = 0
        /// The session's task is handling a batch (or has not begun to wait): messages wait their turn in the queue.
        var handling = true
        /// When a message was last handled on arrival (the end of its handling).
        var handledAtOnce = ContinuousClock.now
        /// When the session's task last said it heard from upstream (``heard()``).
        var heardByTask = ContinuousClock.now
    }
    private let items = Locked(Items())
    private let messageLimit: Int
    private let burstGap: Duration
    let signals: AsyncStream<Void>
    private let signal: AsyncStream<Void>.Continuation

    init(messageLimit: Int, burstGap: Duration = .milliseconds(1)) {
        self.messageLimit = messageLimit
        self.burstGap = burstGap
        (signals, signal) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    func post(_ event: SyncEngine.Event) {
        let taken = items.withLock { items -> Bool in
            if case .message = event {
                guard items.messages < messageLimit else { return false }
                items.messages += 1
            }
            items.events.append(event)
            return true
        }
        if taken { signal.yield() }
    }

    /// Hands `message` to `fast` when the task is waiting with nothing queued (under the queue's lock, so the task
    /// takes no batch meanwhile); queues it when the task is busy, in a burst (`backlog`: another message waits behind
    /// it), or when `fast` declines it.
    func offer(_ message: PublishedMessage, arrived: Timestamp, backlog: Bool = false, fast: (PublishedMessage) -> Bool) {
        let handled = items.withLock { items in
            guard !backlog, !items.handling, items.events.isEmpty, ContinuousClock.now - items.handledAtOnce >= burstGap,
                  fast(message) else { return false }
            items.handledAtOnce = .now
            return true
        }
        if !handled { post(.message(message, arrived: arrived)) }
    }

    /// Takes what is queued; messages queue from now on until ``finishBatch()``.
    func drain() -> [SyncEngine.Event] {
        items.withLock { items in
            defer {
                items.events = []
                items.messages = 0
                items.handling = true
            }
            return items.events
        }
    }

    /// The task has handled its batch and waits again: a message may be handled on arrival once nothing is queued.
    func finishBatch() {
        items.withLock { $0.handling = false }
    }

    /// The session's task heard from upstream (it handled a message, or caught up).
    func heard() {
        items.withLock { $0.heardByTask = .now }
    }

    /// When word from upstream last came: a message handled on arrival, or what the task said with ``heard()``.
    var lastHeard: ContinuousClock.Instant { items.withLock { max($0.handledAtOnce, $0.heardByTask) } }

    func finish() { signal.finish() }
}
