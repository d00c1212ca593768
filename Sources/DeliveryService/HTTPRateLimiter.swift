import Foundation
import LaunchAdRuntime
import Locking

/// Caps the requests a second of each client address: a token bucket per address, `rate` tokens a second and as
/// many at most. Addresses whose bucket has refilled are forgotten once there are many, so the table stays bounded
/// by the addresses active within the last second or so.
final class HTTPRateLimiter: Sendable {
    let rate: Int
    private let buckets = Locked<[String: TokenBucket]>([:])
    private let tableLimit: Int

    init(rate: Int, tableLimit: Int = 100_000) {
        precondition(rate > 0)
        self.rate = rate
        self.tableLimit = tableLimit
    }

    /// Takes a token for `address`: `nil` when the request may go on, otherwise the seconds to wait (at least 1).
    func take(_ address: String, now: UInt64 = DispatchTime.now().uptimeNanoseconds) -> Int? {
        let rate = Double(self.rate), time = Double(now) / 1e9
        return buckets.withLock { table in
            var bucket = (table[address] ?? TokenBucket(capacity: rate, at: time)).refilled(capacity: rate, rate: rate, at: time)
            defer {
                table[address] = bucket
                if table.count > tableLimit {
                    // Buckets full again hold nothing worth keeping.
                    table = table.filter { $0.value.refilled(capacity: rate, rate: rate, at: time).tokens < rate }
                }
            }
            return bucket.take() ? nil : bucket.secondsUntilToken(rate: rate)
        }
    }
}
