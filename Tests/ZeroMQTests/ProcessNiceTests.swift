import Foundation
import LaunchAdTesting
import Locking
import Testing
@testable import ZeroMQ

/// Threads the process makes itself run at the process's nice, whichever thread makes them: libdispatch sets its
/// workers' nice from their quality of service, so a thread made from a task would otherwise take that instead of
/// what `nice` or systemd's `Nice=` gave the process.
@Suite("Threads at the process's nice", .timeLimit(.minutes(1)))
struct ProcessNiceTests {
    /// A nice value other than the process's that a thread can be put at and brought back from.
    private static var other: Int32 { ProcessNice.value < 19 ? ProcessNice.value + 3 : ProcessNice.value - 3 }

    /// Runs `body` on a new plain thread whose nice is ``other`` (as a thread of libdispatch's pool may be), and
    /// returns what it returned.
    private static func onThreadAtOtherNice<T: Sendable>(_ body: @escaping @Sendable () throws -> T) throws -> T {
        let result = Locked<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, other)
            let outcome = Result { try body() }
            result.withLock { $0 = outcome }
            done.signal()
        }
        done.wait()
        return try result.withLock { $0 }!.get()
    }

    /// Whether this process may bring a thread from ``other`` back to its own nice (lowering a thread's nice takes
    /// `CAP_SYS_NICE` or an `RLIMIT_NICE` that allows it): the tests run where it may (CI runs as root).
    static func mayRestoreNice() -> Bool {
        (try? onThreadAtOtherNice { () -> Bool in
            ProcessNice.applyToCurrentThread()
            return ProcessNice.currentThread == ProcessNice.value
        }) ?? false
    }

    @Test("a thread raised by some steps goes that far below the process's nice, -20 at most, where the process may lower a nice; elsewhere it keeps its own")
    func raise() async throws {
        for steps: Int32 in [4, 40] {
            let target = max(-20, ProcessNice.value - steps)
            let allowed = await ProcessThread.mayLowerNice(to: Int(target))
            let (raised, nice) = try Self.onThreadAtOtherNice { () -> (Bool, Int32) in
                (ProcessNice.raiseCurrentThread(by: steps), ProcessNice.currentThread)
            }
            #expect(raised == allowed)
            #expect(nice == (allowed ? target : Self.other), "raised by \(steps)")
            if !allowed { ProcessThread.noteFallbackOnly("a thread raised by \(steps) was checked to keep its nice \(Self.other), not to reach \(target)") }
        }
    }

    @Test("an OwnerThread started from a thread at another nice runs at the process's",
          .enabled(if: mayRestoreNice(), "this process may not lower a thread's nice back to its own"))
    func ownerThread() throws {
        let seen = try Self.onThreadAtOtherNice { () -> Int32 in
            #expect(ProcessNice.currentThread == Self.other)
            let nice = Locked<Int32?>(nil)
            let thread = OwnerThread(name: "nice-test") {
                let current = ProcessNice.currentThread
                nice.withLock { $0 = current }
            }
            thread.join()
            return nice.withLock { $0 }!
        }
        #expect(seen == ProcessNice.value)
    }

    @Test("a context made from a thread at another nice starts its I/O threads at the process's",
          .enabled(if: mayRestoreNice(), "this process may not lower a thread's nice back to its own"))
    func contextThreads() throws {
        let before = Set(Self.zeroMQThreads().map(\.tid))
        // The context and its first socket made there: libzmq starts the I/O threads with the first socket at the latest.
        let context = try Self.onThreadAtOtherNice { () -> ZMQContext in
            let context = try ZMQContext()
            _ = try Socket(context, type: .pair)
            return context
        }
        // The I/O thread and the reaper, whatever other tests' contexts started meanwhile (at the process's nice too).
        // Each names itself once running (its nice it has from the start): wait until both have.
        var started = Self.zeroMQThreads().filter { !before.contains($0.tid) }
        let deadline = ContinuousClock.now + .seconds(5)
        while started.count < 2 && ContinuousClock.now < deadline {
            usleep(1_000)
            started = Self.zeroMQThreads().filter { !before.contains($0.tid) }
        }
        #expect(started.count >= 2)
        for thread in started { #expect(thread.nice == Int(ProcessNice.value), "\(thread.name) runs at nice \(thread.nice)") }
        withExtendedLifetime(context) {}
    }

    /// This process's libzmq threads (named `ZMQbg/…`), from /proc.
    private static func zeroMQThreads() -> [ProcessThread] {
        ProcessThread.list().filter { $0.name.hasPrefix("ZMQbg/") }
    }
}
