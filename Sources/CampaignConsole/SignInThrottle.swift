import Foundation
import LaunchAdRuntime
import Locking

/// How many wrong tokens the console lets through before it makes callers wait: per client address, and from all
/// addresses together (a guesser with many addresses), each as so many per `window`.
public struct SignInLimits: Sendable, Equatable {
    /// Failed sign-ins (the form, or a request with a wrong `Authorization: Bearer` token) one client address may make
    /// per window.
    public var perAddress: Int
    /// Failed sign-ins from all addresses together per window.
    public var overall: Int
    /// The window, in seconds: an address that used its whole allowance gets one more attempt every
    /// `window / perAddress` seconds.
    public var window: Double

    public init(perAddress: Int = 10, overall: Int = 100, window: Double = 60) {
        self.perAddress = perAddress
        self.overall = overall
        self.window = window
    }
}

/// Throttles sign-ins: a token bucket per client address and one for everyone, each refilled at its limit per window.
/// Every attempt takes a token from both before its token is checked (so that concurrent guesses cannot all slip in
/// before the first is counted), and a right token gives them back: only failures use up an allowance, and scripts
/// that send a good bearer token on every request never run out.
///
/// Memory stays bounded: past a size, only addresses whose bucket is below full are kept, which takes a failure within
/// the last window, and failures are bounded by the overall bucket.
final class SignInThrottle: Sendable {
    /// What an attempt may do.
    enum Verdict: Equatable {
        case allowed
        /// Refused for `seconds` (at least 1): `address` when this address used its allowance, else everyone's.
        /// `first` on the first refusal since the bucket ran dry, the one worth a log line.
        case throttled(seconds: Int, address: Bool, first: Bool)
    }

    private struct Bucket {
        var allowance: TokenBucket
        /// Whether a refusal was logged since the bucket last had a token.
        var told = false
    }

    private struct State {
        var overall: Bucket
        var addresses: [String: Bucket] = [:]
        /// The table's size at which full buckets are next dropped: twice what the last drop left (at least
        /// `tableLimit`), so that dropping costs a constant time an attempt however the table grows.
        var nextPrune: Int
    }

    let limits: SignInLimits
    private let state: Locked<State>
    private let now: @Sendable () -> Double
    private let tableLimit: Int

    /// `now` is a monotonic time in seconds; past `tableLimit` addresses, those whose bucket is full again are dropped.
    init(limits: SignInLimits, tableLimit: Int = 10_000,
         now: @escaping @Sendable () -> Double = { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }) {
        precondition(limits.perAddress > 0 && limits.overall > 0 && limits.window > 0)
        self.limits = limits
        self.now = now
        self.tableLimit = tableLimit
        state = Locked(State(overall: Bucket(allowance: TokenBucket(capacity: Double(limits.overall), at: now())), nextPrune: tableLimit))
    }

    /// How many addresses the table holds.
    var addressCount: Int { state.withLock { $0.addresses.count } }

    /// Takes an attempt for `address`.
    func attempt(_ address: String) -> Verdict {
        let time = now()
        return state.withLock { state in
            let perAddress = Double(limits.perAddress), overall = Double(limits.overall)
            let window = limits.window
            var bucket = state.addresses[address] ?? Bucket(allowance: TokenBucket(capacity: perAddress, at: time))
            bucket.allowance = bucket.allowance.refilled(capacity: perAddress, rate: perAddress / window, at: time)
            state.overall.allowance = state.overall.allowance.refilled(capacity: overall, rate: overall / window, at: time)
            if bucket.allowance.tokens < 1 {
                let first = !bucket.told
                bucket.told = true
                state.addresses[address] = bucket
                return .throttled(seconds: bucket.allowance.secondsUntilToken(rate: perAddress / window), address: true, first: first)
            }
            if state.overall.allowance.tokens < 1 {
                let first = !state.overall.told
                state.overall.told = true
                return .throttled(seconds: state.overall.allowance.secondsUntilToken(rate: overall / window), address: false, first: first)
            }
            _ = bucket.allowance.take()
            bucket.told = false
            _ = state.overall.allowance.take()
            state.overall.told = false
            state.addresses[address] = bucket
            if state.addresses.count > state.nextPrune {
                // Full buckets say nothing an absent one does not.
                state.addresses = state.addresses.filter {
                    $0.value.allowance.refilled(capacity: perAddress, rate: perAddress / window, at: time).tokens < perAddress
                }
                state.nextPrune = max(tableLimit, 2 * state.addresses.count)
            }
            return .allowed
        }
    }

    /// Gives back the tokens of an attempt whose token was right.
    func succeeded(_ address: String) {
        state.withLock { state in
            if var bucket = state.addresses[address] {
                bucket.allowance.giveBack(capacity: Double(limits.perAddress))
                if bucket.allowance.tokens >= Double(limits.perAddress) { state.addresses[address] = nil } else { state.addresses[address] = bucket }
            }
            state.overall.allowance.giveBack(capacity: Double(limits.overall))
        }
    }
}

/// The key a client's attempts are counted under: its IPv4 address, or the /64 network of its IPv6 address (one
/// host usually holds a whole /64, and would otherwise count as billions of clients).
enum ClientAddress {
    static func key(_ address: String?) -> String {
        guard let address, !address.isEmpty else { return "unknown" }
        guard address.contains(":") else { return address }
        var bytes = [UInt8](repeating: 0, count: 16)
        guard inet_pton(AF_INET6, address, &bytes) == 1 else { return address }
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
            return bytes[12...].map(String.init).joined(separator: ".")  // an IPv4 address, mapped
        }
        return stride(from: 0, to: 8, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }.joined(separator: ":") + "::/64"
    }
}
