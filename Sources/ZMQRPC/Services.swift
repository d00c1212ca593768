import ServiceLifecycle
import ZeroMQ

/// A socket loop on its own thread that starts (binds) before the service group runs and stops gracefully.
public protocol SocketService: Service {
    /// The endpoint bound, once started.
    var endpoint: String? { get }
    /// Binds and starts the loop; returns the endpoint bound.
    @discardableResult func start() throws(ZMQError) -> String
    /// Asks the loop to stop taking work and finish what it has.
    func beginShutdown()
    /// Returns once the loop's thread has finished.
    func stopped() async
    /// Why the loop ended without being asked to, if it did (`nil` by default).
    var failure: ZMQError? { get }
}

extension SocketService {
    public var failure: ZMQError? { nil }

    /// Serves until graceful shutdown, then stops taking work, finishes what is in flight, and returns;
    /// cancellation without a graceful shutdown also stops the loop. A loop that ended on its own throws its
    /// ``failure``.
    public func run() async throws {
        if endpoint == nil { try start() }
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                await self.stopped()
            } onGracefulShutdown: {
                self.beginShutdown()
            }
        } onCancel: {
            self.beginShutdown()
        }
        if let failure { throw failure }
    }
}

extension RPCServer: SocketService {}
extension Publisher: SocketService {}
