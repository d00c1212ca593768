import ArgumentParser
import Logging

/// What differs between the daemons in the options they share: their variables' prefix, some defaults and words.
public protocol DaemonDefaults {
    /// The program's name, which labels its logs and begins its errors: `campaignd`.
    static var program: String { get }
    /// The variables' prefix: `CAMPAIGND` for `CAMPAIGND_LOG_LEVEL`.
    static var environmentPrefix: String { get }
    /// `--http-address`'s default.
    static var httpAddress: String { get }
    /// What `--http-address` serves, as its help says it.
    static var httpAddressHelp: String { get }
    /// The addresses the HTTP timeouts apply to, as their help names them ("the HTTP address").
    static var httpAddresses: String { get }
    /// `--http-idle-timeout`'s default, in seconds.
    static var httpIdleTimeout: Int { get }
    /// The files `--keys-dir` holds.
    static var keysHelp: String { get }
}

extension DaemonDefaults {
    /// `text` followed by the variable `suffix` names for this daemon, in brackets: the variable's one declaration,
    /// which `DaemonEnvironment` reads back.
    public static func help(_ text: String, _ suffix: String) -> ArgumentHelp {
        ArgumentHelp("\(text) [\(environmentPrefix)_\(suffix)]")
    }
}

/// The options every daemon takes (HTTP address and its timeouts, CURVE keys, the ready file, logging), declared
/// once with their checks; a daemon's own options take them with `@OptionGroup`. Each option's help is its
/// documentation (and names its variable).
public struct DaemonOptions<Daemon: DaemonDefaults>: ParsableArguments {
    @Option(help: Daemon.help(Daemon.httpAddressHelp, "HTTP_ADDRESS"))
    public var httpAddress = Daemon.httpAddress
    @Option(help: Daemon.help("Seconds a connection to \(Daemon.httpAddresses) may take to send a request's head, from its first byte (or from the connection's start, a TLS handshake included), at least 1.", "HTTP_HEADER_TIMEOUT"))
    public var httpHeaderTimeout = 10
    @Option(help: Daemon.help("Seconds a connection to \(Daemon.httpAddresses) may stay idle between requests, at least 1.", "HTTP_IDLE_TIMEOUT"))
    public var httpIdleTimeout = Daemon.httpIdleTimeout
    @Option(help: Daemon.help("CURVE keys: \(Daemon.keysHelp).", "KEYS_DIR"))
    public var keysDir = ""
    @Flag(help: Daemon.help("Allow sockets beyond loopback without CURVE.", "INSECURE"))
    public var insecure = false
    @Option(help: Daemon.help("Write the bound endpoints here once serving.", "READY_FILE"))
    public var readyFile = ""
    @Option(help: Daemon.help("Log format: text or json.", "LOG_FORMAT"))
    public var logFormat = "text"
    @Option(help: Daemon.help("The least level logged: \(LogSetup.levelNames) (each change an edge or relay applies is a debug line).", "LOG_LEVEL"))
    public var logLevel = "info"

    public init() {}

    public func validate() throws {
        guard LogFormat(rawValue: logFormat) != nil else { throw ValidationError("--log-format must be text or json") }
        guard LogSetup.level(named: logLevel) != nil else { throw ValidationError("--log-level must be \(LogSetup.levelNames) (got \(logLevel))") }
        do { _ = try HTTPEndpoint.parse(httpAddress) } catch { throw ValidationError("--http-address: \(error)") }
        guard httpHeaderTimeout >= 1 else { throw ValidationError("--http-header-timeout must be a number of seconds, at least 1") }
        guard httpIdleTimeout >= 1 else { throw ValidationError("--http-idle-timeout must be a number of seconds, at least 1") }
    }

    /// The CURVE keys' folder, `nil` when none is given.
    public var keysDirectory: String? { keysDir.isEmpty ? nil : keysDir }
    /// Where the bound endpoints go once serving, `nil` when nowhere.
    public var readyFilePath: String? { readyFile.isEmpty ? nil : readyFile }

    /// The HTTP timeouts, for an operators' address (campaignd's and relayd's) that takes a bounded number of connections.
    public var operatorsHTTP: HTTPConnectionPolicy {
        HTTPConnectionPolicy(headerTimeout: .seconds(httpHeaderTimeout), idleTimeout: .seconds(httpIdleTimeout),
                             maxConnections: HTTPConnectionPolicy.operatorsMaxConnections)
    }

    /// Sets up logging as `--log-format` and `--log-level` say (once, at the start of `main`), and answers the
    /// daemon's logger.
    public func bootstrapLogging() -> Logger {
        LogSetup.bootstrap(format: LogFormat(rawValue: logFormat) ?? .text, level: LogSetup.level(named: logLevel) ?? .info)
        return Logger(label: Daemon.program)
    }
}
