import Foundation
import LaunchAdKit

/// Timers on virtual time: the test moves a ``ManualClock``, and what falls due runs in order, each at its own time.
@MainActor
public final class VirtualScheduler: AdScheduler {
    private final class Pending {
        let due: Date
        let order: Int
        let action: @MainActor @Sendable () -> Void
        var cancelled = false
        init(due: Date, order: Int, action: @escaping @MainActor @Sendable () -> Void) {
            self.due = due
            self.order = order
            self.action = action
        }
    }

    public let clock: ManualClock
    private var pending: [Pending] = []
    private var made = 0

    public init(clock: ManualClock) { self.clock = clock }

    public func after(_ seconds: Double, _ action: @escaping @MainActor @Sendable () -> Void) -> AdWake {
        made += 1
        let entry = Pending(due: clock.now().addingTimeInterval(max(0, seconds)), order: made, action: action)
        pending.append(entry)
        // The presenter cancels from the main actor, which is where this scheduler lives.
        nonisolated(unsafe) let held = entry
        return AdWake { MainActor.assumeIsolated { held.cancelled = true } }
    }

    /// Wake-ups still to come.
    public var waiting: Int { pending.filter { !$0.cancelled }.count }

    /// Moves the clock `seconds` on, running each wake-up at its own time on the way.
    public func advance(by seconds: Double) {
        let target = clock.now().addingTimeInterval(seconds)
        while true {
            pending.removeAll { $0.cancelled }
            guard let next = pending.filter({ $0.due <= target }).min(by: { ($0.due, $0.order) < ($1.due, $1.order) }) else { break }
            pending.removeAll { $0 === next }
            if next.due > clock.now() { clock.set(next.due) }
            next.action()
        }
        clock.set(target)
    }
}
