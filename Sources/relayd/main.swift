import ArgumentParser
import LaunchAdAPI
import LaunchAdRuntime
import Logging
import RelayService
import ZeroMQ

/// `relayd`: the regional tier between campaignd and the edges. Every flag also reads an environment variable
/// (`RELAYD_...`).
@main
struct RelayDaemon: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "relayd",
        abstract: "The regional relay: follows campaignd (or another relay) and serves the edges below as campaignd does.",
        discussion: """
            Every option can also be set with the environment variable in brackets.

            Example:
              relayd --relay-id relay-eu-1 --region eu-central --cache-dir /var/cache/relayd \\
                --upstream-sync tcp://campaignd-1:7101,tcp://campaignd-2:7101 \\
                --upstream-updates tcp://campaignd-1:7102,tcp://campaignd-2:7102 \\
                --sync-endpoint 'tcp://*:7301' --updates-endpoint 'tcp://*:7302' --keys-dir /etc/relayd/keys
            """)

    @Option(help: "State and creatives on disk. [RELAYD_CACHE_DIR]")
    var cacheDir = Environment.string("RELAYD_CACHE_DIR", default: "./relayd-cache")
    @Option(help: "Upstream's sync endpoint (campaignd's or a relay's), or several, comma-separated. [RELAYD_UPSTREAM_SYNC]")
    var upstreamSync = Environment.string("RELAYD_UPSTREAM_SYNC", default: "tcp://127.0.0.1:7101")
    @Option(help: "Upstream's update stream, or several, comma-separated. [RELAYD_UPSTREAM_UPDATES]")
    var upstreamUpdates = Environment.string("RELAYD_UPSTREAM_UPDATES", default: "tcp://127.0.0.1:7102")
    @Option(help: "Sync ROUTER endpoint for the edges below. [RELAYD_SYNC_ENDPOINT]")
    var syncEndpoint = Environment.string("RELAYD_SYNC_ENDPOINT", default: "tcp://127.0.0.1:7301")
    @Option(help: "Update stream PUB endpoint for the edges below. [RELAYD_UPDATES_ENDPOINT]")
    var updatesEndpoint = Environment.string("RELAYD_UPDATES_ENDPOINT", default: "tcp://127.0.0.1:7302")
    @Option(help: "HTTP address for /metrics and /healthz. [RELAYD_HTTP_ADDRESS]")
    var httpAddress = Environment.string("RELAYD_HTTP_ADDRESS", default: "127.0.0.1:8300")
    @Option(help: "Seconds a connection to the HTTP address may take to send a request's head, from its first byte (or from the connection's start), at least 1. [RELAYD_HTTP_HEADER_TIMEOUT]")
    var httpHeaderTimeout = Int(Environment.string("RELAYD_HTTP_HEADER_TIMEOUT", default: "10")) ?? -1
    @Option(help: "Seconds a connection to the HTTP address may stay idle between requests, at least 1. [RELAYD_HTTP_IDLE_TIMEOUT]")
    var httpIdleTimeout = Int(Environment.string("RELAYD_HTTP_IDLE_TIMEOUT", default: "60")) ?? -1
    @Option(help: "This relay's id. [RELAYD_RELAY_ID]")
    var relayId = Environment.string("RELAYD_RELAY_ID", default: "relay-1")
    @Option(help: "This relay's region. [RELAYD_REGION]")
    var region = Environment.string("RELAYD_REGION", default: "local")
    @Option(help: "CURVE keys: relay.key, campaignd.pub (upstream's), edges/*.pub and relays/*.pub (below). [RELAYD_KEYS_DIR]")
    var keysDir: String?
    @Flag(help: "Allow non-loopback sockets without CURVE. [RELAYD_INSECURE]")
    var insecure = Environment.flag("RELAYD_INSECURE")
    @Option(help: "Write the bound endpoints here once serving. [RELAYD_READY_FILE]")
    var readyFile: String?
    @Option(help: "Changes kept for edges that were away (one away longer takes a snapshot). [RELAYD_CHANGE_WINDOW]")
    var changeWindow = Int(Environment.string("RELAYD_CHANGE_WINDOW", default: "100000")) ?? -1
    @Option(help: "Bytes of changes kept for edges that were away, counted as their campaigns' JSON (the oldest go first past it). [RELAYD_CHANGE_WINDOW_BYTES]")
    var changeWindowBytes = Int(Environment.string("RELAYD_CHANGE_WINDOW_BYTES", default: "268435456")) ?? -1
    @Option(help: "Bytes of large replies (snapshot pages, changes, creative chunks) the sync socket holds for peers that have not read them; past it such calls get Busy (-32006). [RELAYD_MAX_HELD_REPLY_BYTES]")
    var maxHeldReplyBytes = Int(Environment.string("RELAYD_MAX_HELD_REPLY_BYTES", default: "268435456")) ?? -1
    @Option(help: "Bytes of the update stream queued for one subscriber below that does not keep up; past it that subscriber loses messages. [RELAYD_UPDATES_QUEUE_BYTES]")
    var updatesQueueBytes = Int(Environment.string("RELAYD_UPDATES_QUEUE_BYTES", default: "268435456")) ?? -1
    @Option(help: "Receive high-water mark of the upstream update stream, in messages. [RELAYD_UPDATES_HWM]")
    var updatesHwm = Int32(Environment.string("RELAYD_UPDATES_HWM", default: "100000")) ?? -1
    @Option(help: "Nice values ahead of the relay's other threads for the one that applies and passes on the update stream, 0 to 20, where the process may lower a nice (root, CAP_SYS_NICE, LimitNICE=); 0 for none. [RELAYD_UPDATES_PRIORITY]")
    var updatesPriority = Int32(Environment.string("RELAYD_UPDATES_PRIORITY", default: "5")) ?? -1
    @Option(help: "Log format: text or json. [RELAYD_LOG_FORMAT]")
    var logFormat = Environment.string("RELAYD_LOG_FORMAT", default: "text")
    @Option(help: "The least level logged: trace, debug, info, notice, warning, error or critical (each change an edge or relay applies is a debug line). [RELAYD_LOG_LEVEL]")
    var logLevel = Environment.string("RELAYD_LOG_LEVEL", default: "info")

    func validate() throws {
        guard httpHeaderTimeout >= 1 else { throw ValidationError("--http-header-timeout must be a number of seconds, at least 1") }
        guard httpIdleTimeout >= 1 else { throw ValidationError("--http-idle-timeout must be a number of seconds, at least 1") }
        guard LogFormat(rawValue: logFormat) != nil else { throw ValidationError("--log-format must be text or json") }
        guard LogSetup.level(named: logLevel) != nil else { throw ValidationError("--log-level must be \(LogSetup.levelNames) (got \(logLevel))") }
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
        guard updatesHwm >= 1 else { throw ValidationError("--updates-hwm must be at least 1") }
        guard (0...RelayServiceConfiguration.maxUpdatesPriority).contains(updatesPriority) else {
            throw ValidationError("--updates-priority must be a number of nice values, 0 to \(RelayServiceConfiguration.maxUpdatesPriority)")
        }
        guard EdgeID.isValid(relayId) else { throw ValidationError("--relay-id must be \(EdgeID.rule)") }
        guard EdgeRegion.isValid(region) else { throw ValidationError("--region must be \(EdgeRegion.rule)") }
    }

    func run() async throws {
        LogSetup.bootstrap(format: LogFormat(rawValue: logFormat) ?? .text, level: LogSetup.level(named: logLevel) ?? .info)
        let logger = Logger(label: "relayd")
        var configuration = RelayServiceConfiguration()
        configuration.cacheDirectory = cacheDir
        configuration.upstreamSync = upstreamSync
        configuration.upstreamUpdates = upstreamUpdates
        configuration.syncEndpoint = syncEndpoint
        configuration.updatesEndpoint = updatesEndpoint
        configuration.httpAddress = httpAddress
        configuration.httpConnections = HTTPConnectionPolicy(headerTimeout: .seconds(httpHeaderTimeout), idleTimeout: .seconds(httpIdleTimeout),
                                                                maxConnections: HTTPConnectionPolicy.operatorsMaxConnections)
        configuration.relayId = relayId
        configuration.region = region
        configuration.keysDirectory = keysDir ?? Environment.value("RELAYD_KEYS_DIR")
        configuration.insecure = insecure
        configuration.readyFile = readyFile ?? Environment.value("RELAYD_READY_FILE")
        configuration.changeWindow = changeWindow
        configuration.changeWindowBytes = changeWindowBytes
        configuration.maxHeldReplyBytes = maxHeldReplyBytes
        configuration.updatesQueueBytes = updatesQueueBytes
        configuration.updatesHighWaterMark = updatesHwm
        configuration.updatesPriority = updatesPriority
        do {
            let readyFile = configuration.readyFile
            let app = try RelayServiceApp(configuration: configuration, logger: logger, onReady: { endpoints in
                if let readyFile {
                    do { try ReadyFile.write(endpoints, to: readyFile) } catch { exitWithError("relayd", "\(error)") }
                }
                logger.info("ready", metadata: endpoints.mapValues { .string($0) })
            })
            _ = try app.start()
            try await ServiceRunner.run(app.services, logger: logger)
            await app.close()
        } catch let error as RuntimeError {
            exitWithError("relayd", error.description)
        } catch let error as ZMQError {
            exitWithError("relayd", error.description)
        }
    }
}
