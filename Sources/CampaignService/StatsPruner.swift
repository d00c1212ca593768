import CampaignStore
import LaunchAdAPI
import LaunchAdDomain
import Logging
import ServiceLifecycle

/// Forgets the hourly counts older than the stats retention, at start and then every `interval` (an hour): the
/// series `campaign.stats` answers reach back that far, while the totals are kept for good. Every campaignd sharing a
/// database does it; deleting the same old rows twice is harmless.
struct StatsPruner: Service {
    let store: any Store
    let retention: Double
    let clock: WallClock
    let logger: Logger
    var interval: Duration = .seconds(3600)

    func prune() async {
        let cutoff = HourlyCount.hour(of: clock().adding(seconds: -retention))
        do {
            let forgotten = try await store.forgetHourlyStats(before: cutoff)
            if forgotten > 0 {
                logger.info("forgot hourly counts past the stats retention", metadata: ["rows": "\(forgotten)", "before": "\(cutoff)"])
            }
        } catch {
            logger.warning("could not forget hourly counts past the stats retention; retrying", metadata: ["error": "\(error)"])
        }
    }

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await prune()
                try await Task.sleep(for: interval)
            }
        }
    }
}
