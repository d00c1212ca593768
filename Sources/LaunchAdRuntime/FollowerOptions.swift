import ArgumentParser
import LaunchAdAPI
import LaunchAdDomain

/// What differs between deliveryd and relayd in the options of following an upstream they share.
public protocol FollowerDefaults: DaemonDefaults {
    /// What the daemon is, in its help: "edge" or "relay".
    static var role: String { get }
    /// `--cache-dir`'s default.
    static var cacheDir: String { get }
    /// The most nice values `--updates-priority` takes (its configuration's bound).
    static var maxUpdatesPriority: Int32 { get }
}

/// The options of a daemon that follows campaignd or a relay (deliveryd, relayd): its cache, its region and its
/// update stream's thread, declared once with their checks. Each option's help is its documentation.
public struct FollowerOptions<Daemon: FollowerDefaults>: ParsableArguments {
    @Option(help: Daemon.help("State and creatives on disk.", "CACHE_DIR"))
    public var cacheDir = Daemon.cacheDir
    @Option(help: Daemon.help("This \(Daemon.role)'s region.", "REGION"))
    public var region = "local"
    @Option(help: Daemon.help("Receive high-water mark of the update stream from upstream, in messages.", "UPDATES_HWM"))
    public var updatesHwm: Int32 = 100_000
    @Option(help: Daemon.help("Nice values ahead of the \(Daemon.role)'s other threads for the one that applies the update stream (and a relay passes it on), 0 to \(Daemon.maxUpdatesPriority), where the process may lower a nice (root, CAP_SYS_NICE, LimitNICE=); 0 for none.", "UPDATES_PRIORITY"))
    public var updatesPriority: Int32 = 5

    public init() {}

    public func validate() throws {
        guard updatesHwm >= 1 else { throw ValidationError("--updates-hwm must be at least 1") }
        guard (0...Daemon.maxUpdatesPriority).contains(updatesPriority) else {
            throw ValidationError("--updates-priority must be a number of nice values, 0 to \(Daemon.maxUpdatesPriority)")
        }
        guard Region.isValid(region) else { throw ValidationError("--region must be \(Region.rule)") }
    }
}
