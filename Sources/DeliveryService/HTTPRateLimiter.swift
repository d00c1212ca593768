import Foundation
import LaunchAdRuntime
import Locking

/// Caps the requests a second of each client: a token bucket per client, `rate` tokens a second and as many at most.
/// A client is an IPv4 address, or an IPv6 address's /64 (see ``client(of:)``). Clients whose bucket has refilled are
/// forgotten once there are many, so the table stays bounded by the clients active within the last second or so.
final class HTTPRateLimiter: Sendable {
    let rate: Int
    private let buckets = Locked<[String: TokenBucket]>([:])
    private let tableLimit: Int

    init(rate: Int, tableLimit: Int = 100_000) {
        precondition(rate > 0)
        self.rate = rate
        self.tableLimit = tableLimit
    }

    /// The client an address counts for: an IPv6 address's first 64 bits (a host holds a whole /64, and would otherwise
    /// take a bucket, and a place in the table, for each of its 2^64 addresses), an IPv4 address as it is, also when
    /// written as IPv6 (`::ffff:a.b.c.d`); anything else as it is.
    static func client(of address: String) -> String {
        guard address.contains(":") else { return address }
        var bytes = in6_addr()
        guard inet_pton(AF_INET6, address, &bytes) == 1 else { return address }
        return withUnsafeBytes(of: &bytes) { raw in
            if raw.prefix(10).allSatisfy({ $0 == 0 }) && raw[10] == 0xff && raw[11] == 0xff {
                return raw.suffix(4).map(String.init).joined(separator: ".")
            }
            let words = stride(from: 0, to: 8, by: 2).map { String(UInt16(raw[$0]) << 8 | UInt16(raw[$0 + 1]), radix: 16) }
            return words.joined(separator: ":") + "::/64"
        }
    }

    /// Takes a token for `address`'s client: `nil` when the request may go on, otherwise the seconds to wait (at least 1).
    func take(_ address: String, now: UInt64 = DispatchTime.now().uptimeNanoseconds) -> Int? {
        let rate = Double(self.rate), time = Double(now) / 1e9
        let address = Self.client(of: address)
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
