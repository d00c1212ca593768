import Foundation
import LaunchAdKit

/// How long the work of one of adsim's launches may keep the process: until the launch has ended and its budget has
/// passed since it began, whichever is later. Past that, adsim exits although a request the launch started may still
/// be waiting (an edge that accepts and never answers holds it; the SDK gives a launch's work up to twice the wait
/// budget, and `play` waits for it up to the wait budget after the ad): a launch's work must not outlive it by more
/// than its own budget, and what it left (the cache, the report queue) is on disk for the next launch.
struct LaunchDeadline: Sendable {
    /// When the launch began (the SDK opening its folder is part of it).
    let started: ContinuousClock.Instant
    /// The most the launch may wait for the edge: its answer, and the creative it names.
    let budget: Duration

    /// The deadline of a launch under `configuration` begun at `started`: its budget is the wait budget, and for a
    /// revalidate launch the answer's budget before it (a forced ad's creative is awaited once the answer is in).
    init(_ configuration: LaunchAdConfiguration, started: ContinuousClock.Instant = .now) {
        let seconds = configuration.waitBudget + (configuration.policy == .revalidate ? configuration.revalidateBudget : 0)
        self.started = started
        budget = .milliseconds(Int64((seconds * 1000).rounded(.up)))
    }

    /// Runs `work`, which calls its argument when the launch ends (the `end` event); returns when `work` returns or,
    /// once the launch has ended, at the deadline, whichever comes first. `work` is not waited for past it.
    func run(_ work: @escaping @Sendable (_ ended: @escaping @Sendable () -> Void) async -> Void) async {
        let (finished, finish) = AsyncStream.makeStream(of: Void.self)
        let deadline = started + budget
        Task {
            await work {
                Task {
                    try? await Task.sleep(until: deadline, clock: .continuous)
                    finish.yield()
                }
            }
            finish.yield()
        }
        for await _ in finished { break }
    }

    /// Waits for what goes on after a launch that has already ended (the cache's update from its answer), at most
    /// until the deadline.
    func drain(_ work: @escaping @Sendable () async -> Void) async {
        await run { ended in
            ended()
            await work()
        }
    }
}
