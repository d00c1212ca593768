import Locking

/// The first of an operation's outcomes (its work's result, its time running out, its caller's cancellation) resumes
/// the caller; the others find it answered, and the work and its timer are cancelled.
final class FirstOutcome<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        var outcome: Result<T, any Error>?
        var tasks: [Task<Void, Never>] = []
    }

    private let state = Locked(State())

    /// Runs `work` in a task of its own and answers with the first of its result, `timedOut` once `timeout` has passed,
    /// and the caller's cancellation: the caller never waits beyond those, even on work that never ends (that work is
    /// cancelled and left to end by itself).
    static func run(timeout: Duration, timedOut: any Error, work: @escaping @Sendable () async throws -> T) async throws -> T {
        let race = FirstOutcome<T>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                race.start(continuation, timeout: timeout, timedOut: timedOut, work: work)
            }
        } onCancel: {
            race.finish(.failure(CancellationError()))
        }
    }

    /// Runs `work` on behalf of `continuation`, which gets `timedOut` when `timeout` passes first.
    private func start(_ continuation: CheckedContinuation<T, any Error>, timeout: Duration, timedOut: any Error,
               work: @escaping @Sendable () async throws -> T) {
        let answered = state.withLock { state -> Result<T, any Error>? in
            if state.outcome == nil { state.continuation = continuation }
            return state.outcome
        }
        if let answered {
            continuation.resume(with: answered)
            return
        }
        let tasks = [
            Task { [self] in
                do { finish(.success(try await work())) } catch { finish(.failure(error)) }
            },
            Task { [self] in
                if (try? await Task.sleep(for: timeout)) != nil { finish(.failure(timedOut)) }
            },
        ]
        // An outcome that came while the tasks were made (the caller's cancellation) found none to cancel.
        let over = state.withLock { state in
            state.tasks = tasks
            return state.outcome != nil
        }
        if over { tasks.forEach { $0.cancel() } }
    }

    /// Answers the caller with `outcome` unless it has been answered.
    private func finish(_ outcome: Result<T, any Error>) {
        let (continuation, tasks) = state.withLock { state -> (CheckedContinuation<T, any Error>?, [Task<Void, Never>]) in
            guard state.outcome == nil else { return (nil, []) }
            state.outcome = outcome
            defer { state.continuation = nil }
            return (state.continuation, state.tasks)
        }
        tasks.forEach { $0.cancel() }
        continuation?.resume(with: outcome)
    }
}
