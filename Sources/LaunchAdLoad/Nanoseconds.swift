import JSONRPC

/// The monotonic clock in nanoseconds, unsigned as the load generator's arithmetic takes it.
@inline(__always)
func monotonicNanoseconds() -> UInt64 {
    UInt64(bitPattern: MonotonicClock.nanoseconds())
}
