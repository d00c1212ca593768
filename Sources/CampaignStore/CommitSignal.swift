import Locking
import Synchronization

/// Wakes every listener of ``Store/commitWakeups()``: each holds a stream that keeps at most one pending wake-up,
/// so a burst of commits is one wake-up and a slow listener never queues work.
final class CommitSignal: Sendable {
    private let listeners = Locked<[Int: AsyncStream<Void>.Continuation]>([:])
    private let nextId = Atomic<Int>(0)

    func stream() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let id = nextId.wrappingAdd(1, ordering: .relaxed).oldValue
        listeners.withLock { $0[id] = continuation }
        continuation.onTermination = { [weak self] _ in
            _ = self?.listeners.withLock { $0.removeValue(forKey: id) }
        }
        return stream
    }

    func wake() {
        for continuation in listeners.withLock({ Array($0.values) }) { continuation.yield() }
    }

    func finish() {
        for continuation in listeners.withLock({ Array($0.values) }) { continuation.finish() }
    }
}
