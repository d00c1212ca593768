import ArgumentParser
import CampaignFollowing
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdRuntime

/// relayd's words and defaults in the options it shares with the other daemons.
public enum RelayDefaults: FollowerDefaults {
    public static let program = "relayd"
    public static let environmentPrefix = "RELAYD"
    public static let httpAddress = RelayServiceConfiguration().httpAddress
    public static let httpAddressHelp = "HTTP address for /metrics and /healthz."
    public static let httpAddresses = "the HTTP address"
    public static let httpIdleTimeout = 60
    public static let keysHelp = "relay.key, campaignd.pub (upstream's), edges/*.pub and relays/*.pub (below)"
    public static let role = "relay"
    public static let cacheDir = RelayServiceConfiguration().following.cacheDirectory
    public static let maxUpdatesPriority = FollowingConfiguration.maxUpdatesPriority
}

/// `relayd`'s options: each flag with its environment variable, and every check of them. Each option's help is
/// its documentation; `DaemonEnvironment` reads the variable it names.
public struct RelayOptions: ParsableArguments {
    /// relayd's `--help` above the options.
    public static let command = CommandConfiguration(
        commandName: RelayDefaults.program,
        abstract: "The regional relay: follows campaignd (or another relay) and serves the edges below as campaignd does.",
        discussion: """
            \(DaemonEnvironment.precedence)

            Example:
              relayd --relay-id relay-eu-1 --region eu-central --cache-dir /var/cache/relayd \\
                --upstream-sync tcp://campaignd-1:7101,tcp://campaignd-2:7101 \\
                --upstream-updates tcp://campaignd-1:7102,tcp://campaignd-2:7102 \\
                --sync-endpoint 'tcp://*:7301' --updates-endpoint 'tcp://*:7302' --keys-dir /etc/relayd/keys
            """)

    @OptionGroup public var common: DaemonOptions<RelayDefaults>
    @OptionGroup public var following: FollowerOptions<RelayDefaults>
    @Option(help: RelayDefaults.help("This relay's id.", "RELAY_ID"))
    public var relayId = RelayServiceConfiguration().following.followerId
    @Option(help: RelayDefaults.help("Upstream's sync endpoint (campaignd's or a relay's), or several, comma-separated.", "UPSTREAM_SYNC"))
    public var upstreamSync = DefaultEndpoints.campaignSync
    @Option(help: RelayDefaults.help("Upstream's update stream, or several, comma-separated.", "UPSTREAM_UPDATES"))
    public var upstreamUpdates = DefaultEndpoints.campaignUpdates
    @Option(help: RelayDefaults.help("Sync ROUTER endpoint for the edges below.", "SYNC_ENDPOINT"))
    public var syncEndpoint = RelayServiceConfiguration().syncEndpoint
    @Option(help: RelayDefaults.help("Update stream PUB endpoint for the edges below.", "UPDATES_ENDPOINT"))
    public var updatesEndpoint = RelayServiceConfiguration().updatesEndpoint
    @Option(help: RelayDefaults.help("Changes kept for edges that were away (one away longer takes a snapshot).", "CHANGE_WINDOW"))
    public var changeWindow = 100_000
    @Option(help: RelayDefaults.help("Bytes of changes kept for edges that were away, counted as their campaigns' JSON (the oldest go first past it).", "CHANGE_WINDOW_BYTES"))
    public var changeWindowBytes = 256 * 1024 * 1024
    @Option(help: RelayDefaults.help("Bytes of large replies (snapshot pages, changes, creative chunks) the sync socket holds for peers that have not read them; past it such calls get Busy (-32006).", "MAX_HELD_REPLY_BYTES"))
    public var maxHeldReplyBytes = 256 * 1024 * 1024
    @Option(help: RelayDefaults.help("Bytes of the update stream queued for one subscriber below that does not keep up; past it that subscriber loses messages.", "UPDATES_QUEUE_BYTES"))
    public var updatesQueueBytes = 256 * 1024 * 1024

    public init() {}

    public func validate() throws {
        guard changeWindow >= 1 else { throw ValidationError("--change-window must be a number of changes, at least 1") }
        guard changeWindowBytes >= RelayServiceConfiguration.minChangeWindowBytes else {
            throw ValidationError("--change-window-bytes must be a number of bytes, at least \(RelayServiceConfiguration.minChangeWindowBytes)")
        }
        guard maxHeldReplyBytes >= RelayServiceConfiguration.minHeldReplyBytes else {
            throw ValidationError("--max-held-reply-bytes must be a number of bytes, at least \(RelayServiceConfiguration.minHeldReplyBytes)")
        }
        guard updatesQueueBytes >= UpdateStream.largestMessage else {
            throw ValidationError("--updates-queue-bytes must be a number of bytes, at least \(UpdateStream.largestMessage) (the largest message)")
        }
        guard EdgeID.isValid(relayId) else { throw ValidationError("--relay-id must be \(EdgeID.rule)") }
    }

    /// The service's configuration from these options (the one place that maps one to the other).
    public func configuration() -> RelayServiceConfiguration {
        var configuration = RelayServiceConfiguration()
        following.apply(to: &configuration.following)
        configuration.following.upstreamSync = upstreamSync
        configuration.following.upstreamUpdates = upstreamUpdates
        configuration.syncEndpoint = syncEndpoint
        configuration.updatesEndpoint = updatesEndpoint
        configuration.httpAddress = common.httpAddress
        configuration.httpConnections = common.operatorsHTTP
        configuration.following.followerId = relayId
        configuration.keysDirectory = common.keysDirectory
        configuration.insecure = common.insecure
        configuration.readyFile = common.readyFilePath
        configuration.changeWindow = changeWindow
        configuration.changeWindowBytes = changeWindowBytes
        configuration.maxHeldReplyBytes = maxHeldReplyBytes
        configuration.updatesQueueBytes = updatesQueueBytes
        return configuration
    }
}
