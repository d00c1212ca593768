import Locking

/// Which refusals were logged already, so that a peer retrying every second logs each kind once. At most ``limit``
/// kinds are remembered; past it no new kind is logged, since what names a kind (an edge id, a key) is the sender's
/// choice, and a flood of made-up ones must not flood the log.
public final class RefusalLog: Sendable {
    private let logged = Locked<Set<String>>([])
    public static let limit = 1000

    public init() {}

    /// Whether `kind` is to be logged now: the first time it is seen, while fewer than ``limit`` kinds are remembered.
    public func isFirst(_ kind: String) -> Bool {
        logged.withLock { logged in
            guard logged.count < Self.limit else { return false }
            return logged.insert(kind).inserted
        }
    }
}
