import ArgumentParser
import CampaignConsole
import CampaignService
import CampaignStore
import LaunchAdAPI
import LaunchAdRuntime
import Logging
import ZeroMQ

/// `campaignd`: the campaign service. Every flag also reads an environment variable (`CAMPAIGND_...`).
@main
struct CampaignDaemon: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "campaignd",
        abstract: "The campaign service: campaigns, creatives, the admin API and the change stream.",
        discussion: """
            Every option can also be set with the environment variable in brackets. A socket bound beyond \
            loopback needs --keys-dir (CURVE) or an explicit --insecure.

            Example:
              campaignd --data-dir /var/lib/campaignd --ready-file /run/campaignd.ready
              campaignd --database postgres://campaignd:secret@db.internal:5432/campaigns   (several may share it)
              campaignd --console-address 127.0.0.1:8400 --console-users /etc/launchad/console-users   (the web console)
            """)

    @Option(help: "Database and creative files. [CAMPAIGND_DATA_DIR]")
    var dataDir = Environment.string("CAMPAIGND_DATA_DIR", default: "./campaignd-data")
    @Option(help: "sqlite (the file in --data-dir), or postgres://USER[:PASS]@HOST:PORT/DB, which several campaignd may share. [CAMPAIGND_DATABASE]")
    var database = Environment.string("CAMPAIGND_DATABASE", default: "sqlite")
    @Option(help: "Admin ROUTER endpoint. [CAMPAIGND_ADMIN_ENDPOINT]")
    var adminEndpoint = Environment.string("CAMPAIGND_ADMIN_ENDPOINT", default: DefaultEndpoints.campaignAdmin)
    @Option(help: "Sync ROUTER endpoint for edges. [CAMPAIGND_SYNC_ENDPOINT]")
    var syncEndpoint = Environment.string("CAMPAIGND_SYNC_ENDPOINT", default: DefaultEndpoints.campaignSync)
    @Option(help: "Update stream PUB endpoint. [CAMPAIGND_UPDATES_ENDPOINT]")
    var updatesEndpoint = Environment.string("CAMPAIGND_UPDATES_ENDPOINT", default: DefaultEndpoints.campaignUpdates)
    @Option(help: "HTTP address for /metrics and /healthz. [CAMPAIGND_HTTP_ADDRESS]")
    var httpAddress = Environment.string("CAMPAIGND_HTTP_ADDRESS", default: DefaultEndpoints.campaignHTTP)
    @Option(help: "Seconds a connection to the HTTP and console addresses may take to send a request's head, from its first byte (or from the connection's start), at least 1. [CAMPAIGND_HTTP_HEADER_TIMEOUT]")
    var httpHeaderTimeout = Int(Environment.string("CAMPAIGND_HTTP_HEADER_TIMEOUT", default: "10")) ?? -1
    @Option(help: "Seconds a connection to the HTTP and console addresses may stay idle between requests, at least 1. [CAMPAIGND_HTTP_IDLE_TIMEOUT]")
    var httpIdleTimeout = Int(Environment.string("CAMPAIGND_HTTP_IDLE_TIMEOUT", default: "60")) ?? -1
    @Option(help: "CURVE keys: campaignd.key, admin/*.pub, edges/*.pub. [CAMPAIGND_KEYS_DIR]")
    var keysDir: String?
    @Flag(help: "Allow non-loopback binds without CURVE. [CAMPAIGND_INSECURE]")
    var insecure = Environment.flag("CAMPAIGND_INSECURE")
    @Option(help: "Write the bound endpoints here once serving. [CAMPAIGND_READY_FILE]")
    var readyFile: String?
    @Option(help: "The largest image creative (JPEG, PNG, GIF, WebP) accepted, in bytes. [CAMPAIGND_MAX_CREATIVE_BYTES]")
    var maxCreativeBytes = Int(Environment.string("CAMPAIGND_MAX_CREATIVE_BYTES", default: "5242880")) ?? -1
    @Option(help: "The largest video creative (MP4) accepted, in bytes. [CAMPAIGND_MAX_VIDEO_BYTES]")
    var maxVideoBytes = Int(Environment.string("CAMPAIGND_MAX_VIDEO_BYTES", default: "16777216")) ?? -1
    @Option(help: "Bytes of large replies (snapshot pages, changes, creative chunks, long lists) each of the admin and sync sockets holds for peers that have not read them; past it such calls get Busy (-32006). [CAMPAIGND_MAX_HELD_REPLY_BYTES]")
    var maxHeldReplyBytes = Int(Environment.string("CAMPAIGND_MAX_HELD_REPLY_BYTES", default: "268435456")) ?? -1
    @Option(help: "Bytes of the update stream queued for one subscriber that does not keep up; past it that subscriber loses messages (and catches up from the change log). [CAMPAIGND_UPDATES_QUEUE_BYTES]")
    var updatesQueueBytes = Int(Environment.string("CAMPAIGND_UPDATES_QUEUE_BYTES", default: "268435456")) ?? -1
    @Option(help: "Forget an edge not heard from for this long (90s, 30m, 24h, 7d; at least 1s): edge.list stops listing it, and adctl stops waiting for it. [CAMPAIGND_EDGE_RETENTION]")
    var edgeRetention = Environment.string("CAMPAIGND_EDGE_RETENTION", default: "24h")
    @Option(help: "Keep the hourly counts behind campaign.stats series for this long (1h to 3660d; totals are kept for good). [CAMPAIGND_STATS_RETENTION]")
    var statsRetention = Environment.string("CAMPAIGND_STATS_RETENTION", default: "90d")
    @Option(help: "Serve the web console on this host:port (off by default; beyond loopback only with --console-users). [CAMPAIGND_CONSOLE_ADDRESS]")
    var consoleAddress: String?
    @Option(help: "The console's users: a file of name:token lines (tokens of 32 to 512 visible characters, not trivially guessed, such as openssl rand -hex 24 writes). [CAMPAIGND_CONSOLE_USERS]")
    var consoleUsers: String?
    @Option(help: "Failed console sign-ins one client address may make per minute, then 429 with Retry-After. [CAMPAIGND_CONSOLE_SIGNIN_LIMIT]")
    var consoleSigninLimit = Int(Environment.string("CAMPAIGND_CONSOLE_SIGNIN_LIMIT", default: "10")) ?? -1
    @Option(help: "Failed console sign-ins from all addresses together per minute, then 429 with Retry-After. [CAMPAIGND_CONSOLE_SIGNIN_LIMIT_ALL]")
    var consoleSigninLimitAll = Int(Environment.string("CAMPAIGND_CONSOLE_SIGNIN_LIMIT_ALL", default: "100")) ?? -1
    @Flag(help: "The console is reached over TLS (a proxy in front of it): its session cookie is Secure. [CAMPAIGND_CONSOLE_TLS]")
    var consoleTLS = Environment.flag("CAMPAIGND_CONSOLE_TLS")
    @Option(help: "Log format: text or json. [CAMPAIGND_LOG_FORMAT]")
    var logFormat = Environment.string("CAMPAIGND_LOG_FORMAT", default: "text")
    @Option(help: "The least level logged: trace, debug, info, notice, warning, error or critical. [CAMPAIGND_LOG_LEVEL]")
    var logLevel = Environment.string("CAMPAIGND_LOG_LEVEL", default: "info")

    func validate() throws {
        guard LogFormat(rawValue: logFormat) != nil else { throw ValidationError("--log-format must be text or json") }
        guard LogSetup.level(named: logLevel) != nil else { throw ValidationError("--log-level must be \(LogSetup.levelNames) (got \(logLevel))") }
        do { _ = try DatabaseURL(parsing: database) } catch { throw ValidationError(error.description) }
        guard httpHeaderTimeout >= 1 else { throw ValidationError("--http-header-timeout must be a number of seconds, at least 1") }
        guard httpIdleTimeout >= 1 else { throw ValidationError("--http-idle-timeout must be a number of seconds, at least 1") }
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
        guard let retention = DurationText.seconds(edgeRetention), (1...(366 * 86_400)).contains(retention) else {
            throw ValidationError("--edge-retention must be a time between 1s and 366d, such as 90s, 30m, 24h or 7d (got \(edgeRetention))")
        }
        guard let stats = DurationText.seconds(statsRetention), (3600...PeerNumbers.maxStatsRetention).contains(stats) else {
            throw ValidationError("--stats-retention must be a time between 1h and 3660d, such as 48h, 90d or 400d (got \(statsRetention))")
        }
        _ = try console()
    }

    /// The console's configuration from its flags (users read and checked), or `nil` when it is off.
    func console() throws -> ConsoleConfiguration? {
        let usersFile = consoleUsers ?? Environment.value("CAMPAIGND_CONSOLE_USERS")
        guard let address = consoleAddress ?? Environment.value("CAMPAIGND_CONSOLE_ADDRESS") else {
            if usersFile != nil { throw ValidationError("--console-users needs --console-address") }
            return nil
        }
        do { _ = try HTTPEndpoint.parse(address) } catch { throw ValidationError("--console-address: \(error)") }
        var configuration = ConsoleConfiguration(address: address)
        if let path = usersFile {
            do { configuration.users = try ConsoleUsers(contentsOf: path) } catch { throw ValidationError("--console-users: \(error)") }
        } else if !BindPolicy.isLoopbackAddress(address) {
            throw ValidationError("--console-address \(address) is beyond loopback: give --console-users, so that only its users can sign in")
        }
        configuration.secureCookies = consoleTLS
        guard (1...100_000).contains(consoleSigninLimit) else { throw ValidationError("--console-signin-limit must be between 1 and 100000") }
        guard (1...1_000_000).contains(consoleSigninLimitAll) else {
            throw ValidationError("--console-signin-limit-all must be between 1 and 1000000")
        }
        configuration.signInLimits = SignInLimits(perAddress: consoleSigninLimit, overall: consoleSigninLimitAll, window: 60)
        return configuration
    }

    func run() async throws {
        LogSetup.bootstrap(format: LogFormat(rawValue: logFormat) ?? .text, level: LogSetup.level(named: logLevel) ?? .info)
        let logger = Logger(label: "campaignd")
        var configuration = CampaignServiceConfiguration()
        configuration.dataDirectory = dataDir
        configuration.database = try DatabaseURL(parsing: database)
        configuration.adminEndpoint = adminEndpoint
        configuration.syncEndpoint = syncEndpoint
        configuration.updatesEndpoint = updatesEndpoint
        configuration.httpAddress = httpAddress
        configuration.httpConnections = HTTPConnectionPolicy(headerTimeout: .seconds(httpHeaderTimeout), idleTimeout: .seconds(httpIdleTimeout),
                                                                maxConnections: HTTPConnectionPolicy.operatorsMaxConnections)
        configuration.keysDirectory = keysDir ?? Environment.value("CAMPAIGND_KEYS_DIR")
        configuration.insecure = insecure
        configuration.readyFile = readyFile ?? Environment.value("CAMPAIGND_READY_FILE")
        configuration.maxCreativeBytes = maxCreativeBytes
        configuration.maxVideoBytes = maxVideoBytes
        configuration.maxHeldReplyBytes = maxHeldReplyBytes
        configuration.updatesQueueBytes = updatesQueueBytes
        configuration.edgeRetention = DurationText.seconds(edgeRetention) ?? CampaignServiceConfiguration.defaultEdgeRetention
        configuration.statsRetention = DurationText.seconds(statsRetention) ?? CampaignServiceConfiguration.defaultStatsRetention
        configuration.console = try console()
        do {
            let readyFile = configuration.readyFile
            let app = try await CampaignServiceApp(configuration: configuration, logger: logger, onReady: { endpoints in
                if let readyFile {
                    do { try ReadyFile.write(endpoints, to: readyFile) } catch { exitWithError("campaignd", "\(error)") }
                }
                logger.info("ready", metadata: endpoints.mapValues { .string($0) })
            })
            defer { app.close() }
            _ = try app.start()
            try await ServiceRunner.run(app.services, logger: logger)
        } catch let error as RuntimeError {
            exitWithError("campaignd", error.description)
        } catch let error as ZMQError {
            exitWithError("campaignd", error.description)
        } catch let error as DatabaseUnavailable {
            exitWithError("campaignd", error.description)
        }
    }
}
