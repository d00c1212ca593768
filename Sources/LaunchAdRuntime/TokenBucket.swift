/// A token bucket on a monotonic clock in seconds: it holds at most `capacity` tokens and gains `rate` a second. What
/// deliveryd's rate limit per client address and the console's sign-in throttle both count with.
public struct TokenBucket: Sendable {
    public private(set) var tokens: Double
    /// When ``tokens`` was last brought up to date.
    public private(set) var updated: Double

    /// A full bucket at `time`.
    public init(capacity: Double, at time: Double) {
        tokens = capacity
        updated = time
    }

    /// The bucket at `time`: what it gained since it was last brought up to date, up to `capacity` (a clock that
    /// reads earlier gains nothing).
    public func refilled(capacity: Double, rate: Double, at time: Double) -> TokenBucket {
        var bucket = self
        bucket.tokens = min(capacity, tokens + max(0, time - updated) * rate)
        bucket.updated = time
        return bucket
    }

    /// Takes a token when the bucket holds one; whether it did.
    public mutating func take() -> Bool {
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }

    /// Gives a token back, up to `capacity`.
    public mutating func giveBack(capacity: Double) {
        tokens = min(capacity, tokens + 1)
    }

    /// Whole seconds until the bucket holds a token, at least 1: what a `Retry-After` says.
    public func secondsUntilToken(rate: Double) -> Int {
        max(1, Int(((1 - tokens) / rate).rounded(.up)))
    }
}
