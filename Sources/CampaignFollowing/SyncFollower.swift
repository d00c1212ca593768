import LaunchAdAPI
import LaunchAdDomain

/// Hears what the sync engine does to the state, in the order it does it, on the engine's task: a relay serves the
/// same changes to the edges below it (its update stream and change-log window) from these calls. An edge has none.
public protocol SyncFollower: Sendable {
    /// `changes` (in `seq` order, following on from the state before) were applied, making `state`.
    func applied(_ changes: [Change], making state: EdgeState)
    /// The state was replaced whole (a snapshot: another epoch, or a change log that no longer reached back).
    func replaced(by state: EdgeState)
    /// A heartbeat from upstream, once the engine has handled it (caught up when it was ahead).
    func heard(_ heartbeat: Heartbeat, state: EdgeState)
}
