import Testing

/// One PostgreSQL cluster for a whole suite (starting one takes seconds): started before the suite's first test,
/// stopped and removed after its last; every test of the suite finds it as ``PostgresCluster/shared`` and makes a
/// database of its own on it (``withPostgresDatabase(_:)``).
public struct SharedPostgresCluster: SuiteTrait, TestScoping {
    public var isRecursive: Bool { false }

    public func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        try await withPostgresCluster { cluster in
            try await PostgresCluster.$shared.withValue(cluster) { try await function() }
        }
    }
}

extension Trait where Self == SharedPostgresCluster {
    /// A PostgreSQL cluster shared by the suite's tests.
    public static var sharedPostgresCluster: Self { SharedPostgresCluster() }
}
