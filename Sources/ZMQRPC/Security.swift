import ZeroMQ

/// CURVE settings of a socket that binds (a server or a publisher).
public struct CurveServerOptions: Sendable {
    /// The socket's own key pair; clients must know its public key.
    public var keyPair: CurveKeyPair
    /// The ZAP domain whose allowlist admits clients (see ``ZAPAuthenticator``).
    public var zapDomain: String

    public init(keyPair: CurveKeyPair, zapDomain: String) {
        self.keyPair = keyPair
        self.zapDomain = zapDomain
    }

    func apply(to socket: Socket) throws(ZMQError) {
        try socket.setZAPDomain(zapDomain)
        try socket.makeCurveServer(secretKey: keyPair.secretKey)
    }
}

/// CURVE settings of a socket that connects (a client or a subscriber).
public struct CurveClientOptions: Sendable {
    /// The public key of the server connected to.
    public var serverKey: String
    /// This client's key pair; its public key must be on the server's allowlist.
    public var keyPair: CurveKeyPair

    public init(serverKey: String, keyPair: CurveKeyPair) {
        self.serverKey = serverKey
        self.keyPair = keyPair
    }

    func apply(to socket: Socket) throws(ZMQError) {
        try socket.makeCurveClient(serverKey: serverKey, keyPair: keyPair)
    }
}

/// Whether an endpoint is reachable only from this machine (loopback TCP, IPC or inproc).
///
/// The services refuse to bind anything else without CURVE keys unless told `--insecure`.
public func isLoopbackEndpoint(_ endpoint: String) -> Bool {
    if endpoint.hasPrefix("inproc://") || endpoint.hasPrefix("ipc://") { return true }
    guard endpoint.hasPrefix("tcp://") else { return false }
    var host = String(endpoint.dropFirst("tcp://".count))
    if let colon = host.lastIndex(of: ":") { host = String(host[..<colon]) }
    if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
    if host == "localhost" || host == "::1" { return true }
    let parts = host.split(separator: ".", omittingEmptySubsequences: false)
    return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
}
