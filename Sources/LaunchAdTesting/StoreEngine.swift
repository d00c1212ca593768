import CampaignService
import CampaignStore
import LaunchAdDomain

/// The engines under campaignd's store, for tests that run on both.
public enum StoreEngine: String, CaseIterable, Sendable, CustomStringConvertible {
    case sqlite, postgres
    public var description: String { rawValue }
}

/// ``withCampaignService(clock:configure:_:)`` on `engine`: with PostgreSQL, on a new database (of the suite's shared
/// cluster, or of a cluster of its own).
public func withCampaignService<T>(
    engine: StoreEngine,
    clock: @escaping WallClock = Timestamp.systemClock,
    configure: (inout CampaignServiceConfiguration) throws -> Void = { _ in },
    _ body: (InProcessCampaignService) async throws -> T
) async throws -> T {
    switch engine {
    case .sqlite:
        return try await withCampaignService(clock: clock, configure: configure, body)
    case .postgres:
        return try await withPostgresDatabase { url, _ in
            return try await withCampaignService(clock: clock, configure: { configuration in
                configuration.database = try DatabaseURL(parsing: url)
                try configure(&configuration)
            }, body)
        }
    }
}
