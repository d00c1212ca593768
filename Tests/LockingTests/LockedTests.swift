import Locking
import Testing

/// `Locked` is `Mutex` in most builds and a pthread mutex in the ThreadSanitizer build: both must exclude each
/// other's holders, hand back what the body returns and pass its error through. Under `sanitize.sh thread` these
/// tests also show ThreadSanitizer sees the lock: a lock it could not see would be reported as a race here.
@Suite("Locked", .timeLimit(.minutes(1)))
struct LockedTests {
    final class Counter: Sendable {
        let state = Locked<(count: Int, log: [Int])>((0, []))
    }

    @Test("threads that change the value under the lock lose no change")
    func excludes() async {
        let counter = Counter()
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for _ in 0..<2_000 {
                        counter.state.withLock { state in
                            let before = state.count
                            state.log.append(task)
                            state.count = before + 1
                        }
                    }
                }
            }
        }
        let (count, logged) = counter.state.withLock { ($0.count, $0.log.count) }
        #expect(count == 16_000)
        #expect(logged == 16_000)
    }

    struct Refused: Error, Equatable {}

    @Test("withLock returns what the body returns, passes its error through, and keeps the change made before it")
    func returnsAndThrows() {
        let value = Locked([1, 2])
        #expect(value.withLock { $0.count } == 2)
        #expect(throws: Refused.self) {
            try value.withLock { (numbers: inout [Int]) throws(Refused) in
                numbers.append(3)
                throw Refused()
            }
        }
        #expect(value.withLock { $0 } == [1, 2, 3])
    }

    @Test("the lock is free again after a body that threw")
    func releasesAfterThrow() {
        let value = Locked(0)
        for _ in 0..<3 {
            _ = try? value.withLock { (number: inout Int) throws(Refused) in
                number += 1
                throw Refused()
            }
        }
        #expect(value.withLock { $0 } == 3)
    }
}
