import LaunchAdDomain
import Logging
import ServiceLifecycle

/// A heartbeat each second on the update stream: `{epoch, seq, time}`, so edges notice gaps and clock skew. Each is
/// a debug line of the log (`--log-level debug`), so that a change's moment can be set against the heartbeats'.
struct HeartbeatService: Service {
    let publisher: ChangePublisher
    let clock: WallClock
    let interval: Duration
    let logger: Logger

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                let seq = publisher.heartbeat(time: clock())
                logger.debug("heartbeat published", metadata: ["seq": "\(seq)"])
                try await Task.sleep(for: interval)
            }
        }
    }
}
