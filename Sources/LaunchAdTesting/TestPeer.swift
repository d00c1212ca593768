import Foundation
import JSONRPC
import ZeroMQ

/// A raw ZeroMQ peer for tests: sends frames exactly as given and reads what comes back, with a deadline.
///
/// Not `Sendable`: use it on the thread (test) that made it.
public final class TestPeer {
    public let socket: Socket
    public let type: SocketType

    /// Connects a socket of `type` (REQ, DEALER, SUB...) to `endpoint`.
    public init(_ context: ZMQContext, type: SocketType, endpoint: String, curve: (serverKey: String, keyPair: CurveKeyPair)? = nil,
                configure: (Socket) throws -> Void = { _ in }) throws {
        self.type = type
        socket = try Socket(context, type: type)
        if let curve { try socket.makeCurveClient(serverKey: curve.serverKey, keyPair: curve.keyPair) }
        try configure(socket)
        try socket.connect(endpoint)
    }

    /// Sends one multipart message.
    public func send(_ parts: [[UInt8]]) throws {
        try socket.send(parts: parts)
    }

    /// Sends one frame of text.
    public func send(_ text: String) throws {
        try socket.send(parts: [Array(text.utf8)])
    }

    /// The next message, or `nil` if none arrives within `timeout`.
    ///
    /// It checks without blocking and sleeps between checks, so that it never holds one of the few threads of
    /// Swift's cooperative pool that the servers under test need.
    public func receive(timeout: Duration = .seconds(5)) async throws -> [[UInt8]]? {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let parts = try socket.receiveParts(dontWait: true) { return parts }
            if ContinuousClock.now >= deadline { return nil }
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    /// Sends `text` as a request and returns the reply body parsed (REQ: one frame; DEALER: last frame).
    /// `nil` when nothing came back in time; `.null` stands for an empty reply frame.
    public func request(_ text: String, timeout: Duration = .seconds(5)) async throws -> JSONValue? {
        switch type {
        case .dealer: try send([[], Array(text.utf8)])
        default: try send(text)
        }
        guard let reply = try await receive(timeout: timeout), let body = reply.last else { return nil }
        if body.isEmpty { return .null }
        return try JSONParser.parse(body)
    }
}

/// Waits until `condition` holds, checking every few milliseconds; `false` if it never did within `timeout`.
///
/// The default is a generous bound, not a claim: in CI an edge's save (at the lowest CPU priority) once took more than
/// 5 s, most likely with its fsync behind the ThreadSanitizer build's writes. A test whose point is how soon something
/// happens says so with its own `timeout`.
public func eventually(timeout: Duration = .seconds(15), _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return try await condition()
}

/// A fresh temporary directory, removed by the caller with ``removeTemporaryDirectory(_:)``.
public func makeTemporaryDirectory(_ prefix: String = "launchad-test") throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Removes a directory made by ``makeTemporaryDirectory(_:)``.
public func removeTemporaryDirectory(_ url: URL) {
    try? FileManager.default.removeItem(at: url)
}

/// Reads `stream` until `done` says so or `timeout` passes; returns what was read (so a lost message fails a
/// test instead of hanging it).
public func collect<T: Sendable>(_ stream: AsyncStream<T>, timeout: Duration = .seconds(20),
                                 until done: @escaping @Sendable ([T]) -> Bool) async -> [T] {
    let reader = Task {
        var items: [T] = []
        for await item in stream {
            items.append(item)
            if done(items) { break }
        }
        return items
    }
    let timer = Task {
        try await Task.sleep(for: timeout)
        reader.cancel()
    }
    let items = await reader.value
    timer.cancel()
    return items
}
