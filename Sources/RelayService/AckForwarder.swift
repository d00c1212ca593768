import LaunchAdAPI
import LaunchAdDomain
import Locking
import Logging
import ServiceLifecycle
import Synchronization
import ZMQRPC

/// Passes the acknowledgements of the edges (and relays) below a relay upstream, batched: the newest of each edge is
/// kept, and whatever arrived within ``linger`` of the first, or while one `edge.acks` call was on its way, goes in the
/// next, each with the relay's id in front of its `via`, every other field (and the edge's seal) as the edge sent it. A
/// call that fails leaves its acknowledgements for the next round, unless newer ones came.
final class AckForwarder: Service {
    let relayId: String
    let upstream: RPCClient
    let logger: Logger
    private let pending = Locked<[String: EdgeAck]>([:])
    /// Every edge heard from below, with the time it was last heard (for the relay's metrics and `/healthz`).
    private let heard = Locked<[String: ContinuousClock.Instant]>([:])
    private let signals: AsyncStream<Void>
    private let signal: AsyncStream<Void>.Continuation
    /// Acknowledgements campaignd (or the relay above) took from this one, and the `edge.acks` calls that carried them.
    let passed = Atomic<Int>(0)
    let batches = Atomic<Int>(0)
    /// How long a batch waits for more after its first acknowledgement. The edges below acknowledge a heartbeat or a
    /// change within some milliseconds of each other, so a batch sent at once holds one or two and the rest follow as
    /// more calls; waiting this little makes them one or a few, and campaignd (and `adctl --wait`) hears them no more
    /// than this later.
    static let linger: Duration = .milliseconds(10)

    init(relayId: String, upstream: RPCClient, logger: Logger) {
        self.relayId = relayId
        self.upstream = upstream
        self.logger = logger
        (signals, signal) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Takes acknowledgements from below, to pass on soon.
    func take(_ acks: [EdgeAck]) {
        let now = ContinuousClock.now
        pending.withLock { pending in
            // The newest by the edge's own time when both are sealed (an edge's notification and call can arrive the
            // other way round): campaignd would refuse the older after the newer anyway.
            for ack in acks where !(pending[ack.edgeId]?.isNewer(than: ack) ?? false) { pending[ack.edgeId] = ack }
        }
        heard.withLock { heard in
            for ack in acks { heard[ack.edgeId] = now }
        }
        signal.yield()
    }

    /// The edges below heard from within `seconds`.
    func liveEdges(within seconds: Double = 5) -> Int {
        let now = ContinuousClock.now
        return heard.withLock { heard in
            // An edge gone for an hour is forgotten, so ids heard once do not pile up.
            heard = heard.filter { now - $0.value < .seconds(3600) }
            return heard.values.filter { now - $0 < .seconds(seconds) }.count
        }
    }

    func run() async throws {
        await cancelWhenGracefulShutdown {
            for await _ in self.signals {
                try? await Task.sleep(for: Self.linger)
                let batch = self.pending.withLock { pending in
                    defer { pending.removeAll() }
                    return Array(pending.values)
                }
                guard !batch.isEmpty else { continue }
                do {
                    let answer = try await self.upstream.call(SyncAPI.acks, EdgeAcks(acks: batch.map { $0.passed(by: self.relayId) }),
                                                              timeout: .seconds(3))
                    if let refused = answer.refused {
                        // Not sent again: a replay stays one, a bad seal stays bad, and the edge's next acknowledgement brings
                        // its numbers anew. campaignd logs each refusal once.
                        self.logger.debug("upstream refused acknowledgements for their seal or their numbers (campaignd logs why)", metadata: ["edges": "\(refused.prefix(20))"])
                    }
                    self.passed.add(batch.count, ordering: .relaxed)
                    self.batches.add(1, ordering: .relaxed)
                } catch is CancellationError {
                    return
                } catch {
                    self.logger.debug("could not pass acknowledgements upstream; retrying", metadata: ["error": "\(error)"])
                    self.pending.withLock { pending in
                        for ack in batch where pending[ack.edgeId] == nil { pending[ack.edgeId] = ack }
                    }
                    try? await Task.sleep(for: .milliseconds(500))
                    self.signal.yield()
                }
            }
        }
    }
}
