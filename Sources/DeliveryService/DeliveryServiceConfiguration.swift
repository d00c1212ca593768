import CampaignFollowing
import LaunchAdAPI
import LaunchAdRuntime

/// Everything `deliveryd` can be told, with the defaults DESIGN gives.
public struct DeliveryServiceConfiguration: Sendable {
    /// How the edge follows campaignd (or a relay): its cache folder, campaignd's sync socket and update stream, the
    /// edge's id (its acknowledgements and reports carry it, `edge.status` answers it) and region, its saves.
    public var following = FollowingConfiguration(cacheDirectory: "./deliveryd-cache", followerId: "edge-1")
    /// Apps, gateways and adload connect here.
    public var clientEndpoint: String = DefaultEndpoints.edgeClient
    /// `POST /rpc`, `GET /launch-ad`, `/creatives/{sha256}`, and `/metrics`, `/healthz` unless ``opsAddress`` is set.
    public var httpAddress: String = DefaultEndpoints.edgeHTTP
    /// `/metrics` and `/healthz` on an address of their own, off the public one.
    public var opsAddress: String?
    /// PEM certificate chain and private key: the HTTP address speaks TLS (HTTP/2 through ALPN, and HTTP/1.1).
    public var tlsCertificate: String?
    public var tlsKey: String?
    /// Requests a second per client address on the public HTTP address (429 past it); `nil` for no limit.
    public var rateLimit: Int?
    /// The largest `POST /rpc` body, the HTTP twin of the client socket's `MAXMSGSIZE`.
    public var httpMaxBody = DeliveryServiceConfiguration.clientMessageLimit
    /// The largest message on the client socket (its `MAXMSGSIZE`).
    public static let clientMessageLimit = 64 * 1024
    /// `POST /rpc` and `GET /launch-ad` requests whole and being answered, over all connections (503 past it). A
    /// request whose body is still coming takes no place: it costs its connection only.
    public var httpMaxInFlight = 512
    /// Connections open at once on the public HTTP address; one more is closed as soon as it is accepted. Bodies being
    /// received are bounded by this many times ``httpMaxBody``, over all connections (an HTTP/2 connection's streams
    /// each receive one; past the bound a body is refused).
    public var httpMaxConnections = 4096
    /// An HTTP connection with no request under way for this long is closed (public and operations addresses).
    public var httpIdleTimeout: Duration = .seconds(30)
    /// A connection whose request head is not complete this long after its first byte (or after the connection
    /// opened, TLS handshake included) is closed (public and operations addresses).
    public var httpHeaderTimeout: Duration = HTTPConnectionPolicy.defaultHeaderTimeout
    /// A request's body must have arrived this long after its head (408 and the connection closed otherwise).
    public var httpBodyTimeout: Duration = .seconds(10)
    /// How long the client socket's answers may still take to reach their clients once a graceful stop has closed it
    /// (``RPCServerConfiguration/shutdownLinger``).
    public var shutdownLinger: Duration = .seconds(2)
    /// Where `imgUrl` in answers points (defaults to the HTTP address).
    public var publicURL: String?
    /// CURVE keys: `edge.key` and `campaignd.pub`.
    public var keysDirectory: String?
    public var insecure = false
    public var readyFile: String?
    /// Memory for what the edge keeps of devices (caps and rotation) and of event ids: a quarter for the event ids,
    /// two thirds of the rest for devices, the least recently reported forgotten first, and the last third for the
    /// allocator's free space between them (`DeviceMemoryBudget.swift` shares it). The devices' file in the cache
    /// folder is bounded by their share too.
    public var deviceMemoryBytes = 256 * 1024 * 1024
    /// The least ``deviceMemoryBytes`` may be.
    public static let minDeviceMemoryBytes = 4 * 1024 * 1024
    /// How often the devices' caps and rotation are saved to the cache folder (when they changed), and so what a
    /// kill can lose of them.
    public var deviceSaveInterval: Duration = .seconds(5)
    /// The most bytes of large replies (64 KiB and more: creative chunks, big batches) that the client socket lets
    /// libzmq hold for clients that have not read them yet; past it, such calls are answered `Busy` (-32006).
    public var maxHeldReplyBytes = 64 * 1024 * 1024
    /// The least ``maxHeldReplyBytes`` may be: room for one whole creative chunk (1 MiB, base64) and its envelope.
    public static let minHeldReplyBytes = 2 * 1024 * 1024
    /// How often impression, click and skip counts are shipped to campaignd (DESIGN: 10 s; pacing's lag follows it).
    public var reportInterval: Duration = .seconds(10)

    public init() {}
}
