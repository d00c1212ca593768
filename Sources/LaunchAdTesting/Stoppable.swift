import ZMQRPC

/// A fixture a test starts and must stop however the test ends: a child process (campaignd, an edge, a relay), a
/// proxy, a server. ``withStopping(_:isolation:_:)`` awaits its ``stop()``.
///
/// `stop()` is idempotent: a test may stop a fixture itself to check what follows (a restart, a file saved on the way
/// out), and the scope stops it again at its end.
public protocol Stoppable: Sendable {
    /// Stops the fixture and returns once it has stopped; a second call does no harm.
    func stop() async
}

/// Runs `body` with `fixture`, then awaits `fixture.stop()`, whether `body` returned or threw (and then rethrows):
/// a failing `try #require` no longer skips the stop at the end of a test, leaking its process into the next tests.
///
/// Nested scopes stop in the right order: the inner fixture (an edge) before the outer (campaignd's fixture, which
/// removes the folder the edge writes in). Not `defer { Task { await fixture.stop() } }`: that stop is not awaited, so
/// it runs after the outer fixture's, or after the test binary has ended.
public func withStopping<F: Stoppable, R>(
    _ fixture: F, isolation: isolated (any Actor)? = #isolation, _ body: (F) async throws -> R
) async rethrows -> R {
    let result: R
    do {
        result = try await body(fixture)
    } catch {
        await fixture.stop()
        throw error
    }
    await fixture.stop()
    return result
}

/// Fixtures of one kind started together (a relay's edges): stopped one after another, the last started first.
extension Array: Stoppable where Element: Stoppable {
    public func stop() async {
        for fixture in reversed() { await fixture.stop() }
    }
}

/// A subscriber to an update stream: its thread ends with its stop.
extension Subscriber: Stoppable {}

/// A JSON-RPC client: stopping it closes it (its thread ends), so a helper's client is closed before its scope's
/// fixture stops, not by a task left running after it.
extension RPCClient: Stoppable {
    public func stop() async { await close() }
}
