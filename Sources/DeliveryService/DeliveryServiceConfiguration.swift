import LaunchAdAPI
import LaunchAdRuntime

/// Everything `deliveryd` can be told, with the defaults DESIGN gives.
public struct DeliveryServiceConfiguration: Sendable {
    /// The edge's state and creatives on disk.
    public var cacheDirectory: String = "./deliveryd-cache"
    /// `campaignd`'s sync socket, or several campaignd's, comma-separated: calls go to whichever answers.
    public var campaignSync: String = DefaultEndpoints.campaignSync
    /// `campaignd`'s update stream, or several campaignd's, comma-separated: the edge subscribes to all (the leader
    /// publishes).
    public var campaignUpdates: String = DefaultEndpoints.campaignUpdates
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
    /// received are bounded by this many times ``httpMaxBody``.
    public var httpMaxConnections = 4096
    /// An HTTP connection with no request under way for this long is closed (public and operations addresses).
    public var httpIdleTimeout: Duration = .seconds(30)
    /// A connection whose request head is not complete this long after its first byte (or after the connection
    /// opened, TLS handshake included) is closed (public and operations addresses).
    public var httpHeaderTimeout: Duration = HTTPConnectionPolicy.defaultHeaderTimeout
    /// A request's body must have arrived this long after its head (408 and the connection closed otherwise).
    public var httpBodyTimeout: Duration = .seconds(10)
    public var edgeId: String = "edge-1"
    public var region: String = "local"
    /// Where `imgUrl` in answers points (defaults to the HTTP address).
    public var publicURL: String?
    /// CURVE keys: `edge.key` and `campaignd.pub`.
    public var keysDirectory: String?
    public var insecure = false
    public var readyFile: String?
    /// Memory for the hot creatives' bytes; as much again may hold creatives waiting for a cache folder that refuses
    /// writes.
    public var creativeCacheBytes = 64 * 1024 * 1024
    /// The least ``creativeCacheBytes`` may be.
    public static let minCreativeCacheBytes = 1024 * 1024
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
    /// How often impression, click and skip counts are shipped to campaignd.
    public var reportInterval: Duration = .seconds(2)
    /// Campaigns asked for per snapshot page (campaignd also ends a page at about 4 MiB of them), 1 to 10,000.
    public var snapshotPageSize = SyncAPI.defaultSnapshotPage
    /// Receive high-water mark of the update stream (small values make updates drop, for tests).
    public var updatesHighWaterMark: Int32 = 100_000
    /// How many nice values ahead of the process's other threads the thread that receives and applies the update
    /// stream runs, where the process may lower a nice (root, `CAP_SYS_NICE`, or an `RLIMIT_NICE` such as systemd's
    /// `LimitNICE=` that reaches it); otherwise it runs at the process's, and the log says so once. When a change
    /// reaches many processes on few cores, their threads that apply it get the CPU before those that answer queries
    /// and save (BENCHMARKS.md, "Through relays"). 0 to 20; 0 keeps the thread at the process's nice.
    public var updatesPriority: Int32 = 5
    /// The largest ``updatesPriority``.
    public static let maxUpdatesPriority: Int32 = 20
    /// Saves of the state file are group commits: a change waits this long for others to join it before the save
    /// starts (the answers show it at once; only the save and the acknowledgement wait). Longer, the acknowledgement
    /// and a crash's window grow by as much, and many edges sharing a few cores apply a change before any of them
    /// spends CPU on its save (BENCHMARKS.md, "Through relays").
    public var stateSaveDelay: Duration = .milliseconds(10)
    /// The longest ``stateSaveDelay`` deliveryd takes, in milliseconds: a minute.
    public static let maxStateSaveDelayMilliseconds = 60_000
    /// While changes keep coming, saves are spaced by this on average; up to ``stateSaveBurst`` saves may follow
    /// one another sooner, so a few changes a moment apart are each acknowledged without waiting.
    public var stateSaveInterval: Duration = .milliseconds(250)
    public var stateSaveBurst = 3

    public init() {}
}
