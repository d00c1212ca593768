import LaunchAdDomain
import ServiceLifecycle

/// A heartbeat each second on the update stream: `{epoch, seq, time}`, so edges notice gaps and clock skew.
struct HeartbeatService: Service {
    let publisher: ChangePublisher
    let clock: WallClock
    let interval: Duration

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                publisher.heartbeat(time: clock())
                try await Task.sleep(for: interval)
            }
        }
    }
}
