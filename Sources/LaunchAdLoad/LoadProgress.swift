import Synchronization

/// Live counters that the progress line reads while workers run.
public final class LoadProgress: Sendable {
    public let completed = Atomic<Int>(0)
    public let errors = Atomic<Int>(0)
    public init() {}
}
