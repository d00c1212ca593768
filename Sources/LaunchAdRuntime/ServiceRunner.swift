import Logging
import ServiceLifecycle

/// Runs a process's services until SIGTERM or SIGINT, then shuts them down gracefully, in reverse order.
public enum ServiceRunner {
    public static func run(_ services: [any Service], logger: Logger) async throws {
        let group = ServiceGroup(configuration: .init(
            services: services.map { .init(service: $0) },
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger))
        try await group.run()
    }
}
