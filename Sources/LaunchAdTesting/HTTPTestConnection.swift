import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One response read by ``HTTPTestConnection``.
public struct HTTPTestResponse: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    /// The first value of the header `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    public var text: String { String(decoding: body, as: UTF8.self) }
}

/// A plain HTTP/1.1 client over one TCP connection, byte for byte what a test writes: for keep-alive, pipelining,
/// malformed requests and slow or silent peers. Blocking POSIX calls with timeouts; each test owns its connections.
public final class HTTPTestConnection {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    private let fd: Int32
    private var pending: [UInt8] = []
    public private(set) var closedByPeer = false

    /// Connects to `address` (`host:port`, an IPv4 host), from the local IPv4 address `source` when one is given (any
    /// of 127.0.0.0/8 on loopback, so that a test can be several clients).
    public init(_ address: String, from source: String? = nil) throws {
        guard let colon = address.lastIndex(of: ":"), let port = UInt16(address[address.index(after: colon)...]) else {
            throw Failure(description: "bad address \(address)")
        }
        let host = String(address[..<colon])
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        if let source {
            try Self.attach(fd, "bind to \(source)", host: source, port: 0, bind)
        }
        try Self.attach(fd, "connect to \(address)", host: host == "localhost" ? "127.0.0.1" : host, port: port, connect)
    }

    /// Runs `call` (`bind` or `connect`) on `fd` with the IPv4 address `host:port`; on failure closes `fd` and throws
    /// `what` with the errno.
    private static func attach(_ fd: Int32, _ what: String, host: String, port: UInt16,
                               _ call: (Int32, UnsafePointer<sockaddr>, socklen_t) -> Int32) throws {
        var sin = sockaddr_in()
        sin.sin_family = sa_family_t(AF_INET)
        sin.sin_port = port.bigEndian
        inet_pton(AF_INET, host, &sin.sin_addr)
        let result = withUnsafePointer(to: &sin) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { call(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            let code = errno
            Glibc.close(fd)
            throw Failure(description: "\(what): errno \(code)")
        }
    }

    deinit { Glibc.close(fd) }

    /// A request's bytes: the request line, `Host`, the headers given, and `Content-Length` when there is a body.
    public static func request(_ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8]? = nil) -> [UInt8] {
        var text = "\(method) \(target) HTTP/1.1\r\nHost: edge\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        if let body { text += "Content-Length: \(body.count)\r\n" }
        text += "\r\n"
        return Array(text.utf8) + (body ?? [])
    }

    /// A `POST /rpc` of `body` as JSON.
    public static func rpc(_ body: String, contentType: String = "application/json") -> [UInt8] {
        request("POST", "/rpc", headers: [("Content-Type", contentType)], body: Array(body.utf8))
    }

    /// Writes all of `bytes` (false when the peer has gone).
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { return false }
            offset += sent
        }
        return true
    }

    /// Reads more bytes within `deadline`; false on timeout or when the peer closed.
    private func fill(until deadline: ContinuousClock.Instant) -> Bool {
        let left = deadline - .now
        guard left > .zero else { return false }
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(max(1, left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000))
        guard poll(&poller, 1, milliseconds) > 0 else { return false }
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else {
            closedByPeer = true
            return false
        }
        pending.append(contentsOf: chunk[..<count])
        return true
    }

    /// The next response (a 1xx one too), or `nil` when none came complete within `timeout`.
    public func response(timeout: Duration = .seconds(5), bodyless: Bool = false) -> HTTPTestResponse? {
        let deadline = ContinuousClock.now + timeout
        var headerEnd: Int?
        while headerEnd == nil {
            headerEnd = Self.find(pending, [13, 10, 13, 10])
            if headerEnd == nil && !fill(until: deadline) { return nil }
        }
        let head = String(decoding: pending[..<headerEnd!], as: UTF8.self).components(separatedBy: "\r\n")
        let statusFields = head[0].split(separator: " ")
        guard statusFields.count >= 2, let status = Int(statusFields[1]) else { return nil }
        var headers: [(name: String, value: String)] = []
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        let length = bodyless || status < 200 || status == 204 || status == 304
            ? 0 : headers.first { $0.name.lowercased() == "content-length" }.flatMap { Int($0.value) } ?? 0
        let start = headerEnd! + 4
        while pending.count < start + length {
            if !fill(until: deadline) { return nil }
        }
        let response = HTTPTestResponse(status: status, headers: headers, body: Array(pending[start..<(start + length)]))
        pending.removeFirst(start + length)
        return response
    }

    /// Whether the peer closes the connection within `timeout` (reading and dropping what it sends meanwhile).
    public func closes(within timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !closedByPeer {
            if !fill(until: deadline) && !closedByPeer { return false }
        }
        return true
    }

    private static func find(_ bytes: [UInt8], _ pattern: [UInt8]) -> Int? {
        guard bytes.count >= pattern.count else { return nil }
        for index in 0...(bytes.count - pattern.count) where bytes[index] == pattern[0] && Array(bytes[index..<(index + pattern.count)]) == pattern {
            return index
        }
        return nil
    }
}
