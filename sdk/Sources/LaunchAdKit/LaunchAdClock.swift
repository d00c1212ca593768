import Foundation

/// The device's time, as the SDK sees it: what decides whether a cached ad is still valid and how far a countdown
/// has run. Injected, so tests drive a session second by second and `adsim --speed` runs it faster.
public protocol LaunchAdClock: Sendable {
    /// The device's wall-clock time now.
    func now() -> Date
    /// Waits `seconds` of this clock's time.
    func sleep(seconds: Double) async throws
}

/// The system's clock.
public struct SystemClock: LaunchAdClock {
    public init() {}
    public func now() -> Date { Date() }
    public func sleep(seconds: Double) async throws {
        try await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1_000_000_000))
    }
}

/// The system's clock run `speed` times faster from the moment it is made (10: ten seconds pass each second).
public struct ScaledClock: LaunchAdClock {
    public let speed: Double
    private let origin: Date

    public init(speed: Double, origin: Date = Date()) {
        precondition(speed > 0, "a clock's speed is positive")
        self.speed = speed
        self.origin = origin
    }

    public func now() -> Date { origin.addingTimeInterval(Date().timeIntervalSince(origin) * speed) }

    public func sleep(seconds: Double) async throws {
        try await Task.sleep(nanoseconds: UInt64(max(0, seconds / speed) * 1_000_000_000))
    }
}

/// A clock that moves only when told (tests): `sleep` advances it instead of waiting.
public final class ManualClock: LaunchAdClock, @unchecked Sendable {
    // @unchecked: `current` is guarded by `lock`.
    private let lock = NSLock()
    private var current: Date

    public init(_ start: Date = Date()) { current = start }

    public func now() -> Date { lock.holding { current } }

    /// Moves the clock `seconds` on.
    public func advance(by seconds: Double) { lock.holding { current = current.addingTimeInterval(seconds) } }

    /// Sets the clock to `date`.
    public func set(_ date: Date) { lock.holding { current = date } }

    public func sleep(seconds: Double) async throws {
        try Task.checkCancellation()
        advance(by: seconds)
    }
}
