import ArgumentParser
import CampaignConsole
import CampaignStore
import LaunchAdAPI
import LaunchAdRuntime

/// campaignd's words and defaults in the options every daemon shares.
public enum CampaignDefaults: DaemonDefaults {
    public static let program = "campaignd"
    public static let environmentPrefix = "CAMPAIGND"
    public static let httpAddress = DefaultEndpoints.campaignHTTP
    public static let httpAddressHelp = "HTTP address for /metrics and /healthz."
    public static let httpAddresses = "the HTTP and console addresses"
    public static let httpIdleTimeout = 60
    public static let keysHelp = "campaignd.key, admin/*.pub, edges/*.pub, relays/*.pub"
}

/// `campaignd`'s options: each flag with its environment variable, and every check of them. Each option's help is
/// its documentation; `DaemonEnvironment` reads the variable it names.
public struct CampaignOptions: ParsableArguments {
    /// campaignd's `--help` above the options.
    public static let command = CommandConfiguration(
        commandName: CampaignDefaults.program,
        abstract: "The campaign service: campaigns, creatives, the admin API and the change stream.",
        discussion: """
            \(DaemonEnvironment.precedence) A socket bound beyond loopback needs --keys-dir (CURVE) or an explicit --insecure.

            Example:
              campaignd --data-dir /var/lib/campaignd --ready-file /run/campaignd.ready
              campaignd --database postgres://campaignd:secret@db.internal:5432/campaigns   (several may share it)
              campaignd --console-address 127.0.0.1:8400 --console-users /etc/launchad/console-users   (the web console)
            """)

    @OptionGroup public var common: DaemonOptions<CampaignDefaults>
    @Option(help: CampaignDefaults.help("Database and creative files.", "DATA_DIR"))
    public var dataDir = "./campaignd-data"
    @Option(help: CampaignDefaults.help("sqlite (the file in --data-dir), or postgres://USER[:PASS]@HOST:PORT/DB, which several campaignd may share.", "DATABASE"))
    public var database = "sqlite"
    @Option(help: CampaignDefaults.help("Admin ROUTER endpoint.", "ADMIN_ENDPOINT"))
    public var adminEndpoint = DefaultEndpoints.campaignAdmin
    @Option(help: CampaignDefaults.help("Sync ROUTER endpoint for edges.", "SYNC_ENDPOINT"))
    public var syncEndpoint = DefaultEndpoints.campaignSync
    @Option(help: CampaignDefaults.help("Update stream PUB endpoint.", "UPDATES_ENDPOINT"))
    public var updatesEndpoint = DefaultEndpoints.campaignUpdates
    @Option(help: CampaignDefaults.help("The largest image creative (JPEG, PNG, GIF, WebP) accepted, in bytes.", "MAX_CREATIVE_BYTES"))
    public var maxCreativeBytes = 5 * 1024 * 1024
    @Option(help: CampaignDefaults.help("The largest video creative (MP4) accepted, in bytes.", "MAX_VIDEO_BYTES"))
    public var maxVideoBytes = 16 * 1024 * 1024
    @Option(help: CampaignDefaults.help("Bytes of large replies (snapshot pages, changes, creative chunks, long lists) each of the admin and sync sockets holds for peers that have not read them; past it such calls get Busy (-32006).", "MAX_HELD_REPLY_BYTES"))
    public var maxHeldReplyBytes = 256 * 1024 * 1024
    @Option(help: CampaignDefaults.help("Bytes of the update stream queued for one subscriber that does not keep up; past it that subscriber loses messages (and catches up from the change log).", "UPDATES_QUEUE_BYTES"))
    public var updatesQueueBytes = 256 * 1024 * 1024
    @Option(help: CampaignDefaults.help("Forget an edge not heard from for this long (90s, 30m, 24h, 7d; at least 1s): edge.list stops listing it, and adctl stops waiting for it.", "EDGE_RETENTION"))
    public var edgeRetention = "24h"
    @Option(help: CampaignDefaults.help("Keep the hourly counts behind campaign.stats series and app.stats for this long (1h to 3660d; totals are kept for good).", "STATS_RETENTION"))
    public var statsRetention = "90d"
    @Option(help: CampaignDefaults.help("Recompute the serve shares of campaigns with delivery goals this often (1s to 1h; about the edges' report interval).", "PACING_INTERVAL"))
    public var pacingInterval = "10s"
    @Option(help: CampaignDefaults.help("Serve the web console on this host:port (off by default; beyond loopback only with --console-users).", "CONSOLE_ADDRESS"))
    public var consoleAddress = ""
    @Option(help: CampaignDefaults.help("The console's users: a file of name:token lines (tokens of 32 to 512 visible characters, not trivially guessed, such as openssl rand -hex 24 writes).", "CONSOLE_USERS"))
    public var consoleUsers = ""
    @Option(help: CampaignDefaults.help("Failed console sign-ins one client address may make per minute, then 429 with Retry-After.", "CONSOLE_SIGNIN_LIMIT"))
    public var consoleSigninLimit = 10
    @Option(help: CampaignDefaults.help("Failed console sign-ins from all addresses together per minute, then 429 with Retry-After.", "CONSOLE_SIGNIN_LIMIT_ALL"))
    public var consoleSigninLimitAll = 100
    @Flag(help: CampaignDefaults.help("The console is reached over TLS (a proxy in front of it): its session cookie is Secure.", "CONSOLE_TLS"))
    public var consoleTLS = false

    public init() {}

    public func validate() throws {
        do { _ = try DatabaseURL(parsing: database) } catch { throw ValidationError(error.description) }
        guard (1...(64 << 20)).contains(maxCreativeBytes) else {
            throw ValidationError("--max-creative-bytes must be between 1 and 67108864")
        }
        guard (1...(64 << 20)).contains(maxVideoBytes) else { throw ValidationError("--max-video-bytes must be between 1 and 67108864") }
        guard maxHeldReplyBytes >= CampaignServiceConfiguration.minHeldReplyBytes else {
            throw ValidationError("--max-held-reply-bytes must be a number of bytes, at least \(CampaignServiceConfiguration.minHeldReplyBytes)")
        }
        guard updatesQueueBytes >= UpdateStream.largestMessage else {
            throw ValidationError("--updates-queue-bytes must be a number of bytes, at least \(UpdateStream.largestMessage) (the largest message)")
        }
        _ = try retentions()
        _ = try pacingSeconds()
        _ = try console()
    }

    /// `--pacing-interval` in seconds, checked against its bounds.
    func pacingSeconds() throws -> Double {
        guard let seconds = DurationText.seconds(pacingInterval), (1...3600).contains(seconds) else {
            throw ValidationError("--pacing-interval must be a time between 1s and 1h, such as 10s or 1m (got \(pacingInterval))")
        }
        return seconds
    }

    /// `--edge-retention` and `--stats-retention` in seconds, each checked against its bounds.
    func retentions() throws -> (edges: Double, stats: Double) {
        guard let edges = DurationText.seconds(edgeRetention), (1...(366 * 86_400)).contains(edges) else {
            throw ValidationError("--edge-retention must be a time between 1s and 366d, such as 90s, 30m, 24h or 7d (got \(edgeRetention))")
        }
        guard let stats = DurationText.seconds(statsRetention), (3600...PeerNumbers.maxStatsRetention).contains(stats) else {
            throw ValidationError("--stats-retention must be a time between 1h and 3660d, such as 48h, 90d or 400d (got \(statsRetention))")
        }
        return (edges, stats)
    }

    /// The console's configuration from its flags (users read and checked), or `nil` when it is off.
    func console() throws -> ConsoleConfiguration? {
        guard !consoleAddress.isEmpty else {
            if !consoleUsers.isEmpty { throw ValidationError("--console-users needs --console-address") }
            return nil
        }
        do { _ = try HTTPEndpoint.parse(consoleAddress) } catch { throw ValidationError("--console-address: \(error)") }
        var configuration = ConsoleConfiguration(address: consoleAddress)
        if !consoleUsers.isEmpty {
            do { configuration.users = try ConsoleUsers(contentsOf: consoleUsers) } catch { throw ValidationError("--console-users: \(error)") }
        } else if !BindPolicy.isLoopbackAddress(consoleAddress) {
            throw ValidationError("--console-address \(consoleAddress) is beyond loopback: give --console-users, so that only its users can sign in")
        }
        configuration.secureCookies = consoleTLS
        guard (1...100_000).contains(consoleSigninLimit) else { throw ValidationError("--console-signin-limit must be between 1 and 100000") }
        guard (1...1_000_000).contains(consoleSigninLimitAll) else {
            throw ValidationError("--console-signin-limit-all must be between 1 and 1000000")
        }
        configuration.signInLimits = SignInLimits(perAddress: consoleSigninLimit, overall: consoleSigninLimitAll, window: 60)
        return configuration
    }

    /// The service's configuration from these options (the one place that maps one to the other).
    public func configuration() throws -> CampaignServiceConfiguration {
        var configuration = CampaignServiceConfiguration()
        configuration.dataDirectory = dataDir
        configuration.database = try DatabaseURL(parsing: database)
        configuration.adminEndpoint = adminEndpoint
        configuration.syncEndpoint = syncEndpoint
        configuration.updatesEndpoint = updatesEndpoint
        configuration.httpAddress = common.httpAddress
        configuration.httpConnections = common.operatorsHTTP
        configuration.keysDirectory = common.keysDirectory
        configuration.insecure = common.insecure
        configuration.readyFile = common.readyFilePath
        configuration.maxCreativeBytes = maxCreativeBytes
        configuration.maxVideoBytes = maxVideoBytes
        configuration.maxHeldReplyBytes = maxHeldReplyBytes
        configuration.updatesQueueBytes = updatesQueueBytes
        (configuration.edgeRetention, configuration.statsRetention) = try retentions()
        configuration.pacingInterval = .milliseconds(Int64(try pacingSeconds() * 1000))
        configuration.console = try console()
        return configuration
    }
}
