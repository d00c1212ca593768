import ArgumentParser
import DeliveryService
import LaunchAdAPI
import Foundation
import LaunchAdDomain
import LaunchAdRuntime
import Logging
import ZeroMQ

/// `deliveryd`: the edge delivery service. Every flag also reads an environment variable (`DELIVERYD_...`).
@main
struct DeliveryDaemon: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "deliveryd",
        abstract: "The edge delivery service: answers apps' launch queries from its copy of the campaigns.",
        discussion: """
            Every option can also be set with the environment variable in brackets.

            Example:
              deliveryd --edge-id edge-sh-1 --region cn-east --cache-dir /var/cache/deliveryd
            """)

    @Option(help: "State and creatives on disk. [DELIVERYD_CACHE_DIR]")
    var cacheDir = Environment.string("DELIVERYD_CACHE_DIR", default: "./deliveryd-cache")
    @Option(help: "campaignd's sync endpoint, or several campaignd's, comma-separated. [DELIVERYD_CAMPAIGN_SYNC]")
    var campaignSync = Environment.string("DELIVERYD_CAMPAIGN_SYNC", default: DefaultEndpoints.campaignSync)
    @Option(help: "campaignd's update stream, or several campaignd's, comma-separated. [DELIVERYD_CAMPAIGN_UPDATES]")
    var campaignUpdates = Environment.string("DELIVERYD_CAMPAIGN_UPDATES", default: DefaultEndpoints.campaignUpdates)
    @Option(help: "Client ROUTER endpoint. [DELIVERYD_CLIENT_ENDPOINT]")
    var clientEndpoint = Environment.string("DELIVERYD_CLIENT_ENDPOINT", default: DefaultEndpoints.edgeClient)
    @Option(help: "HTTP address for POST /rpc, GET /launch-ad, creatives, and /metrics, /healthz unless --ops-address. [DELIVERYD_HTTP_ADDRESS]")
    var httpAddress = Environment.string("DELIVERYD_HTTP_ADDRESS", default: DefaultEndpoints.edgeHTTP)
    @Option(help: "A second HTTP address for /metrics and /healthz, off the public one. [DELIVERYD_OPS_ADDRESS]")
    var opsAddress: String?
    @Option(help: "PEM certificate chain: the HTTP address speaks TLS (HTTP/2 through ALPN). [DELIVERYD_TLS_CERT]")
    var tlsCert: String?
    @Option(help: "PEM private key of --tls-cert. [DELIVERYD_TLS_KEY]")
    var tlsKey: String?
    @Option(help: "Requests a second per client address on the HTTP address, 429 past it; 0 for no limit. [DELIVERYD_RATE_LIMIT]")
    var rateLimit = Int(Environment.string("DELIVERYD_RATE_LIMIT", default: "0")) ?? -1
    @Option(help: "Seconds a connection to the HTTP or ops address may stay idle between requests, at least 1. [DELIVERYD_HTTP_IDLE_TIMEOUT]")
    var httpIdleTimeout = Int(Environment.string("DELIVERYD_HTTP_IDLE_TIMEOUT", default: "30")) ?? -1
    @Option(help: "Seconds a connection to the HTTP or ops address may take to send a request's head, from its first byte (or from the connection's start, TLS handshake included), at least 1. [DELIVERYD_HTTP_HEADER_TIMEOUT]")
    var httpHeaderTimeout = Int(Environment.string("DELIVERYD_HTTP_HEADER_TIMEOUT", default: "10")) ?? -1
    @Option(help: "Seconds a POST /rpc body may take to arrive after its head (408 and the connection closed past it), at least 1. [DELIVERYD_HTTP_BODY_TIMEOUT]")
    var httpBodyTimeout = Int(Environment.string("DELIVERYD_HTTP_BODY_TIMEOUT", default: "10")) ?? -1
    @Option(help: "POST /rpc and GET /launch-ad requests being answered at once over all connections (503 past it; a body still coming takes no place), at least 1. [DELIVERYD_HTTP_MAX_IN_FLIGHT]")
    var httpMaxInFlight = Int(Environment.string("DELIVERYD_HTTP_MAX_IN_FLIGHT", default: "512")) ?? -1
    @Option(help: "Connections open at once on the HTTP address; one more is closed as soon as it is accepted, at least 1. [DELIVERYD_HTTP_MAX_CONNECTIONS]")
    var httpMaxConnections = Int(Environment.string("DELIVERYD_HTTP_MAX_CONNECTIONS", default: "4096")) ?? -1
    @Option(help: "This edge's id. [DELIVERYD_EDGE_ID]")
    var edgeId = Environment.string("DELIVERYD_EDGE_ID", default: "edge-1")
    @Option(help: "This edge's region. [DELIVERYD_REGION]")
    var region = Environment.string("DELIVERYD_REGION", default: "local")
    @Option(help: "Base URL of creatives in answers. [DELIVERYD_PUBLIC_URL]")
    var publicUrl: String?
    @Option(help: "CURVE keys: edge.key, campaignd.pub. [DELIVERYD_KEYS_DIR]")
    var keysDir: String?
    @Flag(help: "Allow non-loopback connections without CURVE. [DELIVERYD_INSECURE]")
    var insecure = Environment.flag("DELIVERYD_INSECURE")
    @Option(help: "Write the bound endpoints here once serving. [DELIVERYD_READY_FILE]")
    var readyFile: String?
    @Option(help: "Receive high-water mark of the update stream, in messages. [DELIVERYD_UPDATES_HWM]")
    var updatesHwm = Int32(Environment.string("DELIVERYD_UPDATES_HWM", default: "100000")) ?? -1
    @Option(help: "Nice values ahead of the edge's other threads for the one that applies the update stream, 0 to 20, where the process may lower a nice (root, CAP_SYS_NICE, LimitNICE=); 0 for none. [DELIVERYD_UPDATES_PRIORITY]")
    var updatesPriority = Int32(Environment.string("DELIVERYD_UPDATES_PRIORITY", default: "5")) ?? -1
    @Option(help: "Bytes of large replies (creative chunks, big batches) held for clients that have not read them; past it such calls get Busy (-32006). [DELIVERYD_MAX_HELD_REPLY_BYTES]")
    var maxHeldReplyBytes = Int(Environment.string("DELIVERYD_MAX_HELD_REPLY_BYTES", default: "67108864")) ?? -1
    @Option(help: "Bytes of hot creatives kept in memory, and as many again for creatives waiting for a cache folder that refuses writes; at least 1 MiB. [DELIVERYD_CREATIVE_MEMORY_BYTES]")
    var creativeMemoryBytes = Int(Environment.string("DELIVERYD_CREATIVE_MEMORY_BYTES", default: "67108864")) ?? -1
    @Option(help: "Bytes for what the edge keeps of devices (caps, rotation; the least recently reported forgotten first) and of event ids (a quarter); the devices' file is bounded by their share too; at least 4 MiB. [DELIVERYD_DEVICE_MEMORY_BYTES]")
    var deviceMemoryBytes = Int(Environment.string("DELIVERYD_DEVICE_MEMORY_BYTES", default: "268435456")) ?? -1
    @Option(help: "Campaigns per snapshot page, 1 to 10000 (campaignd also ends a page at about 4 MiB). [DELIVERYD_SNAPSHOT_PAGE]")
    var snapshotPage = Int(Environment.string("DELIVERYD_SNAPSHOT_PAGE", default: "1000")) ?? -1
    @Option(help: "Milliseconds a change waits before the state file is saved and the change acknowledged (changes within it share the save; answers show a change at once), 0 to 60000. [DELIVERYD_STATE_SAVE_DELAY]")
    var stateSaveDelay = Int(Environment.string("DELIVERYD_STATE_SAVE_DELAY", default: "10")) ?? -1
    @Option(help: "Log format: text or json. [DELIVERYD_LOG_FORMAT]")
    var logFormat = Environment.string("DELIVERYD_LOG_FORMAT", default: "text")
    @Option(help: "The least level logged: trace, debug, info, notice, warning, error or critical (each change an edge or relay applies is a debug line). [DELIVERYD_LOG_LEVEL]")
    var logLevel = Environment.string("DELIVERYD_LOG_LEVEL", default: "info")

    func validate() throws {
        guard LogFormat(rawValue: logFormat) != nil else { throw ValidationError("--log-format must be text or json") }
        guard LogSetup.level(named: logLevel) != nil else { throw ValidationError("--log-level must be \(LogSetup.levelNames) (got \(logLevel))") }
        guard rateLimit >= 0 else { throw ValidationError("--rate-limit must be a number of requests a second, 0 for none") }
        guard httpIdleTimeout >= 1 else { throw ValidationError("--http-idle-timeout must be a number of seconds, at least 1") }
        guard httpHeaderTimeout >= 1 else { throw ValidationError("--http-header-timeout must be a number of seconds, at least 1") }
        guard httpBodyTimeout >= 1 else { throw ValidationError("--http-body-timeout must be a number of seconds, at least 1") }
        guard httpMaxInFlight >= 1 else { throw ValidationError("--http-max-in-flight must be a number of requests, at least 1") }
        guard httpMaxConnections >= 1 else { throw ValidationError("--http-max-connections must be a number of connections, at least 1") }
        guard updatesHwm >= 1 else { throw ValidationError("--updates-hwm must be at least 1") }
        guard (0...DeliveryServiceConfiguration.maxUpdatesPriority).contains(updatesPriority) else {
            throw ValidationError("--updates-priority must be a number of nice values, 0 to \(DeliveryServiceConfiguration.maxUpdatesPriority)")
        }
        guard maxHeldReplyBytes >= DeliveryServiceConfiguration.minHeldReplyBytes else {
            throw ValidationError("--max-held-reply-bytes must be a number of bytes, at least \(DeliveryServiceConfiguration.minHeldReplyBytes)")
        }
        guard creativeMemoryBytes >= DeliveryServiceConfiguration.minCreativeCacheBytes else {
            throw ValidationError("--creative-memory-bytes must be a number of bytes, at least \(DeliveryServiceConfiguration.minCreativeCacheBytes)")
        }
        guard deviceMemoryBytes >= DeliveryServiceConfiguration.minDeviceMemoryBytes else {
            throw ValidationError("--device-memory-bytes must be a number of bytes, at least \(DeliveryServiceConfiguration.minDeviceMemoryBytes)")
        }
        guard (1...SyncAPI.maxSnapshotPage).contains(snapshotPage) else {
            throw ValidationError("--snapshot-page must be a number of campaigns, 1 to \(SyncAPI.maxSnapshotPage)")
        }
        guard (0...DeliveryServiceConfiguration.maxStateSaveDelayMilliseconds).contains(stateSaveDelay) else {
            throw ValidationError("--state-save-delay must be a number of milliseconds, 0 to \(DeliveryServiceConfiguration.maxStateSaveDelayMilliseconds)")
        }
        guard EdgeID.isValid(edgeId) else { throw ValidationError("--edge-id must be \(EdgeID.rule)") }
        guard EdgeRegion.isValid(region) else { throw ValidationError("--region must be \(EdgeRegion.rule)") }
    }

    func run() async throws {
        HeapPolicy.keepFreedMemory()
        LogSetup.bootstrap(format: LogFormat(rawValue: logFormat) ?? .text, level: LogSetup.level(named: logLevel) ?? .info)
        let logger = {
            var logger = Logger(label: "deliveryd")
            logger[metadataKey: LogField.edgeId] = .string(edgeId)
            return logger
        }()
        var configuration = DeliveryServiceConfiguration()
        configuration.cacheDirectory = cacheDir
        configuration.campaignSync = campaignSync
        configuration.campaignUpdates = campaignUpdates
        configuration.clientEndpoint = clientEndpoint
        configuration.httpAddress = httpAddress
        configuration.opsAddress = opsAddress ?? Environment.value("DELIVERYD_OPS_ADDRESS")
        configuration.tlsCertificate = tlsCert ?? Environment.value("DELIVERYD_TLS_CERT")
        configuration.tlsKey = tlsKey ?? Environment.value("DELIVERYD_TLS_KEY")
        configuration.rateLimit = rateLimit == 0 ? nil : rateLimit
        configuration.httpIdleTimeout = .seconds(httpIdleTimeout)
        configuration.httpHeaderTimeout = .seconds(httpHeaderTimeout)
        configuration.httpBodyTimeout = .seconds(httpBodyTimeout)
        configuration.httpMaxInFlight = httpMaxInFlight
        configuration.httpMaxConnections = httpMaxConnections
        configuration.edgeId = edgeId
        configuration.region = region
        configuration.publicURL = publicUrl ?? Environment.value("DELIVERYD_PUBLIC_URL")
        configuration.keysDirectory = keysDir ?? Environment.value("DELIVERYD_KEYS_DIR")
        configuration.insecure = insecure
        configuration.readyFile = readyFile ?? Environment.value("DELIVERYD_READY_FILE")
        configuration.updatesHighWaterMark = updatesHwm
        configuration.updatesPriority = updatesPriority
        configuration.maxHeldReplyBytes = maxHeldReplyBytes
        configuration.snapshotPageSize = snapshotPage
        configuration.creativeCacheBytes = creativeMemoryBytes
        configuration.deviceMemoryBytes = deviceMemoryBytes
        configuration.stateSaveDelay = .milliseconds(stateSaveDelay)
        do {
            let readyFile = configuration.readyFile
            let app = try DeliveryServiceApp(configuration: configuration, logger: logger, onReady: { endpoints in
                if let readyFile {
                    do { try ReadyFile.write(endpoints, to: readyFile) } catch { exitWithError("deliveryd", "\(error)") }
                }
                logger.info("ready", metadata: endpoints.mapValues { .string($0) })
            })
            _ = try app.start()
            try await ServiceRunner.run(app.services, logger: logger)
        } catch let error as RuntimeError {
            exitWithError("deliveryd", error.description)
        } catch let error as ZMQError {
            exitWithError("deliveryd", error.description)
        }
    }
}
