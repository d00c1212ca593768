import Locking

/// Whether the edge's cache folder takes writes (the state file and creatives), for `/healthz`, metrics and
/// `edge.status`. A full or read-only disk does not stop the edge: it answers from memory and says so here.
///
/// The state file and the creatives' folder are told apart: a state file written proves nothing about the folder a
/// creative is refused by (it may be another folder, or the creative's write may fail while the state's succeeds), so
/// each write clears only the refusal of its own part.
public final class CacheHealth: Sendable {
    /// What is written to the cache folder.
    enum Part: Sendable {
        case stateFile
        case creatives
    }

    private struct Status {
        var refusing: Set<Part> = []
        var lastError: String?
        var failures = 0
        var stateWrites = 0
    }

    private let status = Locked(Status())

    public var writable: Bool { status.withLock { $0.refusing.isEmpty } }
    /// Why the last write failed, while some part fails.
    public var lastError: String? { status.withLock { $0.refusing.isEmpty ? nil : $0.lastError } }
    /// Writes that failed since start, the tries of the creatives' folders (``CreativeFiles/probe(for:)``) included.
    public var failures: Int { status.withLock { $0.failures } }
    /// Times the state file was written since start (each a group commit of the changes since the last).
    public var stateWrites: Int { status.withLock { $0.stateWrites } }

    /// Whether the last write of `part` failed.
    func refuses(_ part: Part) -> Bool {
        status.withLock { $0.refusing.contains(part) }
    }

    /// Counts a write of the state file.
    func stateWritten() {
        status.withLock { $0.stateWrites += 1 }
    }

    /// Records the outcome of a write of `part`; returns `true` when it changed whether the cache is writable.
    @discardableResult
    func record(_ error: (any Error)?, for part: Part) -> Bool {
        status.withLock { status in
            let was = status.refusing.isEmpty
            if let error {
                status.refusing.insert(part)
                status.failures += 1
                status.lastError = "\(error)"
            } else {
                status.refusing.remove(part)
            }
            return was != status.refusing.isEmpty
        }
    }
}
