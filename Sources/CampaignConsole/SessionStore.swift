import Locking

/// A signed-in browser: who it is, and the token its write forms must carry back (CSRF).
struct Session: Sendable {
    let id: String
    let user: String
    let csrf: String
    let expires: Double
}

/// The console's sessions, in memory (a restart signs everyone out), bounded: past `capacity` the one closest to
/// expiring goes, so a flood of sign-ins cannot grow memory without bound.
final class SessionStore: Sendable {
    /// How long a sign-in lasts, in seconds.
    let lifetime: Double
    let capacity: Int
    private let sessions = Locked<[String: Session]>([:])
    private let now: @Sendable () -> Double

    init(lifetime: Double = 12 * 3600, capacity: Int = 10_000, now: @escaping @Sendable () -> Double) {
        self.lifetime = lifetime
        self.capacity = capacity
        self.now = now
    }

    /// A new session for `user`, with fresh random id and CSRF token.
    func open(user: String) -> Session {
        let time = now()
        let session = Session(id: ConstantTime.randomHex(bytes: 32), user: user, csrf: ConstantTime.randomHex(bytes: 32),
                              expires: time + lifetime)
        sessions.withLock { sessions in
            sessions = sessions.filter { $0.value.expires > time }
            if sessions.count >= capacity, let oldest = sessions.min(by: { $0.value.expires < $1.value.expires }) {
                sessions[oldest.key] = nil
            }
            sessions[session.id] = session
        }
        return session
    }

    /// The live session named by a cookie's value.
    func session(id: String) -> Session? {
        let time = now()
        return sessions.withLock { sessions in
            guard let session = sessions[id] else { return nil }
            guard session.expires > time else {
                sessions[id] = nil
                return nil
            }
            return session
        }
    }

    func close(id: String) {
        _ = sessions.withLock { $0.removeValue(forKey: id) }
    }
}
