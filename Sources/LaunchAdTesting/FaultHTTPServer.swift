import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Locking

/// A small HTTP/1.1 server that a test scripts, for the faults a real edge does not make on demand: a server that
/// accepts and never answers, a body cut short, bytes that are not what they are named. It listens on an ephemeral
/// loopback port; each connection gets one request and one reply (then `Connection: close`).
///
/// Plain POSIX sockets and a thread per connection, as ``TCPProxy``.
public final class FaultHTTPServer: Stoppable, Sendable {
    /// A request as it arrived.
    public struct Request: Sendable {
        public var method: String
        public var path: String
        /// Header names lowercased.
        public var headers: [String: String]
        public var body: [UInt8]
    }

    /// What to do with a request.
    public enum Reply: Sendable {
        /// A whole response.
        case respond(status: Int, headers: [(String, String)], body: [UInt8])
        /// The headers (with the full `Content-Length`) and only the first `sent` bytes of the body, then the
        /// connection closes.
        case truncate(status: Int, headers: [(String, String)], body: [UInt8], sent: Int)
        /// Read the request and never answer (until the server stops).
        case hang
    }

    public struct ServerError: Error, CustomStringConvertible {
        public let description: String
    }

    public let port: UInt16
    /// `http://127.0.0.1:PORT`.
    public var baseURL: String { "http://127.0.0.1:\(port)" }
    private let listener: Int32
    private let handler: @Sendable (Request) -> Reply
    private let state = Locked(State())

    private struct State {
        var stopped = false
        var requests: [Request] = []
        var open: Set<Int32> = []
    }

    /// Starts listening; `handler` decides each reply.
    public init(_ handler: @escaping @Sendable (Request) -> Reply) throws {
        self.handler = handler
        let listening = try LoopbackListener { ServerError(description: $0) }
        (listener, port) = (listening.fd, listening.port)
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// The requests served so far, in order.
    public var requests: [Request] { state.withLock { $0.requests } }

    /// Stops accepting and closes every connection (a hanging one too); the threads end within a poll interval.
    public func stop() {
        state.withLock { state in
            state.stopped = true
            for fd in state.open { shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }

    /// `bytes` served as a creative is: the whole body, or, for `Range: bytes=N-` (with an `If-Range` naming
    /// `etag`, or none), a 206 from byte N.
    public static func ranged(_ bytes: [UInt8], etag: String, request: Request, contentType: String = "image/png") -> Reply {
        var headers = [("Content-Type", contentType), ("ETag", etag), ("Accept-Ranges", "bytes")]
        if let range = request.headers["range"], request.headers["if-range"].map({ $0 == etag }) ?? true,
           range.hasPrefix("bytes="), range.hasSuffix("-"), let start = Int(range.dropFirst(6).dropLast()), start < bytes.count {
            headers.append(("Content-Range", "bytes \(start)-\(bytes.count - 1)/\(bytes.count)"))
            return .respond(status: 206, headers: headers, body: Array(bytes[start...]))
        }
        return .respond(status: 200, headers: headers, body: bytes)
    }

    private func acceptLoop() {
        defer { close(listener) }
        while !state.withLock({ $0.stopped }) {
            var poller = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) > 0 else { continue }
            let client = accept(listener, nil, nil)
            guard client >= 0 else { continue }
            state.withLock { _ = $0.open.insert(client) }
            Thread.detachNewThread { [self] in serve(client) }
        }
    }

    private func serve(_ fd: Int32) {
        defer {
            state.withLock { _ = $0.open.remove(fd) }
            close(fd)
        }
        guard let request = read(fd) else { return }
        state.withLock { $0.requests.append(request) }
        switch handler(request) {
        case .respond(let status, let headers, let body):
            write(fd, head(status, headers, length: body.count) + body)
        case .truncate(let status, let headers, let body, let sent):
            write(fd, head(status, headers, length: body.count) + body.prefix(sent))
        case .hang:
            while !state.withLock({ $0.stopped }) {
                var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                let ready = poll(&poller, 1, 100)
                if ready > 0 {
                    var byte: UInt8 = 0
                    if recv(fd, &byte, 1, 0) <= 0 { return }  // the client gave up
                }
            }
        }
    }

    private func head(_ status: Int, _ headers: [(String, String)], length: Int) -> [UInt8] {
        var text = "HTTP/1.1 \(status) \(status < 300 ? "OK" : "Error")\r\nContent-Length: \(length)\r\nConnection: close\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        return Array((text + "\r\n").utf8)
    }

    /// One request: the head up to the blank line, then `Content-Length` bytes of body.
    private func read(_ fd: Int32) -> Request? {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        func more() -> Bool {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 5_000) > 0 else { return false }
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return false }
            data += buffer[..<count]
            return true
        }
        var headEnd: Int?
        while headEnd == nil {
            guard more() else { return nil }
            headEnd = data.indices.dropLast(3).first { Array(data[$0..<$0 + 4]) == separator }
        }
        let lines = String(decoding: data[..<headEnd!], as: UTF8.self).components(separatedBy: "\r\n")
        let parts = lines[0].split(separator: " ")
        guard parts.count >= 2 else { return nil }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let length = Int(headers["content-length"] ?? "0") ?? 0
        let start = headEnd! + 4
        while data.count - start < length {
            guard more() else { return nil }
        }
        return Request(method: String(parts[0]), path: String(parts[1]), headers: headers, body: Array(data[start..<start + length]))
    }

    private func write(_ fd: Int32, _ bytes: [UInt8]) {
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL)) }
            if n < 0 { if errno == EINTR { continue }; return }
            sent += n
        }
        shutdown(fd, Int32(SHUT_WR))
    }
}
