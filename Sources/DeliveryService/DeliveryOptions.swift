import ArgumentParser
import CampaignFollowing
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdRuntime

/// deliveryd's words and defaults in the options it shares with the other daemons.
public enum DeliveryDefaults: FollowerDefaults {
    public static let program = "deliveryd"
    public static let environmentPrefix = "DELIVERYD"
    public static let httpAddress = DefaultEndpoints.edgeHTTP
    public static let httpAddressHelp = "HTTP address for POST /rpc, GET /launch-ad, creatives, and /metrics, /healthz unless --ops-address."
    public static let httpAddresses = "the HTTP or ops address"
    public static let httpIdleTimeout = 30
    public static let keysHelp = "edge.key, campaignd.pub"
    public static let role = "edge"
    public static let cacheDir = "./deliveryd-cache"
    public static let maxUpdatesPriority = FollowingConfiguration.maxUpdatesPriority
}

/// `deliveryd`'s options: each flag with its environment variable, and every check of them. Each option's help is
/// its documentation; `DaemonEnvironment` reads the variable it names.
public struct DeliveryOptions: ParsableArguments {
    /// deliveryd's `--help` above the options.
    public static let command = CommandConfiguration(
        commandName: DeliveryDefaults.program,
        abstract: "The edge delivery service: answers apps' launch queries from its copy of the campaigns.",
        discussion: """
            \(DaemonEnvironment.precedence)

            Example:
              deliveryd --edge-id edge-sh-1 --region cn-east --cache-dir /var/cache/deliveryd
            """)

    @OptionGroup public var common: DaemonOptions<DeliveryDefaults>
    @OptionGroup public var following: FollowerOptions<DeliveryDefaults>
    @Option(help: DeliveryDefaults.help("This edge's id.", "EDGE_ID"))
    public var edgeId = "edge-1"
    @Option(help: DeliveryDefaults.help("campaignd's sync endpoint, or several campaignd's, comma-separated.", "CAMPAIGN_SYNC"))
    public var campaignSync = DefaultEndpoints.campaignSync
    @Option(help: DeliveryDefaults.help("campaignd's update stream, or several campaignd's, comma-separated.", "CAMPAIGN_UPDATES"))
    public var campaignUpdates = DefaultEndpoints.campaignUpdates
    @Option(help: DeliveryDefaults.help("Client ROUTER endpoint.", "CLIENT_ENDPOINT"))
    public var clientEndpoint = DefaultEndpoints.edgeClient
    @Option(help: DeliveryDefaults.help("A second HTTP address for /metrics and /healthz, off the public one.", "OPS_ADDRESS"))
    public var opsAddress = ""
    @Option(help: DeliveryDefaults.help("PEM certificate chain: the HTTP address speaks TLS (HTTP/2 through ALPN).", "TLS_CERT"))
    public var tlsCert = ""
    @Option(help: DeliveryDefaults.help("PEM private key of --tls-cert.", "TLS_KEY"))
    public var tlsKey = ""
    @Option(help: DeliveryDefaults.help("Requests a second per client address on the HTTP address, 429 past it; 0 for no limit.", "RATE_LIMIT"))
    public var rateLimit = 0
    @Option(help: DeliveryDefaults.help("Seconds a POST /rpc body may take to arrive after its head (408 and the connection closed past it), at least 1.", "HTTP_BODY_TIMEOUT"))
    public var httpBodyTimeout = 10
    @Option(help: DeliveryDefaults.help("Seconds the answers already made may take to reach their clients once SIGTERM has closed the client socket (a client that reads slowly, or not at all, holds the exit at most this long), 0 to 60.", "SHUTDOWN_LINGER"))
    public var shutdownLinger = 2
    @Option(help: DeliveryDefaults.help("POST /rpc and GET /launch-ad requests being answered at once over all connections (503 past it; a body still coming takes no place), at least 1.", "HTTP_MAX_IN_FLIGHT"))
    public var httpMaxInFlight = 512
    @Option(help: DeliveryDefaults.help("Connections open at once on the HTTP address; one more is closed as soon as it is accepted, at least 1.", "HTTP_MAX_CONNECTIONS"))
    public var httpMaxConnections = 4096
    @Option(help: DeliveryDefaults.help("Base URL of creatives in answers.", "PUBLIC_URL"))
    public var publicUrl = ""
    @Option(help: DeliveryDefaults.help("Bytes of large replies (creative chunks, big batches) held for clients that have not read them; past it such calls get Busy (-32006).", "MAX_HELD_REPLY_BYTES"))
    public var maxHeldReplyBytes = 64 * 1024 * 1024
    @Option(help: DeliveryDefaults.help("Bytes of hot creatives kept in memory, and as many again for creatives waiting for a cache folder that refuses writes; at least 1 MiB.", "CREATIVE_MEMORY_BYTES"))
    public var creativeMemoryBytes = 64 * 1024 * 1024
    @Option(help: DeliveryDefaults.help("Bytes for what the edge keeps of devices (caps, rotation; the least recently reported forgotten first) and of event ids (a quarter); the devices' file is bounded by their share too; at least 4 MiB.", "DEVICE_MEMORY_BYTES"))
    public var deviceMemoryBytes = 256 * 1024 * 1024
    @Option(help: DeliveryDefaults.help("Campaigns per snapshot page, 1 to 10000 (campaignd also ends a page at about 4 MiB).", "SNAPSHOT_PAGE"))
    public var snapshotPage = 1000
    @Option(help: DeliveryDefaults.help("Milliseconds a change waits before the state file is saved and the change acknowledged (changes within it share the save; answers show a change at once), 0 to 60000.", "STATE_SAVE_DELAY"))
    public var stateSaveDelay = 10
    @Option(help: DeliveryDefaults.help("How often the edge ships its counts to campaignd (through relays too), 1s to 1h: what pacing sees of delivery is at most this late.", "REPORT_INTERVAL"))
    public var reportInterval = "10s"

    public init() {}

    public func validate() throws {
        guard rateLimit >= 0 else { throw ValidationError("--rate-limit must be a number of requests a second, 0 for none") }
        guard httpBodyTimeout >= 1 else { throw ValidationError("--http-body-timeout must be a number of seconds, at least 1") }
        guard (0...60).contains(shutdownLinger) else { throw ValidationError("--shutdown-linger must be a number of seconds, 0 to 60") }
        guard httpMaxInFlight >= 1 else { throw ValidationError("--http-max-in-flight must be a number of requests, at least 1") }
        guard httpMaxConnections >= 1 else { throw ValidationError("--http-max-connections must be a number of connections, at least 1") }
        guard maxHeldReplyBytes >= DeliveryServiceConfiguration.minHeldReplyBytes else {
            throw ValidationError("--max-held-reply-bytes must be a number of bytes, at least \(DeliveryServiceConfiguration.minHeldReplyBytes)")
        }
        guard creativeMemoryBytes >= FollowingConfiguration.minCreativeCacheBytes else {
            throw ValidationError("--creative-memory-bytes must be a number of bytes, at least \(FollowingConfiguration.minCreativeCacheBytes)")
        }
        guard deviceMemoryBytes >= DeliveryServiceConfiguration.minDeviceMemoryBytes else {
            throw ValidationError("--device-memory-bytes must be a number of bytes, at least \(DeliveryServiceConfiguration.minDeviceMemoryBytes)")
        }
        guard (1...SyncAPI.maxSnapshotPage).contains(snapshotPage) else {
            throw ValidationError("--snapshot-page must be a number of campaigns, 1 to \(SyncAPI.maxSnapshotPage)")
        }
        guard (0...FollowingConfiguration.maxStateSaveDelayMilliseconds).contains(stateSaveDelay) else {
            throw ValidationError("--state-save-delay must be a number of milliseconds, 0 to \(FollowingConfiguration.maxStateSaveDelayMilliseconds)")
        }
        guard EdgeID.isValid(edgeId) else { throw ValidationError("--edge-id must be \(EdgeID.rule)") }
        _ = try reportSeconds()
    }

    /// The service's configuration from these options (the one place that maps one to the other).
    public func configuration() -> DeliveryServiceConfiguration {
        var configuration = DeliveryServiceConfiguration()
        following.apply(to: &configuration.following)
        configuration.following.upstreamSync = campaignSync
        configuration.following.upstreamUpdates = campaignUpdates
        configuration.clientEndpoint = clientEndpoint
        configuration.httpAddress = common.httpAddress
        configuration.opsAddress = opsAddress.isEmpty ? nil : opsAddress
        configuration.tlsCertificate = tlsCert.isEmpty ? nil : tlsCert
        configuration.tlsKey = tlsKey.isEmpty ? nil : tlsKey
        configuration.rateLimit = rateLimit == 0 ? nil : rateLimit
        configuration.httpIdleTimeout = .seconds(common.httpIdleTimeout)
        configuration.httpHeaderTimeout = .seconds(common.httpHeaderTimeout)
        configuration.httpBodyTimeout = .seconds(httpBodyTimeout)
        configuration.shutdownLinger = .seconds(shutdownLinger)
        configuration.httpMaxInFlight = httpMaxInFlight
        configuration.httpMaxConnections = httpMaxConnections
        configuration.reportInterval = .milliseconds(Int64(((try? reportSeconds()) ?? 10) * 1000))  // validate() refused a bad one
        configuration.following.followerId = edgeId
        configuration.publicURL = publicUrl.isEmpty ? nil : publicUrl
        configuration.keysDirectory = common.keysDirectory
        configuration.insecure = common.insecure
        configuration.readyFile = common.readyFilePath
        configuration.maxHeldReplyBytes = maxHeldReplyBytes
        configuration.following.snapshotPageSize = snapshotPage
        configuration.following.creativeCacheBytes = creativeMemoryBytes
        configuration.deviceMemoryBytes = deviceMemoryBytes
        configuration.following.stateSaveDelay = .milliseconds(stateSaveDelay)
        return configuration
    }

    /// `--report-interval` in seconds, checked against its bounds.
    func reportSeconds() throws -> Double {
        guard let seconds = DurationText.seconds(reportInterval), (1...3600).contains(seconds) else {
            throw ValidationError("--report-interval must be a time between 1s and 1h, such as 5s, 10s or 1m (got \(reportInterval))")
        }
        return seconds
    }
}
