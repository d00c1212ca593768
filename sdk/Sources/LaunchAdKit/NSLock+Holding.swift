import Foundation

extension NSLock {
    /// Runs `body` with the lock held. Foundation's own `withLock` is iOS 16 / macOS 13 on Apple platforms, and the
    /// SDK supports iOS 15.
    func holding<Value>(_ body: () throws -> Value) rethrows -> Value {
        lock()
        defer { unlock() }
        return try body()
    }
}
