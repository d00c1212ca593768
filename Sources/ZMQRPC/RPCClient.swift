import JSONRPC
import Synchronization
import Locking
import ZeroMQ

/// Settings of an ``RPCClient``.
public struct RPCClientConfiguration: Sendable {
    /// The server's endpoint, or several, comma-separated (servers sharing one database): calls go round the ones
    /// connected, and a call lost with one is retried, as any call, on the others.
    public var endpoint: String
    /// How long a call waits for its answer, unless the call says otherwise.
    public var timeout: Duration = .seconds(5)
    /// How many times an idempotent call is sent again after a timeout (the Lazy Pirate pattern).
    public var retries: Int = 2
    /// CURVE, or `nil` for a plain socket.
    public var curve: CurveClientOptions?
    /// The largest reply frame accepted.
    public var maxMessageSize: Int64 = 16 * 1024 * 1024
    /// Reconnect back-off, first and longest.
    public var reconnectInterval: Int32 = 100
    public var reconnectIntervalMax: Int32 = 2_000
    /// A short name for the thread.
    public var name: String = "client"

    public init(endpoint: String) {
        self.endpoint = endpoint
    }
}

/// Why a call did not get an answer.
public enum RPCClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No answer within the timeout (after the retries an idempotent call is allowed).
    case timeout(method: String, endpoint: String)
    /// The connection was remade while a non-idempotent call was in flight; whether it took effect is unknown.
    case connectionReset(method: String, endpoint: String)
    /// The client was closed.
    case closed
    /// The answer was not a valid JSON-RPC response.
    case invalidResponse(String)

    public var description: String {
        switch self {
        case .timeout(let method, let endpoint): "no answer to \(method) from \(endpoint) in time"
        case .connectionReset(let method, let endpoint): "connection to \(endpoint) was reset during \(method); its outcome is unknown"
        case .closed: "the client is closed"
        case .invalidResponse(let detail): "invalid response: \(detail)"
        }
    }
}

/// A JSON-RPC 2.0 client on a ZeroMQ DEALER socket: many calls in flight on one connection, a timeout per
/// call, automatic reconnection, and retries of idempotent calls. Its thread runs until ``close()``.
///
/// A dedicated thread owns the socket; calls reach it through a mailbox and their answers are matched by id.
/// When a call times out and nothing at all came back since it was sent, the server is taken for gone and the
/// socket is remade (the ZeroMQ guide's Lazy Pirate): idempotent calls are sent again on the new socket, the
/// others fail with ``RPCClientError/connectionReset(method:endpoint:)``. When other answers did arrive, only the
/// timed-out call is sent again (if idempotent) on the same socket.
public final class RPCClient: Sendable {
    public let configuration: RPCClientConfiguration
    private let context: ZMQContext
    private let mailbox: Mailbox<Command>
    private let nextId = Atomic<Int>(1)
    private let thread = Locked<OwnerThread?>(nil)
    /// Whether calls are still taken; posts happen under this lock, so none lands after the loop's last look.
    private let accepting = Locked<Bool>(true)
    /// How many times the socket was remade after an unanswered call.
    public let reconnects = Atomic<Int>(0)

    enum Command: Sendable {
        case call(Call)
        case notify([UInt8])
        case cancel(Int)
        case stop
    }

    struct Call: Sendable {
        let id: Int
        let method: String
        let request: [UInt8]
        let idempotent: Bool
        let timeout: Duration
        let continuation: CheckedContinuation<JSONValue, any Error>
    }

    public init(context: ZMQContext, configuration: RPCClientConfiguration) throws(ZMQError) {
        self.context = context
        self.configuration = configuration
        self.mailbox = try Mailbox()
        let ready = Handoff<Result<Void, ZMQError>>()
        let started = OwnerThread(name: "rpc-\(configuration.name)") { [self] in
            let socket: Socket
            do throws(ZMQError) {
                socket = try makeSocket()
            } catch {
                ready.put(.failure(error))
                return
            }
            ready.put(.success(()))
            run(socket)
        }
        try ready.take().get()
        thread.withLock { $0 = started }
    }

    /// Calls a typed method and waits for its result.
    public func call<Params, Result>(_ method: RPCMethod<Params, Result>, _ params: Params,
                                     timeout: Duration? = nil) async throws -> Result {
        let encoded = try JSONValueEncoder().encode(params)
        let answer = try await call(method.name, params: encoded, idempotent: method.idempotent, timeout: timeout)
        return try Self.result(of: method, answer)
    }

    /// Calls a typed method whose params write themselves (a relay's batch of acknowledgements): the request the
    /// `Codable` way sends, written at once with no tree of values between.
    public func call<Params: JSONWritable, Result>(_ method: RPCMethod<Params, Result>, _ params: Params,
                                                   timeout: Duration? = nil) async throws -> Result {
        let id = nextId.add(1, ordering: .relaxed).oldValue
        let request = jsonRPCText(id: id, method: method.name) { params.write(json: &$0) }
        let answer = try await send(id: id, method: method.name, request: request, idempotent: method.idempotent, timeout: timeout)
        return try Self.result(of: method, answer)
    }

    /// A typed call's answer decoded; one that does not decode is an invalid response.
    private static func result<Params, Result>(of method: RPCMethod<Params, Result>,
                                               _ answer: JSONValue) throws -> Result {
        do {
            return try JSONValueDecoder(rejectUnknownKeys: false).decode(Result.self, from: answer)
        } catch let error as DecodingError {
            throw RPCClientError.invalidResponse("\(method.name) result: \(error.fieldPath): \(error.reason)")
        }
    }

    /// Calls a method by name with untyped params; a JSON-RPC error answer is thrown as ``JSONRPCError``.
    public func call(_ method: String, params: JSONValue?, idempotent: Bool = false,
                     timeout: Duration? = nil) async throws -> JSONValue {
        let id = nextId.add(1, ordering: .relaxed).oldValue
        let request = jsonRPCText(id: id, method: method, params: params.map { params in { $0.write(params) } })
        return try await send(id: id, method: method, request: request, idempotent: idempotent, timeout: timeout)
    }

    /// Sends the request `id` (its whole text) and waits for its answer.
    private func send(id: Int, method: String, request: [UInt8], idempotent: Bool,
                      timeout: Duration?) async throws -> JSONValue {
        let timeout = timeout ?? configuration.timeout
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let call = Call(id: id, method: method, request: request, idempotent: idempotent, timeout: timeout, continuation: continuation)
                let posted = accepting.withLock { accepting in
                    if accepting { mailbox.post(.call(call)) }
                    return accepting
                }
                if !posted { continuation.resume(throwing: RPCClientError.closed) }
                // A task cancelled before this point had its cancel posted ahead of the call, where it found nothing
                // to cancel: cancel again behind the call, or it would wait out its whole timeout.
                else if Task.isCancelled { mailbox.post(.cancel(id)) }
            }
        } onCancel: {
            mailbox.post(.cancel(id))
        }
    }

    /// Sends a notification (no answer is expected).
    public func notify<Params>(_ method: RPCMethod<Params, some Codable & Sendable>, _ params: Params) throws {
        try post(notification: PublishedMessage.notificationBody(method: method.name, params: try JSONValueEncoder().encode(params)))
    }

    /// Sends a notification whose params write themselves (no answer is expected).
    public func notify<Params: JSONWritable>(_ method: RPCMethod<Params, some Codable & Sendable>, _ params: Params) throws {
        try post(notification: PublishedMessage.notificationBody(method: method.name, writing: params, reservingCapacity: 256))
    }

    private func post(notification bytes: [UInt8]) throws {
        let posted = accepting.withLock { accepting in
            if accepting { mailbox.post(.notify(bytes)) }
            return accepting
        }
        guard posted else { throw RPCClientError.closed }
    }

    /// Closes the socket; calls in flight fail with ``RPCClientError/closed``.
    public func close() async {
        accepting.withLock { accepting in
            if accepting { mailbox.post(.stop) }
            accepting = false
        }
        let running = thread.withLock { current in
            defer { current = nil }
            return current
        }
        await running?.joined()
    }

    // MARK: The loop (on the owner thread)

    private func makeSocket() throws(ZMQError) -> Socket {
        let socket = try Socket(context, type: .dealer)
        try socket.setMaxMessageSize(configuration.maxMessageSize)
        try socket.setReconnectInterval(milliseconds: configuration.reconnectInterval)
        try socket.setReconnectIntervalMax(milliseconds: configuration.reconnectIntervalMax)
        try socket.setSendHighWaterMark(100_000)
        try socket.setReceiveHighWaterMark(100_000)
        try configuration.curve?.apply(to: socket)
        let endpoints = EndpointList.split(configuration.endpoint)
        // With several servers, a call waits for a connected one instead of queueing behind one that is down.
        if endpoints.count > 1 { try socket.setImmediate(true) }
        for endpoint in endpoints { try socket.connect(endpoint) }
        return socket
    }

    private struct Pending {
        let call: Call
        var deadline: ContinuousClock.Instant
        var sentAt: ContinuousClock.Instant
        var retriesLeft: Int
        /// libzmq could not take it yet (no connected peer): it is sent again until its deadline.
        var unsent: Bool
    }

    private func run(_ initialSocket: Socket) {
        var socket = initialSocket
        var pending: [Int: Pending] = [:]
        var lastReceive = ContinuousClock.now
        let clock = ContinuousClock()

        func fail(_ id: Int, _ error: any Error) {
            pending.removeValue(forKey: id)?.call.continuation.resume(throwing: error)
        }

        func send(_ bytes: [UInt8]) -> Bool {
            (try? socket.send(bytes, dontWait: true)) ?? false
        }

        loop: while true {
            var poller = Poller()
            let socketIndex = poller.add(socket)
            poller.add(fd: mailbox.waker.fd)
            var timeout = -1
            if let next = pending.values.map(\.deadline).min() {
                let remaining = next - clock.now
                timeout = max(0, Int((remaining / .milliseconds(1)).rounded(.up)))
            }
            // Calls libzmq could not queue yet are tried again every few milliseconds.
            if pending.values.contains(where: \.unsent) { timeout = timeout < 0 ? 10 : min(timeout, 10) }
            _ = try? poller.poll(timeoutMilliseconds: timeout)

            var stopRequested = false
            for command in mailbox.takeAll() {
                switch command {
                case .call(let call):
                    let now = clock.now
                    pending[call.id] = Pending(call: call, deadline: now + call.timeout, sentAt: now,
                                               retriesLeft: call.idempotent ? configuration.retries : 0,
                                               unsent: !send(call.request))
                case .notify(let bytes):
                    _ = send(bytes)
                case .cancel(let id):
                    fail(id, CancellationError())
                case .stop:
                    stopRequested = true
                }
            }
            if stopRequested { break loop }

            if poller.ready(socketIndex).contains(.readable) {
                while let parts = try? socket.receiveParts(dontWait: true) {
                    lastReceive = clock.now
                    guard let body = parts.last, !body.isEmpty else { continue }
                    deliver(body, to: &pending)
                }
            }

            for (id, entry) in pending where entry.unsent {
                if send(entry.call.request) { pending[id]?.unsent = false }
            }

            // Timeouts.
            let now = clock.now
            let expired = pending.values.filter { $0.deadline <= now }.map(\.call.id)
            guard !expired.isEmpty else { continue }
            var remake = false
            for id in expired {
                guard var entry = pending[id] else { continue }
                if entry.retriesLeft > 0 {
                    entry.retriesLeft -= 1
                    entry.deadline = now + entry.call.timeout
                    if lastReceive < entry.sentAt { remake = true }
                    entry.sentAt = now
                    pending[id] = entry
                    if !remake { pending[id]?.unsent = !send(entry.call.request) }
                } else {
                    fail(id, RPCClientError.timeout(method: entry.call.method, endpoint: configuration.endpoint))
                }
            }
            if remake {
                reconnects.add(1, ordering: .relaxed)
                socket.close()
                do {
                    socket = try makeSocket()
                } catch {
                    for id in Array(pending.keys) { fail(id, error) }
                    // Without a socket there is nothing to poll: stop taking calls; the ones posted meanwhile fail below.
                    accepting.withLock { $0 = false }
                    break loop
                }
                for (id, entry) in pending {
                    if entry.call.idempotent {
                        pending[id]?.sentAt = now
                        pending[id]?.unsent = !send(entry.call.request)
                    } else {
                        fail(id, RPCClientError.connectionReset(method: entry.call.method, endpoint: configuration.endpoint))
                    }
                }
            }
        }
        for id in Array(pending.keys) { fail(id, RPCClientError.closed) }
        // Calls posted after the stop.
        for command in mailbox.takeAll() {
            if case .call(let call) = command { call.continuation.resume(throwing: RPCClientError.closed) }
        }
        socket.close()
    }

    private func deliver(_ body: [UInt8], to pending: inout [Int: Pending]) {
        guard let response = try? JSONParser.parse(body) else { return }
        let responses: [JSONValue]
        if case .array(let batch) = response { responses = batch } else { responses = [response] }
        for response in responses {
            guard case .object(let object) = response, let id = object["id"]?.intValue,
                  let entry = pending.removeValue(forKey: id) else { continue }
            if let result = object["result"] {
                entry.call.continuation.resume(returning: result)
            } else if let errorValue = object["error"], let error = JSONRPCError(json: errorValue) {
                entry.call.continuation.resume(throwing: error)
            } else {
                entry.call.continuation.resume(throwing: RPCClientError.invalidResponse("neither result nor error"))
            }
        }
    }
}
