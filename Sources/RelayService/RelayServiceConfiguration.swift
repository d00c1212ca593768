import CampaignFollowing
import LaunchAdAPI
import LaunchAdRuntime

/// Everything `relayd` can be told (DESIGN's "relayd: the regional tier").
public struct RelayServiceConfiguration: Sendable {
    /// How the relay follows upstream (campaignd, or another relay) as an edge does: its cache folder (served from
    /// when upstream is away), upstream's sockets, the relay's id (its own acknowledgements upstream carry it, and it
    /// is put in front of the `via` of those it passes on) and region.
    public var following = FollowingConfiguration(cacheDirectory: "./relayd-cache", followerId: "relay-1")
    /// The sync ROUTER the edges (and relays) below connect to.
    public var syncEndpoint = "tcp://127.0.0.1:7301"
    /// The update stream PUB the edges (and relays) below subscribe to.
    public var updatesEndpoint = "tcp://127.0.0.1:7302"
    /// `/metrics` and `/healthz`.
    public var httpAddress = "127.0.0.1:8300"
    /// The HTTP address's header and idle timeouts.
    public var httpConnections = HTTPConnectionPolicy()
    /// CURVE keys: `relay.key` (the relay's pair, upstream and below), `campaignd.pub` (upstream's server key),
    /// `edges/EDGE_ID.pub` and `relays/RELAY_ID.pub` (who may connect below).
    public var keysDirectory: String?
    public var insecure = false
    public var readyFile: String?
    /// Changes kept for `sync.changes`: an edge away for fewer catches up from the relay, one away longer takes a
    /// snapshot.
    public var changeWindow = 100_000
    /// The most bytes of changes kept for `sync.changes`, counted as their campaigns' JSON: the oldest go first past it,
    /// as past ``changeWindow``.
    public var changeWindowBytes = 256 * 1024 * 1024
    /// The least ``changeWindowBytes`` may be: a page of changes.
    public static let minChangeWindowBytes = SyncAPI.maxPageBytes
    /// The most bytes of large replies (snapshot pages, changes, creative chunks) the sync socket lets libzmq hold for
    /// peers that have not read them; past it such calls are answered `Busy` (-32006), as campaignd's.
    public var maxHeldReplyBytes = 256 * 1024 * 1024
    /// The least ``maxHeldReplyBytes`` may be: room for a page of snapshot or changes (about 4 MiB) and a chunk.
    public static let minHeldReplyBytes = 8 * 1024 * 1024
    /// The most bytes of the update stream queued for one subscriber that does not keep up, as campaignd's.
    public var updatesQueueBytes = 256 * 1024 * 1024

    public init() {}
}
