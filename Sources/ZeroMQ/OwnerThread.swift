import CZeroMQ
import Dispatch
import Foundation
import Locking

/// A dedicated thread that owns ZeroMQ sockets for its whole life.
///
/// Sockets are made inside `body`, used only there, and closed before it returns; other threads talk to the
/// thread through a ``Mailbox`` or a ``Waker``. ``join()`` waits for `body` to return. The thread runs at the
/// process's nice (``ProcessNice``), whichever thread starts it.
public final class OwnerThread: Sendable {
    private let done = DispatchGroup()

    /// Starts `body` on a new thread named `name`.
    public init(name: String, _ body: @escaping @Sendable () -> Void) {
        done.enter()
        let group = done
        let thread = Thread {
            // The name shows in `top -H` and in /proc (Linux takes at most 15 bytes).
            _ = pthread_setname_np(pthread_self(), String(decoding: name.utf8.prefix(15), as: UTF8.self))
            ProcessNice.applyToCurrentThread()
            body()
            group.leave()
        }
        thread.name = name
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// Blocks until the thread's body has returned.
    public func join() {
        done.wait()
    }

    /// Waits, without blocking a task's thread, until the body has returned or `timeout` has passed; whether it returned.
    public func joined(within timeout: Duration) async -> Bool {
        let (seconds, attoseconds) = timeout.components
        let deadline = DispatchTime.now() + .nanoseconds(Int(clamping: seconds * 1_000_000_000 + attoseconds / 1_000_000_000))
        let group = done
        return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            DispatchQueue.global().async { continuation.resume(returning: group.wait(timeout: deadline) == .success) }
        }
    }

    /// Waits, without blocking a task's thread, until the body has returned.
    public func joined() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            done.notify(queue: .global()) { continuation.resume() }
        }
    }
}

/// A one-shot value handed from a thread to whoever waits for it (used to report a bind result at start-up).
public final class Handoff<Value: Sendable>: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private let value = Locked<Value?>(nil)

    public init() {}

    /// Stores the value and releases the waiter. Only the first call counts.
    public func put(_ newValue: Value) {
        let first = value.withLock { current in
            if current != nil { return false }
            current = newValue
            return true
        }
        if first { semaphore.signal() }
    }

    /// Blocks until a value is put.
    public func take() -> Value {
        semaphore.wait()
        semaphore.signal()
        return value.withLock { $0! }
    }
}
