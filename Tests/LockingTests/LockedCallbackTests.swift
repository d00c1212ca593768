import Locking
import Testing

/// A callback read under the lock once a heartbeat must cost the same on the millionth read as on the first: a closure
/// kept as `Locked`'s value itself came back wrapped in more thunks from every `withLock { $0 }`, and each call walked
/// them all (64 bytes of stack more a read in a debug build).
@Suite("LockedCallback", .timeLimit(.minutes(1)))
struct LockedCallbackTests {
    /// Where the callback's frame is on the stack, as an address.
    final class Depth: Sendable {
        let deepest = Locked<(first: UInt?, last: UInt?)>((nil, nil))

        @inline(never)
        func record() {
            var marker = 0
            let here = withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) }
            deepest.withLock { $0 = ($0.first ?? here, here) }
        }
    }

    @Test("a callback called 20,000 times runs at the stack depth of its first call")
    func noGrowth() throws {
        let depth = Depth()
        let callback = LockedCallback()
        callback.set { depth.record() }
        for _ in 0..<20_000 { #expect(callback.call()) }
        let (first, last) = depth.deepest.withLock { $0 }
        let firstAddress = try #require(first), lastAddress = try #require(last)
        // The same call site each time: the same frames under the callback. 20,000 reads that each added a thunk
        // would have taken over a megabyte.
        #expect(firstAddress == lastAddress, "the callback's frame moved by \(Int(firstAddress) - Int(lastAddress)) bytes")
    }

    @Test("no callback until set; removed, none again; the newest set is the one called")
    func setAndRemove() {
        let calls = Locked<[String]>([])
        let callback = LockedCallback()
        #expect(!callback.call())
        callback.set { calls.withLock { $0.append("first") } }
        #expect(callback.call())
        callback.set { calls.withLock { $0.append("second") } }
        #expect(callback.call())
        callback.set(nil)
        #expect(!callback.call())
        #expect(calls.withLock { $0 } == ["first", "second"])
    }

    @Test("the callback runs outside the lock: it may set another callback, or call itself once more")
    func reentrant() {
        let callback = LockedCallback()
        let calls = Locked(0)
        callback.set {
            let count = calls.withLock { $0 += 1; return $0 }
            if count == 1 { _ = callback.call() }
        }
        #expect(callback.call())
        #expect(calls.withLock { $0 } == 2)
        callback.set { callback.set(nil) }
        #expect(callback.call())
        #expect(!callback.call())
    }
}
