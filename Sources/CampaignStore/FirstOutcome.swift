import Locking

/// The first of an operation's outcomes (its work's result, its time running out, its caller's cancellation) resumes
/// the caller; the others find it resumed, and the work and its timer are cancelled.
final class FirstOutcome<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        var work: Task<T, any Error>?
        var timer: Task<Void, any Error>?
        var outcome: Result<T, any Error>?
    }

    private let state = Locked(State())

    /// Waits for `work` on behalf of `continuation`; `timedOut` is the answer when `timer` ends first.
    func start(_ continuation: CheckedContinuation<T, any Error>, work: Task<T, any Error>, timer: Task<Void, any Error>,
               timedOut: any Error) {
        let early = state.withLock { state -> Result<T, any Error>? in
            state.work = work
            state.timer = timer
            guard let outcome = state.outcome else {
                state.continuation = continuation
                return nil
            }
            return outcome
        }
        if let early {
            work.cancel()
            timer.cancel()
            continuation.resume(with: early)
            return
        }
        Task { [self] in
            do { finish(.success(try await work.value)) } catch { finish(.failure(error)) }
        }
        Task { [self] in
            if (try? await timer.value) != nil { finish(.failure(timedOut)) }
        }
    }

    /// Answers the caller with `outcome` unless it has been answered.
    func finish(_ outcome: Result<T, any Error>) {
        let (continuation, work, timer) = state.withLock { state in
            if state.outcome == nil { state.outcome = outcome }
            defer { state.continuation = nil }
            return (state.continuation, state.work, state.timer)
        }
        work?.cancel()
        timer?.cancel()
        continuation?.resume(with: outcome)
    }
}
