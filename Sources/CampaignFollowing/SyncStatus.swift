import LaunchAdDomain
import Synchronization
import Locking

/// What the sync engine knows of its contact with campaignd, for `/healthz`, metrics and `edge.status`.
public final class SyncStatus: Sendable {
    private let state = Locked<(lastHeard: ContinuousClock.Instant?, skews: [Double], resyncs: Int, lastHeartbeatSeq: Int64, gaps: Int)>((nil, [], 0, 0, 0))
    /// Heartbeats whose clock readings are kept for the estimate of campaignd's clock.
    static let skewSamples = 8
    /// Added to the estimate of campaignd's clock when judging expiry, for the heartbeat's time in transit.
    public static let transitAllowance = 0.1

    /// Heard from campaignd within the last three heartbeats.
    public var connected: Bool {
        state.withLock { $0.lastHeard.map { ContinuousClock.now - $0 < .seconds(3) } ?? false }
    }

    /// campaignd's clock minus ours, in seconds, from the recent heartbeats. Each reading falls short by the
    /// heartbeat's time in transit, so the largest of the last few (the one that travelled fastest) is the best.
    public var skew: Double { Double(bitPattern: skewBits.load(ordering: .relaxed)) }
    /// The largest of `skews`, kept apart from the lock: every launch query reads it.
    private let skewBits = Atomic<UInt64>(0.0.bitPattern)
    public var resyncs: Int { state.withLock { $0.resyncs } }
    /// Times the edge found itself behind (a gap in the stream, or a heartbeat ahead) and caught up.
    public var gaps: Int { state.withLock { $0.gaps } }

    func gapNoticed() { state.withLock { $0.gaps += 1 } }
    public var lastHeartbeatSeq: Int64 { state.withLock { $0.lastHeartbeatSeq } }

    func heard(skew: Double? = nil, heartbeatSeq: Int64? = nil) {
        state.withLock { state in
            state.lastHeard = .now
            if let skew {
                state.skews.append(skew)
                if state.skews.count > Self.skewSamples { state.skews.removeFirst() }
                skewBits.store((state.skews.max() ?? 0).bitPattern, ordering: .relaxed)
            }
            if let heartbeatSeq { state.lastHeartbeatSeq = heartbeatSeq }
        }
    }

    func resynced() { state.withLock { $0.resyncs += 1 } }

    /// The epoch and seq the state last reached, and when by the edge's clock (`nil` before it reached any here).
    private let reachedAt = Locked<(epoch: String, seq: Int64, at: Timestamp)?>(nil)

    /// The state now holds `epoch` and `seq`, since `at`.
    func reached(epoch: String, seq: Int64, at: Timestamp) {
        reachedAt.withLock { $0 = (epoch, seq, at) }
    }

    /// When the state reached `epoch` and `seq`; `nil` when it has not since the process started (a state loaded from
    /// disk), or holds another.
    public func appliedAt(epoch: String, seq: Int64) -> Timestamp? {
        reachedAt.withLock { reached in
            guard let reached, reached.epoch == epoch, reached.seq == seq else { return nil }
            return reached.at
        }
    }

    /// The edge's estimate of campaignd's clock now, for expiry: erring early by ``transitAllowance``, because a
    /// campaign expired a moment early is harmless and one served a moment late is not.
    public func serviceNow(_ now: Timestamp) -> Timestamp { now.adding(seconds: skew + Self.transitAllowance) }
}
