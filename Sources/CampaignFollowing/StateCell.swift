import Atomics
import Locking

/// The current state, swapped whole. Reads are a single atomic load, with no lock; writers (the sync engine and
/// creative downloads) take turns, so neither undoes the other's change.
public final class StateCell: Sendable {
    private let current = ManagedAtomic<EdgeState>(.empty)
    private let writer = Locked<Void>(())

    public init() {}

    public var state: EdgeState { current.load(ordering: .acquiring) }

    /// Replaces the state with `transform(current)`; returns the new state.
    @discardableResult
    public func update(_ transform: (EdgeState) -> EdgeState) -> EdgeState {
        writer.withLock { _ in
            let next = transform(current.load(ordering: .acquiring))
            current.store(next, ordering: .releasing)
            return next
        }
    }
}
