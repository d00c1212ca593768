import CZeroMQ
import Synchronization
import Locking

/// A ZAP handler (ZeroMQ RFC 27) that admits CURVE clients only when their public key is listed for the
/// socket's ZAP domain.
///
/// Without a ZAP handler libzmq admits any client that knows a CURVE server's public key, so this handler
/// must be running (``start()``) before any CURVE server socket of the same context binds. A context has
/// at most one handler (it binds `inproc://zeromq.zap.01`). Non-CURVE mechanisms are refused, so a plain
/// client gets nothing from a socket that consults the handler. The admitted key (Z85) becomes the
/// connection's `User-Id` property.
public final class ZAPAuthenticator: Sendable {
    /// What the handler decided for one connection attempt.
    public struct Decision: Sendable, Equatable {
        public var domain: String
        public var address: String
        public var mechanism: String
        public var clientKey: String?
        public var admitted: Bool
    }

    /// The inproc endpoint libzmq sends ZAP requests to.
    public static let endpoint = "inproc://zeromq.zap.01"

    private let allowlists = Locked<[String: Set<String>]>([:])
    private let context: ZMQContext
    private let observer: (@Sendable (Decision) -> Void)?
    private let mailbox: Mailbox<Never>
    private let stopping = Atomic<Bool>(false)
    private let thread = Locked<OwnerThread?>(nil)

    /// Creates a handler for `context`; `observer` hears every decision (for logs and metrics).
    public init(context: ZMQContext, observer: (@Sendable (Decision) -> Void)? = nil) throws(ZMQError) {
        self.context = context
        self.observer = observer
        self.mailbox = try Mailbox()
    }

    /// Replaces the keys admitted in `domain`. Keys must be Z85 public keys; invalid ones are refused.
    public func allow(domain: String, keys: some Sequence<String>) throws(CurveKeyError) {
        var set = Set<String>()
        for key in keys {
            guard CurveKey.isValid(key) else { throw CurveKeyError.invalid(key.count) }
            set.insert(key)
        }
        allowlists.withLock { $0[domain] = set }
    }

    /// The keys admitted in `domain`.
    public func allowed(domain: String) -> Set<String> {
        allowlists.withLock { $0[domain] ?? [] }
    }

    /// Binds the handler's socket and starts answering; returns once requests can be answered.
    public func start() throws(ZMQError) {
        let ready = Handoff<Result<Void, ZMQError>>()
        let started = OwnerThread(name: "zap") { [self] in
            let socket: Socket
            do throws(ZMQError) {
                socket = try Socket(context, type: .rep)
                try socket.bind(Self.endpoint)
            } catch {
                ready.put(.failure(error))
                return
            }
            ready.put(.success(()))
            serve(socket)
            socket.close()
        }
        try ready.take().get()
        thread.withLock { $0 = started }
    }

    /// Stops answering and closes the handler's socket.
    public func stop() {
        stopping.store(true, ordering: .releasing)
        mailbox.wake()
        let running = thread.withLock { current in
            defer { current = nil }
            return current
        }
        running?.join()
    }

    private func serve(_ socket: Socket) {
        var poller = Poller()
        let socketIndex = poller.add(socket)
        poller.add(fd: mailbox.waker.fd)
        while !stopping.load(ordering: .acquiring) {
            guard (try? poller.poll(timeoutMilliseconds: -1)) != nil else { return }
            _ = mailbox.takeAll()
            guard poller.ready(socketIndex).contains(.readable) else { continue }
            while let request = try? socket.receiveParts(dontWait: true) {
                let reply = answer(request)
                _ = try? socket.send(parts: reply)
            }
        }
    }

    /// The reply frames for one ZAP request.
    func answer(_ frames: [[UInt8]]) -> [[UInt8]] {
        // version, request id, domain, address, identity, mechanism, credentials...
        guard frames.count >= 6, frames[0] == Array("1.0".utf8) else {
            let requestId = frames.count > 1 ? frames[1] : []
            return reply(requestId, status: "400", text: "malformed ZAP request", user: "")
        }
        let requestId = frames[1]
        let domain = String(decoding: frames[2], as: UTF8.self)
        let address = String(decoding: frames[3], as: UTF8.self)
        let mechanism = String(decoding: frames[5], as: UTF8.self)
        var clientKey: String?
        if mechanism == "CURVE", frames.count >= 7 {
            clientKey = frames[6].withUnsafeBytes { CurveKey.encode($0) }
        }
        let admitted = clientKey.map { key in allowlists.withLock { $0[domain]?.contains(key) ?? false } } ?? false
        observer?(Decision(domain: domain, address: address, mechanism: mechanism, clientKey: clientKey, admitted: admitted))
        if admitted, let key = clientKey {
            return reply(requestId, status: "200", text: "OK", user: key)
        }
        return reply(requestId, status: "400", text: clientKey == nil ? "CURVE required" : "key not allowed", user: "")
    }

    private func reply(_ requestId: [UInt8], status: String, text: String, user: String) -> [[UInt8]] {
        [Array("1.0".utf8), requestId, Array(status.utf8), Array(text.utf8), Array(user.utf8), []]
    }
}
