import CampaignStore
import LaunchAdAPI
import LaunchAdDomain
import Logging
import ServiceLifecycle

/// What only the leader does: publish every committed change (of any process sharing the database) on the update
/// stream in `seq` order, send the heartbeats, and run the expiry scheduler. The change log is the truth: commits
/// only wake the feed (and it looks on its own every `poll`), so a lost wake-up loses nothing. On taking over it
/// resumes after the last change recorded as published, so a change is neither skipped nor, but for the batch a
/// dying leader had sent and not yet recorded, sent twice. With SQLite the one process leads from the start. Pacing
/// runs here too, so one campaignd writes the shares.
final class LeaderDuties: Service {
    let store: any Store
    let publisher: ChangePublisher
    let heartbeat: HeartbeatService
    let scheduler: ExpiryScheduler
    let pacing: PacingService?
    let logger: Logger
    let poll: Duration

    init(store: any Store, publisher: ChangePublisher, heartbeat: HeartbeatService, scheduler: ExpiryScheduler,
         pacing: PacingService? = nil, logger: Logger, poll: Duration = .milliseconds(200)) {
        self.store = store
        self.publisher = publisher
        self.heartbeat = heartbeat
        self.scheduler = scheduler
        self.pacing = pacing
        self.logger = logger
        self.poll = poll
    }

    func run() async throws {
        try await cancelWhenGracefulShutdown {
            try await self.store.whileLeading { [self] in
                // A failing database read stops the duties for a moment, never the process.
                while !Task.isCancelled {
                    do {
                        try await withThrowingTaskGroup(of: Void.self) { group in
                            group.addTask { try await self.feed() }
                            group.addTask { try await self.heartbeat.run() }
                            group.addTask { try await self.scheduler.run() }
                            if let pacing = self.pacing { group.addTask { try await pacing.run() } }
                            defer { group.cancelAll() }
                            _ = try await group.next()
                        }
                    } catch is CancellationError {
                        return
                    } catch {
                        self.logger.error("publishing failed; retrying", metadata: ["error": "\(error)"])
                        try? await Task.sleep(for: .milliseconds(200))
                    }
                }
            }
        }
    }

    /// Publishes the change log from the last published `seq`, each time a commit wakes it or `poll` passes.
    private func feed() async throws {
        let (wakes, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let commits = store.commitWakeups()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await _ in commits { wake.yield() }
            }
            group.addTask {
                while !Task.isCancelled {
                    wake.yield()
                    try await Task.sleep(for: self.poll)
                }
            }
            defer { group.cancelAll() }
            var published = try await store.publishedSeq()
            publisher.resume(at: published)
            logger.info("publishing the change log", metadata: ["after_seq": "\(published)", "epoch": "\(store.epoch)"])
            for await _ in wakes {
                while true {
                    guard let changes = try await store.changes(since: published, limit: SyncAPI.defaultChangesPage, maxBytes: SyncAPI.maxPageBytes) else {
                        logger.error("the change log does not reach back to the last published change", metadata: ["seq": "\(published)"])
                        published = try await store.currentSeq()
                        publisher.resume(at: published)
                        break
                    }
                    guard let last = changes.last else { break }
                    publisher.publish(changes)
                    scheduler.noteCommitted(changes)
                    published = last.seq
                    try await store.setPublishedSeq(published)
                }
            }
        }
    }
}
