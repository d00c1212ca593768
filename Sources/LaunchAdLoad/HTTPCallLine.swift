import Foundation
#if canImport(Glibc)
import Glibc
#endif
import DurableFiles
import JSONRPC
import LaunchAdDomain
import ZeroMQ

/// An edge's `POST /rpc` over one kept-alive HTTP/1.1 connection, with one JSON-RPC call in flight at a time; all on
/// the calling thread, the socket non-blocking so that a poll loop can wait on many.
///
/// It reads what the edge writes (`Content-Length` bodies) and nothing more general: it is a probe, not a client for
/// any server.
final class HTTPCallLine: ProbeLine {
    let endpoint: String
    private let fd: Int32
    private var calls = PendingCall()
    /// Bytes read and not yet taken by a whole response.
    private var buffer: [UInt8] = []
    private var chunk = [UInt8](repeating: 0, count: 16 * 1024)
    /// The largest response head or body it takes.
    private static let limit = 1 << 20

    /// Connects to `address` (`host:port`), waiting at most `timeout` seconds for the connection.
    init(_ address: HTTPAddress, timeout: Double) throws {
        endpoint = address.description
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        let resolved = getaddrinfo(address.host, String(address.port), &hints, &found)
        guard resolved == 0, let first = found else {
            throw PropagationError.edge(address.description, "cannot resolve \(address.host): \(String(cString: gai_strerror(resolved)))")
        }
        defer { freeaddrinfo(first) }
        var connected: Int32 = -1
        var failure = ECONNREFUSED
        var next: UnsafeMutablePointer<addrinfo>? = first
        while let candidate = next, connected < 0 {
            next = candidate.pointee.ai_next
            let flags = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
            let fd = socket(candidate.pointee.ai_family, flags, 0)
            guard fd >= 0 else { failure = errno; continue }
            failure = Self.connect(fd, candidate.pointee.ai_addr, candidate.pointee.ai_addrlen, timeout: timeout)
            if failure == 0 { connected = fd } else { close(fd) }
        }
        guard connected >= 0 else { throw PropagationError.edge(address.description, "cannot connect: \(String(cString: strerror(failure)))") }
        fd = connected
        var on: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Connects the non-blocking `fd`, waiting at most `timeout` seconds; returns 0 or the error number.
    private static func connect(_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t, timeout: Double) -> Int32 {
        if Glibc.connect(fd, address, length) == 0 { return 0 }
        guard errno == EINPROGRESS else { return errno }
        var waiting = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let left = Int32(max(0, min(Double(Int32.max), deadline.timeIntervalSinceNow * 1000).rounded(.up)))
            let ready = poll(&waiting, 1, left)
            if ready > 0 { break }
            if ready == 0 { return ETIMEDOUT }
            if errno != EINTR { return errno }
        }
        var error: Int32 = 0
        var size = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size) == 0 else { return errno }
        return error
    }

    deinit { close(fd) }

    func send(_ method: String, _ params: JSONValue) throws {
        let (id, body) = calls.request(method, params)
        var request = Array("POST /rpc HTTP/1.1\r\nHost: \(endpoint)\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n".utf8)
        request += body
        let now = Timestamp.now()
        // A request of a few hundred bytes with one in flight never fills the socket: a write that fails means the
        // connection is broken.
        guard AtomicFile.writeAll(request, to: fd) else {
            throw PropagationError.edge(endpoint, "cannot send: \(String(cString: strerror(errno)))")
        }
        calls.sent(id, at: now)
    }

    var hasPending: Bool { calls.count > 0 }

    func forget() { calls.forget() }

    func receive() throws -> (result: JSONValue, sentAt: Timestamp)? {
        try readAvailable()
        while let (status, body) = try takeResponse() {
            guard status == 200 else { throw PropagationError.edge(endpoint, "POST /rpc answered HTTP \(status)") }
            if let reply = try body.withUnsafeBytes({ try calls.take($0, endpoint: endpoint) }) { return reply }
        }
        return nil
    }

    func add(to poller: inout Poller) {
        poller.add(fd: fd)
    }

    func call(_ method: String, _ params: JSONValue, timeout: Double) throws -> JSONValue {
        let deadline = Date().addingTimeInterval(timeout)
        try send(method, params)
        return try result(of: method, until: deadline)
    }

    /// Reads whatever the socket holds now.
    private func readAvailable() throws {
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if count > 0 {
                buffer += chunk[..<count]
                guard buffer.count <= 2 * Self.limit else { throw PropagationError.edge(endpoint, "an answer over \(Self.limit) bytes") }
                continue
            }
            if count == 0 { throw PropagationError.edge(endpoint, "the edge closed the connection") }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return
            default: throw PropagationError.edge(endpoint, "cannot read: \(String(cString: strerror(errno)))")
            }
        }
    }

    /// The first whole response in the buffer (taken out of it): its status and body; `nil` until one is whole.
    private func takeResponse() throws -> (status: Int, body: [UInt8])? {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        guard let end = buffer.firstRange(of: separator) else {
            guard buffer.count <= Self.limit else { throw PropagationError.edge(endpoint, "a response head over \(Self.limit) bytes") }
            return nil
        }
        let head = String(decoding: buffer[..<end.lowerBound], as: UTF8.self)
        let lines = head.split(separator: "\r\n", omittingEmptySubsequences: false)
        let statusLine = lines.first?.split(separator: " ", maxSplits: 2) ?? []
        guard statusLine.count >= 2, statusLine[0].hasPrefix("HTTP/1."), let status = Int(statusLine[1]) else {
            throw PropagationError.edge(endpoint, "not an HTTP/1.1 response: \(lines.first ?? "")")
        }
        var length = 0
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if name == "content-length" {
                guard let parsed = Int(value), (0...Self.limit).contains(parsed) else {
                    throw PropagationError.edge(endpoint, "a Content-Length of \(value)")
                }
                length = parsed
            } else if name == "transfer-encoding" {
                throw PropagationError.edge(endpoint, "a \(value) body, where the edge sends a Content-Length")
            }
        }
        let bodyStart = end.upperBound
        guard buffer.count - bodyStart >= length else { return nil }
        let body = Array(buffer[bodyStart..<(bodyStart + length)])
        buffer.removeFirst(bodyStart + length)
        return (status, body)
    }
}

/// An HTTP address, `host:port`.
public struct HTTPAddress: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
