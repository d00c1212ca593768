import CampaignService
import Foundation
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

/// Runs `body` with a `campaignd` child process (``CampaignFixture``) started with `arguments` on `engine`, stopped
/// after: with PostgreSQL, on a new database (of the suite's shared cluster, or of a cluster of its own).
public func withCampaignFixture<T>(
    engine: StoreEngine,
    arguments: [String] = [],
    _ body: (CampaignFixture) async throws -> T
) async throws -> T {
    switch engine {
    case .sqlite:
        return try await withStopping(CampaignFixture(arguments: arguments), body)
    case .postgres:
        return try await withPostgresDatabase { url, _ in
            try await withStopping(CampaignFixture(arguments: ["--database", url] + arguments), body)
        }
    }
}

/// Runs `body` with one store of `engine` that campaignd can be started on again and again (a restart): `body` gets
/// the configuration that points campaignd at it, for ``withCampaignService(clock:configure:_:)``. SQLite's folder is
/// removed after `body`; PostgreSQL's database is new (of the suite's shared cluster, or of a cluster of its own).
public func withCampaignStore<T>(
    engine: StoreEngine,
    _ body: (_ configure: @escaping @Sendable (inout CampaignServiceConfiguration) throws -> Void) async throws -> T
) async throws -> T {
    switch engine {
    case .sqlite:
        let directory = try makeTemporaryDirectory("campaignd-store")
        defer { removeTemporaryDirectory(directory) }
        let path = directory.appendingPathComponent("data").path
        return try await body { $0.dataDirectory = path }
    case .postgres:
        return try await withPostgresDatabase { url, _ in
            let database = try DatabaseURL(parsing: url)
            return try await body { $0.database = database }
        }
    }
}

/// Runs `sql` on the SQLite file at `path` with SQLite's shell, stopping at the first error: to leave rows as an older
/// campaignd (or a hand at the database) could have, beneath the store's own checks. Throws with what it printed
/// when it fails.
public func runSQLiteShell(_ path: String, _ sql: String) throws {
    let finished = try SpawnedProcess.run("sqlite3", ["-bail", path, sql])
    guard finished.termination == .exited(0) else {
        throw SpawnedProcess.Failure(description: "sqlite3 \(path) failed (\(finished.termination)): \(finished.error)")
    }
}
