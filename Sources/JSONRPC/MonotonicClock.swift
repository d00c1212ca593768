#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The monotonic clock in nanoseconds, read without going through `ContinuousClock`'s `Duration` arithmetic: what
/// calls are timed with, and what the load generator paces and measures by.
public enum MonotonicClock {
    @inlinable @inline(__always)
    public static func nanoseconds() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) &* 1_000_000_000 &+ Int64(time.tv_nsec)
    }
}
