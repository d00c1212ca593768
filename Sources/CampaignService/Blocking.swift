import Dispatch

/// Runs blocking work (SQLite, files) on a dispatch queue, off Swift's cooperative threads.
func blocking<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async {
            continuation.resume(with: Result { try work() })
        }
    }
}
