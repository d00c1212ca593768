@testable import CampaignStore
import Foundation
import LaunchAdTesting
import Logging
import PostgresNIO
import Synchronization
import Testing

/// The leadership's own PostgreSQL session: its queries never outlast the connection, and losing the session (the
/// server ending it) brings the leader back to leading, each time.
@Suite("PostgreSQL leadership session", .timeLimit(.minutes(2)), .sharedPostgresCluster)
struct LeadershipSessionTests {
    static let logger = Logger(label: "leadership-test")

    static func location(_ url: String) throws -> DatabaseURL.PostgresLocation {
        guard case .postgres(let location) = try DatabaseURL(parsing: url) else { throw PostgresCluster.Failure(description: url) }
        return location
    }

    @Test("a query on the leadership's session answers while it lives, and fails within the bound once the connection has closed")
    func queryAfterClose() async throws {
        try await withPostgresDatabase { url, _ in
            let configuration = PostgresStore.connectionConfiguration(try Self.location(url), connectTimeout: .seconds(2), keepalive: true)
            let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: Self.logger)
            let answered = try await PostgresStore.sessionRows(connection, "SELECT 41 + 1", Self.logger)
            #expect(try answered.map { try $0.decode(Int.self) } == [42])
            try await connection.close()

            let asked = ContinuousClock.now
            await #expect(throws: PostgresStore.SessionSilent.self) {
                try await PostgresStore.sessionRows(connection, "SELECT 1", Self.logger)
            }
            let waited = ContinuousClock.now - asked
            #expect(waited >= PostgresStore.sessionAnswerBound && waited < PostgresStore.sessionAnswerBound + .seconds(2), "\(waited)")

            // Cancelled, the wait ends at once.
            let waiting = Task { try await PostgresStore.sessionRows(connection, "SELECT 1", Self.logger) }
            try await Task.sleep(for: .milliseconds(100))
            let cancelled = ContinuousClock.now
            waiting.cancel()
            await #expect(throws: CancellationError.self) { try await waiting.value }
            #expect(ContinuousClock.now - cancelled < .milliseconds(500))
        }
    }

    @Test("the server ending the leader's session, again and again: the leader's work is cancelled and it leads again each time")
    func sessionEndedByTheServer() async throws {
        try await withPostgresDatabase { url, cluster in
            let store = try await PostgresStore.connect(try Self.location(url), logger: Self.logger)
            defer { store.close() }
            let leads = Leads()
            let leading = Task {
                try await store.whileLeading {
                    leads.started.add(1, ordering: .relaxed)
                    defer { leads.ended.add(1, ordering: .relaxed) }
                    try await Task.sleep(for: .seconds(3600))
                }
            }
            defer { leading.cancel() }
            for round in 1...8 {
                let began = ContinuousClock.now
                #expect(await eventually(timeout: .seconds(10)) { leads.started.load(ordering: .relaxed) == round },
                        "round \(round): the leader did not lead again in \(ContinuousClock.now - began)")
                // The work of the session before was cancelled and ended before this one began.
                #expect(leads.ended.load(ordering: .relaxed) == round - 1)
                // Ends the session that holds the leadership's advisory lock, as a restart or an operator would.
                try cluster.execute("""
                    SELECT pg_terminate_backend(pid) FROM pg_locks
                    WHERE locktype = 'advisory' AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
                    """, database: url)
            }
            leading.cancel()
            _ = await leading.result
        }
    }

    /// How many times the leader's work began and ended.
    final class Leads: Sendable {
        let started = Atomic<Int>(0)
        let ended = Atomic<Int>(0)
    }
}
