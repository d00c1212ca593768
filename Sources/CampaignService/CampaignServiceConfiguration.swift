import CampaignConsole
import CampaignStore
import LaunchAdAPI
import LaunchAdRuntime

/// Everything `campaignd` can be told, with the defaults DESIGN gives (loopback endpoints, SQLite in a folder).
public struct CampaignServiceConfiguration: Sendable {
    /// Where the database and the creative files live (with SQLite).
    public var dataDirectory: String = "./campaignd-data"
    /// The embedded SQLite file in `dataDirectory`, or a PostgreSQL database several campaignd may share.
    public var database: DatabaseURL = .sqlite
    /// Operators (adctl) connect here.
    public var adminEndpoint: String = DefaultEndpoints.campaignAdmin
    /// Edges take snapshots, changes and creative bytes here, and acknowledge what they applied.
    public var syncEndpoint: String = DefaultEndpoints.campaignSync
    /// Every committed change and a heartbeat each second are published here.
    public var updatesEndpoint: String = DefaultEndpoints.campaignUpdates
    /// `/metrics` and `/healthz`.
    public var httpAddress: String = DefaultEndpoints.campaignHTTP
    /// The header and idle timeouts of the HTTP address and of the console's.
    public var httpConnections = HTTPConnectionPolicy()
    /// CURVE keys: `campaignd.key`, and the admitted clients in `admin/*.pub` and `edges/*.pub`.
    public var keysDirectory: String?
    /// The web console (`--console-address`, `--console-users`), or `nil` for none (the default).
    public var console: ConsoleConfiguration?
    /// Accept binding beyond loopback without CURVE.
    public var insecure = false
    /// Written once serving, naming every endpoint really bound.
    public var readyFile: String?
    /// The largest image (JPEG, PNG, GIF, WebP) accepted, in bytes: 5 MiB holds a full-screen JPEG or PNG of a
    /// 1290x2796 phone several times over, and a launch GIF of a few seconds.
    public var maxCreativeBytes = 5 * 1024 * 1024
    /// The largest video (MP4) accepted, in bytes. A 5 s launch video at 1080x1920 in H.264 runs 3 to 8 MB (5 to 12
    /// Mbit/s, what phones and editors export); 16 MiB takes such a video up to about 25 Mbit/s, or 10 s at 12 Mbit/s,
    /// and still downloads in seconds over 4G, on a phone that keeps 50 MiB of creatives by default (LaunchAdKit's
    /// `cacheBytes`). Images keep their own, smaller limit: an image of 16 MiB is a mistake, not a richer ad.
    public var maxVideoBytes = 16 * 1024 * 1024
    /// The most bytes of large replies (64 KiB and more: snapshot pages, changes, creative chunks, long lists) that
    /// each of the admin and sync sockets lets libzmq hold for peers that have not read them; past it such calls are
    /// answered `Busy` (-32006). A reply larger than the whole bound still goes out while no other is held.
    public var maxHeldReplyBytes = 256 * 1024 * 1024
    /// The least ``maxHeldReplyBytes`` may be: room for a page of snapshot or changes (about 4 MiB) and a chunk.
    public static let minHeldReplyBytes = 8 * 1024 * 1024
    /// The most bytes of the update stream queued for one subscriber that does not keep up (see
    /// ``UpdateStream/largestMessage``); one that falls further behind loses messages and catches up from the log.
    public var updatesQueueBytes = 256 * 1024 * 1024
    /// How often the heartbeat goes out.
    public var heartbeatInterval: Duration = .seconds(1)
    /// How often pacing recomputes the serve shares of campaigns with goals (`--pacing-interval`): about the edges'
    /// report interval, which is how often there is something new to look at.
    public var pacingInterval: Duration = .seconds(10)
    /// Seconds after which an edge not heard from is forgotten: no longer listed by `edge.list`, nor waited for by
    /// `adctl --wait`.
    public var edgeRetention: Double = Self.defaultEdgeRetention

    /// Seconds for which the hourly counts behind `campaign.stats` series are kept (the totals are kept for good).
    public var statsRetention: Double = Self.defaultStatsRetention

    /// 90 days: a quarter of hourly rows, a few per campaign, creative and region each hour.
    public static let defaultStatsRetention: Double = 90 * 86_400

    /// A day: an edge away longer than that was most likely taken away for good.
    public static let defaultEdgeRetention: Double = 86_400

    public init() {}
}

extension CampaignServiceConfiguration {
    /// The largest creative of any kind: what an upload may carry before its kind is known.
    public var largestCreativeBytes: Int { max(maxCreativeBytes, maxVideoBytes) }
}
