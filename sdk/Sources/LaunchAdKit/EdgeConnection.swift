import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An edge reached over HTTP(S): JSON-RPC calls to its `POST /rpc`, each bounded in time.
final class EdgeConnection: Sendable {
    let rpcURL: URL
    private let session: URLSession
    private let ids = Counter()

    init(edge: URL) {
        rpcURL = edge.appendingPathComponent("rpc")
        let configuration = URLSessionConfiguration.ephemeral
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpMaximumConnectionsPerHost = 4
        session = URLSession(configuration: configuration)
    }

    deinit { session.finishTasksAndInvalidate() }

    /// Calls `method` with `params`; its result, or an ``EdgeError``, within `timeout` seconds.
    func call<Params: Encodable, Result: Decodable>(_ method: String, _ params: Params, as: Result.Type = Result.self,
                                                     timeout: Double) async throws -> Result {
        var request = URLRequest(url: rpcURL, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONEncoder().encode(RPCCall(id: ids.next(), method: method, params: params))
        let (data, status) = try await exchange(request, timeout: timeout)
        guard status == 200 else { throw EdgeError.transport("\(method) answered HTTP \(status)") }
        let reply: RPCReply<Result>
        do {
            reply = try JSONDecoder().decode(RPCReply<Result>.self, from: data)
        } catch {
            throw EdgeError.malformed("\(method): \(error)")
        }
        if let error = reply.error { throw EdgeError.rpc(error) }
        guard let result = reply.result else { throw EdgeError.malformed("\(method): neither result nor error") }
        return result
    }

    /// One HTTP exchange, given up after `timeout` seconds even when the server accepted and never answers (the
    /// request's own timeout is an idle timeout, which a trickle defeats).
    private func exchange(_ request: URLRequest, timeout: Double) async throws -> (Data, Int) {
        let box = TaskBox()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<(Data, Int), any Error>) in
                let once = Once(continuation)
                let task = session.dataTask(with: request) { data, response, error in
                    if let error {
                        once.resume(throwing: EdgeError.transport(error.localizedDescription))
                    } else if let http = response as? HTTPURLResponse {
                        once.resume(returning: (data ?? Data(), http.statusCode))
                    } else {
                        once.resume(throwing: EdgeError.transport("no HTTP response"))
                    }
                }
                box.set(task)
                task.resume()
                DispatchQueue.global().asyncAfter(deadline: .now() + timeout) {
                    if once.resume(throwing: EdgeError.timedOut) { task.cancel() }
                }
            }
        } onCancel: {
            box.cancel()
        }
    }
}

/// Resumes a continuation once: the first of an answer, a failure and a timer wins.
final class Once<Value: Sendable>: @unchecked Sendable {
    // @unchecked: `continuation` is guarded by `lock`.
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Value, any Error>?

    init(_ continuation: CheckedContinuation<Value, any Error>) { self.continuation = continuation }

    @discardableResult
    func resume(returning value: Value) -> Bool { take()?.resume(returning: value) != nil }

    @discardableResult
    func resume(throwing error: any Error) -> Bool { take()?.resume(throwing: error) != nil }

    private func take() -> CheckedContinuation<Value, any Error>? {
        lock.holding {
            defer { continuation = nil }
            return continuation
        }
    }
}

/// A URLSession task that a cancellation handler may cancel.
final class TaskBox: @unchecked Sendable {
    // @unchecked: guarded by `lock`.
    private let lock = NSLock()
    private var task: URLSessionTask?
    private var cancelled = false

    func set(_ task: URLSessionTask) {
        let cancel = lock.holding {
            self.task = task
            return cancelled
        }
        if cancel { task.cancel() }
    }

    func cancel() {
        let task = lock.holding {
            cancelled = true
            return self.task
        }
        task?.cancel()
    }
}

/// Request ids.
final class Counter: @unchecked Sendable {
    // @unchecked: guarded by `lock`.
    private let lock = NSLock()
    private var value = 0

    func next() -> Int {
        lock.holding {
            value += 1
            return value
        }
    }
}
