import CampaignStore
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdRuntime
import Logging
import ServiceLifecycle
import Synchronization

/// Fires what time does to campaigns: a scheduled one goes live at its start, anything expires at its end, each
/// published at once; also, at start, whatever passed while the service was down.
///
/// It sleeps until the earliest due time it knows, but never more than `tick`, and every commit lowers that time
/// when it brings an earlier one (``noteCommitted(_:)``), so a transition fires within `tick` of being due.
final class ExpiryScheduler: Service {
    let store: any Store
    let clock: WallClock
    let logger: Logger
    let tick: Duration
    /// The earliest known due time, in milliseconds (Int64.max: none).
    private let due = Atomic<Int64>(0)

    init(store: any Store, clock: @escaping WallClock, logger: Logger, tick: Duration = .milliseconds(50)) {
        self.store = store
        self.clock = clock
        self.logger = logger
        self.tick = tick
    }

    /// Called after each commit: a changed campaign may now be due earlier.
    func noteCommitted(_ changes: [Change]) {
        for change in changes {
            guard let next = CampaignRules.nextTransition(of: change.campaign) else { continue }
            due.min(next.milliseconds, ordering: .relaxed)
        }
    }

    func run() async throws {
        // Each run (at start, and again on taking over the lead) scans at once: what passed meanwhile, and what other
        // campaignd sharing the database committed while this one did not lead, are due now or unknown here.
        due.store(0, ordering: .relaxed)
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    let now = self.clock()
                    if now.milliseconds >= self.due.load(ordering: .relaxed) {
                        // Reset before reading, so a commit racing with this pass lowers it again.
                        self.due.store(.max, ordering: .relaxed)
                        let changes = try await self.store.applyTimeTransitions(now: now)
                        for change in changes {
                            self.logger.info("time changed a campaign", metadata: [LogField.campaignId: "\(change.id)", "op": "\(change.op.rawValue)", "seq": "\(change.seq)"])
                        }
                        if let next = try await self.store.nextTransitionTime() {
                            self.due.min(next.milliseconds, ordering: .relaxed)
                        }
                    }
                    let until = self.due.load(ordering: .relaxed)
                    let wait = until == .max ? self.tick : min(self.tick, .milliseconds(max(0, until - self.clock().milliseconds)))
                    try await Task.sleep(for: wait)
                } catch is CancellationError {
                    return
                } catch {
                    // Scan again on the next pass: nothing due may be forgotten because one pass failed.
                    self.due.min(0, ordering: .relaxed)
                    self.logger.error("scheduler failed; retrying", metadata: ["error": "\(error)"])
                    try? await Task.sleep(for: .milliseconds(100))
                }
            }
        }
    }
}
