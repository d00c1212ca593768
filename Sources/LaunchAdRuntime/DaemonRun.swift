import Logging
import ZeroMQ

/// What every daemon's `main` does around its app: the ready file written and a line logged once it serves, and the
/// errors an operator can act on (a bind refused, keys missing, a socket that cannot open) printed as one line with
/// status 1 rather than a stack trace.
public enum DaemonRun {
    /// Runs `body`, which builds, starts and runs the app, handing it the `onReady` to give the app.
    public static func serve(_ program: String, readyFile: String?, logger: Logger,
                             _ body: (_ onReady: @escaping @Sendable ([String: String]) async -> Void) async throws -> Void) async throws {
        let onReady: @Sendable ([String: String]) async -> Void = { endpoints in
            if let readyFile {
                do { try ReadyFile.write(endpoints, to: readyFile) } catch { exitWithError(program, "\(error)") }
            }
            logger.info("ready", metadata: endpoints.mapValues { .string($0) })
        }
        do {
            try await body(onReady)
        } catch let error as RuntimeError {
            exitWithError(program, error.description)
        } catch let error as ZMQError {
            exitWithError(program, error.description)
        }
    }
}
