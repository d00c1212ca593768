import Locking

/// A session's events, taken in batches: whatever arrived while the last batch was handled comes out at once.
/// Messages beyond the limit are dropped (the edge notices the gap and catches up); ticks and saves never are.
final class EventQueue: Sendable {
    private let items = Locked<(events: [SyncEngine.Event], messages: Int)>(([], 0))
    private let messageLimit: Int
    let signals: AsyncStream<Void>
    private let signal: AsyncStream<Void>.Continuation

    init(messageLimit: Int) {
        self.messageLimit = messageLimit
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

    func drain() -> [SyncEngine.Event] {
        items.withLock { items in
            defer { items = ([], 0) }
            return items.events
        }
    }

    func finish() { signal.finish() }
}
