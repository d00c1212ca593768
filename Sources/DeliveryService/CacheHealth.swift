import Locking

/// Whether the edge's cache folder takes writes (the state file and creatives), for `/healthz`, metrics and
/// `edge.status`. A full or read-only disk does not stop the edge: it answers from memory and says so here.
public final class CacheHealth: Sendable {
    private let state = Locked<(writable: Bool, lastError: String?, failures: Int, stateWrites: Int)>((true, nil, 0, 0))

    public var writable: Bool { state.withLock { $0.writable } }
    /// Why the last write failed, while it fails.
    public var lastError: String? { state.withLock { $0.writable ? nil : $0.lastError } }
    /// Writes that failed since start.
    public var failures: Int { state.withLock { $0.failures } }
    /// Times the state file was written since start (each a group commit of the changes since the last).
    public var stateWrites: Int { state.withLock { $0.stateWrites } }

    /// Counts a write of the state file.
    func stateWritten() {
        state.withLock { $0.stateWrites += 1 }
    }

    /// Records a write's outcome; returns `true` when it changed whether the cache is writable.
    @discardableResult
    func record(_ error: (any Error)?) -> Bool {
        state.withLock { state in
            let was = state.writable
            state.writable = error == nil
            if let error {
                state.failures += 1
                state.lastError = "\(error)"
            }
            return was != state.writable
        }
    }
}
