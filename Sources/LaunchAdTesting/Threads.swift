import Foundation

/// Runs blocking or long work (raw sockets, seconds of computation) on a thread of its own, so no thread of Swift's
/// cooperative pool is held: the pool's few threads run every suite's async tests, whose time bounds a held thread
/// would break.
public func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
    }
}
