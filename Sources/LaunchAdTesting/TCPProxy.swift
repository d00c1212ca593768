import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Locking

/// A TCP proxy that a test controls, to put a network partition between two processes: it listens on an
/// ephemeral loopback port and forwards every connection to `upstream` (`tcp://HOST:PORT` or `ipc://PATH`).
/// ``cut()`` closes every connection and refuses new ones until ``heal()``.
///
/// Plain POSIX sockets and threads: a listener thread, and two threads per connection (one per direction), so
/// a peer that stops reading never stalls the other direction.
public final class TCPProxy: Stoppable, Sendable {
    /// The port it listens on, on 127.0.0.1.
    public let port: UInt16
    public var endpoint: String { "tcp://127.0.0.1:\(port)" }
    private let upstream: Upstream
    private let listener: Int32
    private let state = Locked(State())

    private struct State {
        var partitioned = false
        var stopped = false
        var nextId = 0
        /// Open connections: both descriptors and how many of their two threads still run.
        var connections: [Int: (client: Int32, server: Int32, running: Int)] = [:]
        var accepted = 0
        var refused = 0
        var forwarded = 0
        /// At most this many bytes a second in each direction of each connection (`nil`: no limit).
        var bytesPerSecond: Int?
        /// Every byte sent upstream, in the order each connection sent them (connections' bytes interleave), when
        /// the proxy records them.
        var sentUpstream: [UInt8]?
    }

    enum Upstream {
        case tcp(host: String, port: UInt16)
        case ipc(path: String)
    }

    public struct ProxyError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Starts listening; connections are forwarded from now on. With `recording`, it keeps what goes upstream
    /// (``sentUpstream``).
    public init(upstream endpoint: String, recording: Bool = false) throws {
        if recording { state.withLock { $0.sentUpstream = [] } }
        if endpoint.hasPrefix("ipc://") {
            let path = String(endpoint.dropFirst(6))
            guard !path.isEmpty, path.utf8.count < 108 else { throw ProxyError(description: "bad ipc path in \(endpoint)") }
            upstream = .ipc(path: path)
        } else if endpoint.hasPrefix("tcp://"), let colon = endpoint.lastIndex(of: ":"),
                  let port = UInt16(endpoint[endpoint.index(after: colon)...]) {
            upstream = .tcp(host: String(endpoint[endpoint.index(endpoint.startIndex, offsetBy: 6)..<colon]), port: port)
        } else {
            throw ProxyError(description: "cannot proxy to \(endpoint): only tcp://HOST:PORT and ipc://PATH")
        }
        let listening = try LoopbackListener { ProxyError(description: $0) }
        (listener, port) = (listening.fd, listening.port)
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// Closes every connection (the peers see them drop) and refuses new ones until ``heal()``.
    public func cut() {
        state.withLock { state in
            state.partitioned = true
            for connection in state.connections.values {
                Self.abort(connection.client)
                Self.abort(connection.server)
            }
        }
    }

    /// Accepts and forwards connections again.
    public func heal() {
        state.withLock { $0.partitioned = false }
    }

    /// Closes everything; the threads end within a poll interval.
    public func stop() {
        cut()
        state.withLock { $0.stopped = true }
    }

    /// Slows every direction of every connection to `bytesPerSecond` (or lifts the limit with `nil`), so a
    /// test can act in the middle of a long transfer.
    public func throttle(bytesPerSecond: Int?) {
        state.withLock { $0.bytesPerSecond = bytesPerSecond.map { max(1, $0) } }
    }

    /// Connections forwarded so far, connections refused while cut, connections open, and bytes forwarded.
    public var counts: (accepted: Int, refused: Int, open: Int, bytes: Int) {
        state.withLock { ($0.accepted, $0.refused, $0.connections.count, $0.forwarded) }
    }

    /// Every byte the proxy's clients sent upstream so far (for tests that look for what went over the wire; with no
    /// CURVE, a JSON-RPC message's text is in it whole when it is no longer than a read).
    public var sentUpstream: [UInt8] {
        state.withLock { $0.sentUpstream ?? [] }
    }

    /// Resets a connection: no lingering, then both directions shut, which wakes the threads polling it. They close
    /// the descriptor themselves, so it is never reused under them.
    private static func abort(_ fd: Int32) {
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        shutdown(fd, Int32(SHUT_RDWR))
    }

    private func acceptLoop() {
        defer { close(listener) }
        while !state.withLock({ $0.stopped }) {
            var poller = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) > 0 else { continue }
            let client = accept(listener, nil, nil)
            guard client >= 0 else { continue }
            let refuse = state.withLock { state -> Bool in
                if state.partitioned || state.stopped { state.refused += 1; return true }
                return false
            }
            if refuse {
                Self.abort(client)
                close(client)
                continue
            }
            guard let server = connectUpstream() else {
                close(client)
                continue
            }
            let id = state.withLock { state -> Int? in
                // Cut while connecting: refuse this one too.
                if state.partitioned || state.stopped { state.refused += 1; return nil }
                state.nextId += 1
                state.accepted += 1
                state.connections[state.nextId] = (client, server, 2)
                return state.nextId
            }
            guard let id else {
                Self.abort(client)
                close(client)
                close(server)
                continue
            }
            Thread.detachNewThread { [self] in pump(id: id, from: client, to: server, upstream: true) }
            Thread.detachNewThread { [self] in pump(id: id, from: server, to: client, upstream: false) }
        }
    }

    private func connectUpstream() -> Int32? {
        switch upstream {
        case .tcp(let host, let port):
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { return nil }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr(host == "localhost" ? "127.0.0.1" : host)
            address.sin_port = port.bigEndian
            let result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            if result != 0 { close(fd); return nil }
            return fd
        case .ipc(let path):
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { return nil }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                let bytes = Array(path.utf8)
                raw.copyBytes(from: bytes)
                raw[bytes.count] = 0
            }
            let result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            if result != 0 { close(fd); return nil }
            return fd
        }
    }

    /// Copies one direction until either side ends or the connection is cut; the second of the pair's threads to
    /// finish closes both descriptors.
    private func pump(id: Int, from source: Int32, to destination: Int32, upstream: Bool) {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        loop: while true {
            var poller = pollfd(fd: source, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, 100)
            if state.withLock({ $0.stopped || $0.connections[id] == nil }) { break }
            if ready == 0 { continue }
            if ready < 0 { if errno == EINTR { continue }; break }
            let count = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            let limit = state.withLock { state -> Int? in
                state.forwarded += count
                if upstream { state.sentUpstream? += buffer[..<count] }
                return state.bytesPerSecond
            }
            if let limit { usleep(UInt32(min(1_000_000, count * 1_000_000 / limit))) }
            var sent = 0
            while sent < count {
                let n = buffer.withUnsafeBytes { send(destination, $0.baseAddress! + sent, count - sent, Int32(MSG_NOSIGNAL)) }
                if n < 0 { if errno == EINTR { continue }; break loop }
                sent += n
            }
        }
        // Either side ended: end the other direction too.
        shutdown(source, Int32(SHUT_RDWR))
        shutdown(destination, Int32(SHUT_RDWR))
        let last = state.withLock { state -> Bool in
            guard var connection = state.connections[id] else { return false }
            connection.running -= 1
            if connection.running == 0 {
                state.connections[id] = nil
                return true
            }
            state.connections[id] = connection
            return false
        }
        if last {
            close(source)
            close(destination)
        }
    }
}
