@testable import CampaignFollowing
@testable import DeliveryService
import Foundation
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdTesting
import ZMQRPC

extension CampaignServiceEndpoints {
    /// The service's (or relay's) whole snapshot, through its sync socket.
    func snapshot() async throws -> Snapshot {
        try await withStopping(self.sync()) { sync in try await sync.call(SyncAPI.snapshot, SnapshotParams()) }
    }
}

extension ServesMetrics {
    /// The value of the counter or gauge `series` (a name, or a name and its labels) of its `/metrics` (0 when absent).
    func metric(_ series: String) async throws -> Double {
        try await metrics().value(series) ?? 0
    }
}

/// Whether the edge `name` below `fixture` saves exactly `snapshot` within `timeout` (it writes its state file a moment
/// after it applies, from a thread at the lowest CPU priority: on a machine busy with other work, and a disk slow to
/// fsync, that moment can be seconds).
func edgeSaves(_ snapshot: Snapshot, edge name: String, in fixture: some CampaignServiceEndpoints, timeout: Duration = .seconds(20)) async -> Bool {
    await eventually(timeout: timeout) {
        savedDifference(snapshot, edge: name, in: fixture) == nil
    }
}

/// How the state file of the edge `name` below `fixture` differs from `snapshot`, for a failure's message: its epoch
/// and seq, its number of campaigns, and the first campaign that differs, on each side; `nil` when it holds exactly
/// `snapshot`.
func savedDifference(_ snapshot: Snapshot, edge name: String, in fixture: some CampaignServiceEndpoints) -> String? {
    let (saved, discarded) = StateFile(directory: fixture.cacheDirectory(name)).load()
    let campaigns = saved.campaigns.values.sorted { $0.id < $1.id }
    if saved.epoch == snapshot.epoch && saved.seq == snapshot.seq && campaigns == snapshot.campaigns { return nil }
    var text = "saved epoch \(saved.epoch) seq \(saved.seq) with \(campaigns.count) campaigns\(discarded ? " (a copy did not verify)" : ""); "
        + "expected epoch \(snapshot.epoch) seq \(snapshot.seq) with \(snapshot.campaigns.count)"
    if let index = (0..<min(campaigns.count, snapshot.campaigns.count)).first(where: { campaigns[$0] != snapshot.campaigns[$0] }) {
        text += "; first difference: saved \(campaigns[index]), expected \(snapshot.campaigns[index])"
    }
    return text
}

/// Runs `body` with in-process edges named `names`, each connected to the upstream `upstreams` gives for its index.
func withEdges<T>(_ names: [String], connectedTo upstream: @escaping (Int) -> any CampaignServiceEndpoints,
                  _ body: ([InProcessEdge]) async throws -> T) async throws -> T {
    func nest(_ index: Int, _ edges: [InProcessEdge]) async throws -> T {
        guard index < names.count else { return try await body(edges) }
        return try await withEdge(names[index], connectedTo: upstream(index)) { edge in
            try await nest(index + 1, edges + [edge])
        }
    }
    return try await nest(0, [])
}
