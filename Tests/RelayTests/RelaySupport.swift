@testable import DeliveryService
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdTesting
import ZMQRPC

extension CampaignServiceEndpoints {
    /// The service's (or relay's) whole snapshot, through its sync socket.
    func snapshot() async throws -> Snapshot {
        let sync = try self.sync()
        defer { Task { await sync.close() } }
        return try await sync.call(SyncAPI.snapshot, SnapshotParams())
    }

    /// The value of a counter or gauge of its `/metrics` whose line starts with `prefix` (0 when absent).
    func metric(_ prefix: String) async throws -> Double {
        let (body, _) = try await URLSession.shared.data(from: URL(string: "http://\(endpoints["http"]!)/metrics")!)
        let line = String(decoding: body, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix(prefix) }
        return line.flatMap { $0.split(separator: " ").last.flatMap { Double($0) } } ?? 0
    }
}

/// What an edge saved in its cache folder, verified as the edge reads it at start.
func savedState(_ directory: URL) -> EdgeState {
    StateFile(directory: directory).load().state
}

/// Whether the edge `name` below `fixture` saves exactly `snapshot` within `timeout` (it writes its state file a moment
/// after it applies).
func edgeSaves(_ snapshot: Snapshot, edge name: String, in fixture: some CampaignServiceEndpoints, timeout: Duration = .seconds(5)) async -> Bool {
    await eventually(timeout: timeout) {
        let saved = savedState(fixture.cacheDirectory(name))
        return saved.epoch == snapshot.epoch && saved.seq == snapshot.seq && saved.campaigns.values.sorted { $0.id < $1.id } == snapshot.campaigns
    }
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
