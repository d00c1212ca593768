#if LAUNCHAD_TSAN
import Glibc
#else
import Synchronization
#endif

#if LAUNCHAD_TSAN
/// A value that threads share, reached only while its lock is held: the project's one lock for shared mutable
/// state (`deploy/local/check-package-graph.py` keeps `Mutex` out of every other file). A closure is kept in a
/// ``LockedCallback``, never as the value itself (the same script refuses a function type here).
///
/// This is the build for ThreadSanitizer (`deploy/local/sanitize.sh thread` compiles with `-D LAUNCHAD_TSAN`):
/// Swift's `Synchronization.Mutex` on Linux locks with futexes inside the toolchain's uninstrumented library, so
/// ThreadSanitizer never sees it taken and reports every pair of accesses it guards as a race. A pthread mutex,
/// whose calls ThreadSanitizer intercepts, makes the lock visible: it orders what the lock orders, and reports
/// what it does not. Every other build uses `Mutex` itself (below); the two have the same shape, so code written
/// against one compiles against the other.
public struct Locked<Value: ~Copyable>: ~Copyable {
    @usableFromInline let storage: LockedStorage<Value>

    /// A lock around `initialValue`.
    public init(_ initialValue: consuming sending Value) {
        storage = LockedStorage(initialValue)
    }

    /// Runs `body` with the value, the lock held; as `Mutex.withLock`.
    @inlinable
    public borrowing func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        storage.lock()
        defer { storage.unlock() }
        return try body(&storage.value.pointee)
    }
}

extension Locked: @unchecked Sendable where Value: ~Copyable {}

/// The pthread mutex and the value of a `Locked`, at addresses that do not move while threads wait on them. Both
/// are reached through pointers held in constants: a `var` of a class would add Swift's own exclusivity tracking,
/// which ThreadSanitizer checks apart from the lock.
@usableFromInline
final class LockedStorage<Value: ~Copyable> {
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    @usableFromInline let value: UnsafeMutablePointer<Value>

    init(_ initialValue: consuming Value) {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(mutex, nil)
        precondition(status == 0, "pthread_mutex_init failed: \(status)")
        value = .allocate(capacity: 1)
        value.initialize(to: initialValue)
    }

    @inlinable func lock() {
        let status = pthread_mutex_lock(mutex)
        precondition(status == 0, "pthread_mutex_lock failed: \(status)")
    }

    @inlinable func unlock() {
        let status = pthread_mutex_unlock(mutex)
        precondition(status == 0, "pthread_mutex_unlock failed: \(status)")
    }

    deinit {
        value.deinitialize(count: 1)
        value.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }
}
#else
/// A value that threads share, reached only while its lock is held: the project's one lock for shared mutable
/// state (`deploy/local/check-package-graph.py` keeps `Mutex` out of every other file). A closure is kept in a
/// ``LockedCallback``, never as the value itself (the same script refuses a function type here).
///
/// In every build but the ThreadSanitizer one this is Swift's `Synchronization.Mutex` itself, not a wrapper: the
/// same code, inlined the same way. The ThreadSanitizer build (`-D LAUNCHAD_TSAN`) puts a pthread mutex behind the
/// same `init` and `withLock`, because ThreadSanitizer cannot see `Mutex` on Linux (it locks with futexes in the
/// toolchain's uninstrumented library).
public typealias Locked<Value: ~Copyable> = Mutex<Value>
#endif
