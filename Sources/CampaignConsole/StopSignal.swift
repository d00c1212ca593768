import Locking

/// Set once when the console begins to stop, so its endless responses (event streams) end and the server can drain.
final class StopSignal: Sendable {
    private let value = Locked(false)

    var stopped: Bool { value.withLock { $0 } }

    func stop() { value.withLock { $0 = true } }
}
