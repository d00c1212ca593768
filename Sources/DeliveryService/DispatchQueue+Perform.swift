import Dispatch

extension DispatchQueue {
    /// Runs `work` on this queue and waits for it without holding one of the tasks' shared threads meanwhile (for
    /// blocking file writes and fsyncs).
    func perform<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { done in
            self.async { done.resume(returning: work()) }
        }
    }
}
