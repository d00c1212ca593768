/// A callback that threads set and call: the closure is kept behind the lock inside a struct, never as `Locked`'s value
/// itself.
///
/// `withLock` hands its value to the body `inout`, through a generic parameter. When that value is a function type,
/// reading it there and writing it back wraps the closure in more reabstraction thunks, so a callback read
/// with `withLock { $0 }` grows a chain that every later call walks, and keeps every thunk's context: 32 more bytes of
/// stack each read in an optimized build (64 in a debug one), so a thread of 1 MiB runs out after about 32,000 reads,
/// nine hours of a heartbeat's each second. Inside a struct the closure keeps the struct's representation, and a read
/// leaves it as it was.
public final class LockedCallback: Sendable {
    private struct Stored: Sendable {
        let body: @Sendable () -> Void
    }

    private let stored = Locked<Stored?>(nil)

    /// No callback yet.
    public init() {}

    /// Sets the callback, or removes it (`nil`).
    public func set(_ body: (@Sendable () -> Void)?) {
        let new = body.map(Stored.init)
        stored.withLock { $0 = new }
    }

    /// Calls the callback, outside the lock; `false` when none is set.
    @discardableResult
    public func call() -> Bool {
        guard let current = stored.withLock({ $0 }) else { return false }
        current.body()
        return true
    }
}
