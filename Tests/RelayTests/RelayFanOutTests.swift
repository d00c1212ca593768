import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdTesting
import Testing
import ZMQRPC

/// campaignd, 4 relayd and 40 deliveryd as real processes (the issue's "campaignd sees only its relays"): campaignd
/// serves 4 followers whatever the number of edges. The processes start all at once; the test takes about 7 s on two
/// busy cores (debug builds), and each wait below allows 30 s.
@Suite("campaignd behind four relays and forty edges", .timeLimit(.minutes(2)))
struct RelayFanOutTests {
    static let relayCount = 4
    static let edgesPerRelay = 10

    @Test("every edge converges on each change; campaignd's sync and update sockets serve exactly the 4 relays, each relay its 10 edges; a new epoch costs campaignd 4 snapshots, not 40")
    func fourRelaysFortyEdges() async throws {
        try await withStopping(CampaignFixture()) { fixture in
            let admin = try fixture.admin()
            let creative = try await fixture.uploadPNG(admin)
            let created = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "a", creative: creative))
            let relays = try await concurrently((0..<Self.relayCount).map { "relay-\($0)" }) { try await fixture.startRelay($0) }
            let edges = try await concurrently(Array(0..<Self.relayCount * Self.edgesPerRelay)) { index in
                let relay = relays[index % Self.relayCount]
                return try await fixture.startEdge("edge-\(index)", sync: relay.endpoints["sync"], updates: relay.endpoints["updates"])
            }
            try await expectConverged(edges, on: created.seq, creatives: 1)

            // A change reaches every edge.
            let forced = try await admin.call(AdminAPI.campaignForce, CampaignID(id: created.campaign.id))
            try await expectConverged(edges, on: forced.seq)
            #expect(try await edges.concurrentlyAll { try await $0.query().id == created.campaign.id })

            // Who holds campaignd's sockets: the relays alone. Each relay holds a few sync connections and one update
            // subscription; the edges hold theirs on their relays. (The test's own clients use campaignd's admin socket
            // and its HTTP address only.)
            try await expectPeers(fixture, Self.relayCount, "campaignd")
            for relay in relays { try await expectPeers(relay, Self.edgesPerRelay, relay.name) }

            // The edges' acknowledgements go upstream batched: each relay's ten edges acknowledge every heartbeat within
            // moments of each other, and the relay passes several in one call (in the debug builds here, 30 in 3 calls on a
            // quiet machine and 42 in 9 to 16 on a busy one; one call each without batching). Counted over three heartbeats.
            @Sendable func acks(_ relay: RelayProcess) async throws -> (passed: Double, batches: Double) {
                (try await relay.metric("launchad_relayd_acks_passed_total"), try await relay.metric("launchad_relayd_ack_batches_total"))
            }
            let acksBefore = try await relays.concurrentlyMap { try await acks($0) }
            try await Task.sleep(for: .seconds(3))
            for (relay, before) in zip(relays, acksBefore) {
                let after = try await acks(relay)
                let (passed, batches) = (after.passed - before.passed, after.batches - before.batches)
                #expect(passed >= Double(2 * Self.edgesPerRelay) && batches > 0 && batches < passed,
                        "\(relay.name) passed \(passed) acknowledgements upstream in \(batches) calls over 3 s")
            }

            // A new database: a new epoch. campaignd serves one snapshot to each relay; the edges take theirs from the relays.
            let relaySnapshots = try await relays.concurrentlyMap { try await $0.metric(snapshotsServed($0)) }
            await admin.close()
            try await fixture.restart(signal: SIGTERM, sameEndpoints: true, freshData: true)
            let freshAdmin = try fixture.admin()
            let freshCreative = try await fixture.uploadPNG(freshAdmin, seed: 5)
            let fresh = try await freshAdmin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "b", creative: freshCreative))
            await freshAdmin.close()
            let epoch = try await fixture.epoch()
            try await expectConverged(edges, on: fresh.seq, epoch: epoch)
            // Each answers it with the new creative (fetched through its relay; the old one may still be held).
            #expect(try await edges.concurrentlyAll { edge in
                await eventually(timeout: .seconds(30)) {
                    guard let answer = try? await edge.query() else { return false }
                    return answer.epoch == epoch && answer.id == fresh.campaign.id && answer.imgUrl?.contains(freshCreative) == true
                }
            })
            let snapshots = try await fixture.metric(snapshotsServed(fixture))
            #expect(snapshots == Double(Self.relayCount), "campaignd served \(snapshots) snapshots for the new epoch")
            for (relay, before) in zip(relays, relaySnapshots) {
                let served = try await relay.metric(snapshotsServed(relay)) - before
                #expect(served >= Double(Self.edgesPerRelay), "\(relay.name) served \(served) snapshots of the new epoch to its edges")
            }
            try await expectPeers(fixture, Self.relayCount, "campaignd after the new epoch")
            await stopAll(edges: edges, relays: relays)
        }
    }
}

extension CampaignFixture {
    /// campaignd's epoch, from `/healthz` (no sync client of the test's own).
    func epoch() async throws -> String {
        let (body, _) = try await URLSession.shared.data(from: URL(string: "http://\(endpoints["http"]!)/healthz")!)
        return try JSONParser.parse([UInt8](body))["epoch"]?.stringValue ?? ""
    }
}

/// Starts one thing per input, all at once, and returns them in the inputs' order.
private func concurrently<Input: Sendable, Output: Sendable>(_ inputs: [Input], _ start: @escaping @Sendable (Input) async throws -> Output) async throws -> [Output] {
    try await withThrowingTaskGroup(of: (Int, Output).self) { group in
        for (index, input) in inputs.enumerated() { group.addTask { (index, try await start(input)) } }
        var outputs: [Int: Output] = [:]
        for try await (index, output) in group { outputs[index] = output }
        return inputs.indices.map { outputs[$0]! }
    }
}

extension Array where Element: Sendable {
    func concurrentlyMap<T: Sendable>(_ transform: @escaping @Sendable (Element) async throws -> T) async throws -> [T] {
        try await concurrently(self, transform)
    }

    func concurrentlyAll(_ predicate: @escaping @Sendable (Element) async throws -> Bool) async throws -> Bool {
        try await concurrentlyMap(predicate).allSatisfy { $0 }
    }
}

/// Every edge applies `seq` (of `epoch`) with its creatives within 30 s; those that do not are named.
private func expectConverged(_ edges: [EdgeProcess], on seq: Int64, epoch: String? = nil, creatives: Int? = nil,
                             sourceLocation: SourceLocation = #_sourceLocation) async throws {
    let converged = try await edges.concurrentlyMap { await $0.waitFor(seq: seq, epoch: epoch, creatives: creatives, timeout: .seconds(30)) }
    let behind = zip(edges, converged).filter { !$0.1 }.map(\.0)
    #expect(behind.isEmpty, "\(behind.count) edges did not apply seq \(seq): \(behind.map(\.name)); \(behind.first?.log.suffix(1500) ?? "")",
            sourceLocation: sourceLocation)
}

/// The sync and update sockets of `service` (campaignd or a relay) are held by exactly `count` peers (processes: the
/// tests' endpoints are IPC), once connections that are closing have gone.
private func expectPeers(_ service: some CampaignServiceEndpoints, _ count: Int, _ name: String,
                         sourceLocation: SourceLocation = #_sourceLocation) async throws {
    var seen: [String: Double] = [:]
    let exact = try await eventually(timeout: .seconds(5)) {
        for socket in ["sync", "updates"] {
            seen["\(socket) peers"] = try await service.metric(#"launchad_\#(prefix(service))_peers{socket="\#(socket)"}"#)
            seen["\(socket) connections"] = try await service.metric(#"launchad_\#(prefix(service))_connections{socket="\#(socket)"}"#)
        }
        return seen["sync peers"] == Double(count) && seen["updates peers"] == Double(count)
    }
    #expect(exact, "\(name): \(seen.sorted { $0.key < $1.key })", sourceLocation: sourceLocation)
}

private func prefix(_ service: some CampaignServiceEndpoints) -> String {
    service is RelayProcess ? "relayd" : "campaignd"
}

/// The metric of the snapshots `service` served (pages of them: one each here, with two campaigns at most).
private func snapshotsServed(_ service: some CampaignServiceEndpoints) -> String {
    #"launchad_\#(prefix(service))_requests_total{socket="sync",method="sync.snapshot",code="0"}"#
}

private func stopAll(edges: [EdgeProcess], relays: [RelayProcess]) async {
    await withTaskGroup(of: Void.self) { group in
        for edge in edges { group.addTask { await edge.stop() } }
    }
    for relay in relays { await relay.stop() }
}
