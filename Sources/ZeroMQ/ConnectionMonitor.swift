import CZeroMQ
import Foundation
import Locking

/// The connections a bound socket holds and the peers they come from, from libzmq's socket monitor
/// (`zmq_socket_monitor`): each accepted connection counts until it is disconnected, and belongs to its peer, the
/// process at the other end of an IPC connection (its pid, from `SO_PEERCRED`) or the host at the other end of a TCP
/// one (its address). So a service sees how many processes (or hosts) it serves, apart from how many connections
/// each holds. Read from any thread.
public final class ConnectionMonitor: Sendable {
    /// A short name for the thread.
    public let name: String
    /// The open connections by their file descriptor, each with its peer.
    private let open = Locked<[Int32: String]>([:])

    public init(name: String) {
        self.name = name
    }

    /// Connections the socket holds now.
    public var connections: Int { open.withLock { $0.count } }

    /// Distinct peers (processes over IPC, hosts over TCP) holding them.
    public var peers: Int { open.withLock { Set($0.values).count } }

    /// Starts watching `socket`, which must be one of `context` and owned by the calling thread; call it before the
    /// socket binds, so that no connection is missed. The monitor runs until the socket is closed.
    public func watch(_ socket: Socket, context: ZMQContext) throws(ZMQError) {
        let endpoint = "inproc://launchad.monitor.\(name).\(UUID().uuidString)"
        let events = ZMQ_EVENT_ACCEPTED | ZMQ_EVENT_DISCONNECTED | ZMQ_EVENT_MONITOR_STOPPED
        try check(zmq_socket_monitor(socket.handle, endpoint, events), "zmq_socket_monitor \(name)")
        // The monitor's own socket is connected before this returns: events from the first connection on are kept.
        let ready = Handoff<Result<Void, ZMQError>>()
        _ = OwnerThread(name: "mon-\(name)") { [self] in
            let monitor: Socket
            do throws(ZMQError) {
                monitor = try Socket(context, type: .pair)
                try monitor.connect(endpoint)
            } catch {
                ready.put(.failure(error))
                return
            }
            ready.put(.success(()))
            follow(monitor)
            monitor.close()
        }
        try ready.take().get()
    }

    /// Reads events until the monitored socket is closed (or the context terminated).
    private func follow(_ monitor: Socket) {
        while let frames = try? monitor.receiveParts(), let header = frames.first, header.count >= 6 {
            let event = header.withUnsafeBytes { Int32($0.loadUnaligned(as: UInt16.self)) }
            let value = header.withUnsafeBytes { Int32(bitPattern: $0.loadUnaligned(fromByteOffset: 2, as: UInt32.self)) }
            switch event {
            case ZMQ_EVENT_ACCEPTED:
                // The value is the connection's descriptor. Should it already be closed (and reused), its
                // disconnection follows and clears what is recorded here.
                let peer = Self.peer(of: value)
                open.withLock { $0[value] = peer }
            case ZMQ_EVENT_DISCONNECTED:
                _ = open.withLock { $0.removeValue(forKey: value) }
            case ZMQ_EVENT_MONITOR_STOPPED:
                open.withLock { $0.removeAll() }
                return
            default:
                continue
            }
        }
    }

    /// Who is at the other end of the connected socket `fd`: `pid N` over IPC, the address over TCP.
    static func peer(of fd: Int32) -> String {
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) }
        }
        guard named == 0 else { return "fd \(fd)" }
        if Int32(address.ss_family) == AF_UNIX {
            // struct ucred: pid, uid, gid.
            var credentials: (pid: Int32, uid: UInt32, gid: UInt32) = (0, 0, 0)
            var size = socklen_t(MemoryLayout.size(ofValue: credentials))
            guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &size) == 0 else { return "fd \(fd)" }
            return "pid \(credentials.pid)"
        }
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        let found = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                getnameinfo($0, length, &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST)
            }
        }
        guard found == 0 else { return "fd \(fd)" }
        return String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
