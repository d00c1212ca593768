import LaunchAdAPI
import LaunchAdRuntime

/// How a daemon follows its upstream (campaignd, or a relay): where it keeps the state and the creatives, whom it
/// follows and as whom, and how it saves. `deliveryd` and `relayd` each hold one in their configuration (`following`),
/// filled from the options they share (`FollowerOptions`, through ``LaunchAdRuntime/FollowerOptions/apply(to:)``) and
/// from their own.
public struct FollowingConfiguration: Sendable {
    /// The state and the creatives on disk, answered (or served) from when upstream is away.
    public var cacheDirectory: String
    /// Upstream's sync socket (campaignd's, or a relay's), or several, comma-separated: calls go to whichever answers.
    public var upstreamSync: String = DefaultEndpoints.campaignSync
    /// Upstream's update stream, or several, comma-separated: the follower subscribes to all (campaignd's leader
    /// publishes).
    public var upstreamUpdates: String = DefaultEndpoints.campaignUpdates
    /// The id the follower's acknowledgements upstream carry: the edge's id, or the relay's.
    public var followerId: String
    /// The follower's region, in its acknowledgements.
    public var region: String = "local"
    /// Campaigns asked for per snapshot page (campaignd also ends a page at about 4 MiB of them), 1 to 10,000.
    public var snapshotPageSize = SyncAPI.defaultSnapshotPage
    /// Memory for the hot creatives' bytes; as much again may hold creatives waiting for a cache folder that refuses
    /// writes.
    public var creativeCacheBytes = 64 * 1024 * 1024
    /// The least ``creativeCacheBytes`` may be.
    public static let minCreativeCacheBytes = 1024 * 1024
    /// Receive high-water mark of the update stream (small values make updates drop, for tests).
    public var updatesHighWaterMark: Int32 = 100_000
    /// How many nice values ahead of the process's other threads the thread that receives and applies the update
    /// stream runs, where the process may lower a nice (root, `CAP_SYS_NICE`, or an `RLIMIT_NICE` such as systemd's
    /// `LimitNICE=` that reaches it); otherwise it runs at the process's, and the log says so once. When a change
    /// reaches many processes on few cores, their threads that apply it get the CPU before those that answer queries
    /// and save (BENCHMARKS.md, "Through relays"). 0 to 20; 0 keeps the thread at the process's nice.
    public var updatesPriority: Int32 = 5
    /// The largest ``updatesPriority``.
    public static let maxUpdatesPriority: Int32 = 20
    /// Saves of the state file are group commits: a change waits this long for others to join it before the save
    /// starts (the answers show it at once; only the save and the acknowledgement wait). Longer, the acknowledgement
    /// and a crash's window grow by as much, and many edges sharing a few cores apply a change before any of them
    /// spends CPU on its save (BENCHMARKS.md, "Through relays").
    public var stateSaveDelay: Duration = .milliseconds(10)
    /// The longest ``stateSaveDelay`` deliveryd takes, in milliseconds: a minute.
    public static let maxStateSaveDelayMilliseconds = 60_000
    /// While changes keep coming, saves are spaced by this on average; up to ``stateSaveBurst`` saves may follow
    /// one another sooner, so a few changes a moment apart are each acknowledged without waiting.
    public var stateSaveInterval: Duration = .milliseconds(250)
    public var stateSaveBurst = 3

    /// The daemon's own default cache folder and id; every other setting starts at its default.
    public init(cacheDirectory: String, followerId: String) {
        self.cacheDirectory = cacheDirectory
        self.followerId = followerId
    }
}

extension FollowerOptions {
    /// Sets what these shared options say (the cache folder, the region, the update stream's thread) in
    /// `configuration`: the one place that maps them, for both daemons.
    public func apply(to configuration: inout FollowingConfiguration) {
        configuration.cacheDirectory = cacheDir
        configuration.region = region
        configuration.updatesHighWaterMark = updatesHwm
        configuration.updatesPriority = updatesPriority
    }
}
