import Logging
import PostgresNIO

/// Leadership among the campaignd sharing one PostgreSQL database: a session-level advisory lock held on a dedicated
/// connection. The server drops the lock with the session: at once when the leader's process dies (its socket
/// closes), and within a few seconds when its network goes (the session asks for TCP keepalives and a user timeout).
/// The leader checks its own session four times a second and steps down (cancelling its work) when a check is not
/// answered within 1.5 s, so two leaders never run for long. The same connection LISTENs to commits from every process.
///
/// Every query on that connection is bounded: PostgresNIO (1.33.2) never answers a query written to a connection
/// that has already closed, and cancelling the wait does not end it, so a check sent as the server went away would
/// otherwise hold the leader's work, and its return to leading, for good.
extension PostgresStore {
    /// The advisory lock key of leadership ("campload").
    static let leaderLockKey: Int64 = 0x6361_6d70_6c6f_6164

    /// Why the leader stepped down: its session's notifications ended.
    struct LeadershipLost: Error, CustomStringConvertible {
        var description: String { "the leader's database session ended" }
    }

    /// A query on the leadership's connection that got no answer in time.
    struct SessionSilent: Error, CustomStringConvertible {
        let after: Duration
        var description: String { "the leadership's database session gave no answer in \(after)" }
    }

    /// How long a query on the leadership's connection may go unanswered.
    static let sessionAnswerBound: Duration = .milliseconds(1500)

    /// Every row of `query` on the leadership's `connection`, within ``sessionAnswerBound``.
    @discardableResult
    static func sessionRows(_ connection: PostgresConnection, _ query: PostgresQuery, _ logger: Logger) async throws -> [PostgresRow] {
        try await FirstOutcome.run(timeout: sessionAnswerBound, timedOut: SessionSilent(after: sessionAnswerBound)) {
            try await rows(connection, query, logger)
        }
    }

    public func whileLeading(_ lead: @escaping @Sendable () async throws -> Void) async throws {
        // Failed tries in a row, and when a failure was last logged: the first of a run is logged (unless one was
        // within the second), then one every ten seconds while PostgreSQL stays away, not each try; a run that was
        // logged ends with a line of its own.
        var failures = 0
        var logged: ContinuousClock.Instant?
        var warned = false
        while !Task.isCancelled {
            do {
                let connection = try await PostgresConnection.connect(
                    configuration: Self.connectionConfiguration(location, connectTimeout: .seconds(2), keepalive: true),
                    id: 1, logger: logger)
                if warned { logger.info("leadership: PostgreSQL reached again", metadata: ["failed_tries": "\(failures)"]) }
                failures = 0
                warned = false
                do {
                    try await leadWhileHeld(connection, lead)
                } catch {
                    try? await connection.close()
                    throw error
                }
                try? await connection.close()
            } catch is CancellationError {
                return
            } catch {
                if Task.isCancelled { return }
                failures += 1
                let now = ContinuousClock.now
                if logged.map({ now - $0 >= .seconds(failures == 1 ? 1 : 10) }) ?? true {
                    logged = now
                    warned = true
                    logger.warning("leadership: lost or not reachable; trying again", metadata: [
                        "error": "\(DatabaseUnavailable(location: DatabaseURL.postgres(location).description, error: error).reason)",
                        "failed_tries": "\(failures)",
                    ])
                }
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
    }

    /// Waits for the lock on `connection`, then runs `lead` while the session answers.
    private func leadWhileHeld(_ connection: PostgresConnection, _ lead: @escaping @Sendable () async throws -> Void) async throws {
        while true {
            let held = try await Self.sessionRows(connection, "SELECT pg_try_advisory_lock(\(Self.leaderLockKey))", logger)[0].decode(Bool.self)
            if held { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        let pid = try await Self.sessionRows(connection, "SELECT pg_backend_pid()", logger)[0].decode(Int32.self)
        leaderSession.withLock { $0 = pid }
        defer { leaderSession.withLock { $0 = nil } }
        logger.info("leading: this campaignd publishes the update stream and runs the scheduler")
        let logger = logger
        let signal = signal
        try await connection.listen(on: Self.notifyChannel) { notifications in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await lead() }
                group.addTask {
                    for try await _ in notifications { signal.wake() }
                    throw LeadershipLost()
                }
                group.addTask {
                    while true {
                        try await Self.sessionRows(connection, "SELECT 1", logger)
                        try await Task.sleep(for: .milliseconds(250))
                    }
                }
                defer { group.cancelAll() }
                do {
                    _ = try await group.next()
                } catch {
                    // Closing fails a query still waiting on a session that went silent, and ends the notifications.
                    try? await connection.close()
                    logger.warning("leadership lost", metadata: ["error": "\(error)"])
                    throw error
                }
                // `lead` ended (the service is stopping): closing ends the notifications, so every task ends.
                try? await connection.close()
            }
        }
    }

    /// How one connection reaches the database; `keepalive` asks the server to notice a vanished client within seconds.
    static func connectionConfiguration(_ location: DatabaseURL.PostgresLocation, connectTimeout: Duration,
                                        keepalive: Bool) -> PostgresConnection.Configuration {
        var configuration = PostgresConnection.Configuration(host: location.host, port: location.port, username: location.user,
                                                             password: location.password, database: location.database, tls: .disable)
        configuration.options.connectTimeout = .milliseconds(Int64(connectTimeout.components.seconds * 1000))
        if keepalive {
            configuration.options.additionalStartupParameters = [
                ("tcp_keepalives_idle", "1"), ("tcp_keepalives_interval", "1"), ("tcp_keepalives_count", "2"),
                ("tcp_user_timeout", "2000"),
            ]
        }
        return configuration
    }
}
