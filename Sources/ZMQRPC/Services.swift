import ServiceLifecycle
import ZeroMQ

/// An RPC server as a long-running service: started (bound) before the group runs, it serves until graceful
/// shutdown, then stops taking requests, finishes those in flight, and returns.
extension RPCServer: Service {
    public func run() async throws {
        if endpoint == nil { try start() }
        await withGracefulShutdownHandler {
            await self.stopped()
        } onGracefulShutdown: {
            self.beginShutdown()
        }
        // Cancellation without graceful shutdown still closes the socket.
        await shutdown()
    }
}

extension Publisher: Service {
    public func run() async throws {
        if endpoint == nil { try start() }
        await withGracefulShutdownHandler {
            await self.stopped()
        } onGracefulShutdown: {
            self.beginShutdown()
        }
        await shutdown()
    }
}
