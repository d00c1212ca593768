import Foundation
import Locking

/// Caps the requests a second of each client address: a token bucket per address, `rate` tokens a second and as
/// many at most. Addresses whose bucket has refilled are forgotten once there are many, so the table stays bounded
/// by the addresses active within the last second or so.
final class HTTPRateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: UInt64
    }

    let rate: Int
    private let buckets = Locked<[String: Bucket]>([:])
    private let tableLimit: Int

    init(rate: Int, tableLimit: Int = 100_000) {
        precondition(rate > 0)
        self.rate = rate
        self.tableLimit = tableLimit
    }

    /// Takes a token for `address`: `nil` when the request may go on, otherwise the seconds to wait (at least 1).
    func take(_ address: String, now: UInt64 = DispatchTime.now().uptimeNanoseconds) -> Int? {
        let rate = Double(self.rate)
        return buckets.withLock { table in
            var bucket = table[address] ?? Bucket(tokens: rate, updated: now)
            let elapsed = Double(now &- bucket.updated) / 1e9
            bucket.tokens = min(rate, bucket.tokens + elapsed * rate)
            bucket.updated = now
            defer {
                table[address] = bucket
                if table.count > tableLimit {
                    // Buckets full again hold nothing worth keeping.
                    table = table.filter { $0.value.tokens + Double(now &- $0.value.updated) / 1e9 * rate < rate }
                }
            }
            guard bucket.tokens >= 1 else { return max(1, Int(((1 - bucket.tokens) / rate).rounded(.up))) }
            bucket.tokens -= 1
            return nil
        }
    }
}
