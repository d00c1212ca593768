import DeliveryService
import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdRuntime
import LaunchAdTesting
import Locking
import Testing
import ZeroMQ
import ZMQRPC

/// An edge's acknowledgements and reports carry its own word end to end: relays pass them on, sealed by the edge for
/// campaignd, and cannot make one up, change a field of one, or play an old one again.
@Suite("seals on acknowledgements and reports", .timeLimit(.minutes(3)))
struct RelaySealTests {
    @Test("a relay's key acknowledging every 200 ms for a frozen direct edge is refused, and adctl campaign pause --wait does not count the edge as applied")
    func frozenDirectEdge() async throws {
        let directory = try makeTemporaryDirectory("seal-frozen")
        defer { removeTemporaryDirectory(directory) }
        let keys = try KeyTree(in: directory)
        try keys.add(edge: "edge-1")
        // Listed at campaignd, as a relay in front of other edges would be; the test holds its key.
        let relay = try keys.add(relay: "relay-1")
        try await withStopping(CampaignFixture(arguments: ["--keys-dir", keys.campaigndFolder.path])) { fixture in
            let admin = try keys.client(fixture)
            let creative = try await fixture.uploadPNG(admin)
            let created = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(creative: creative))
            try await withStopping(fixture.startEdge("edge-1", arguments: ["--keys-dir", keys.folder("edge-1").path])) { edge in
                #expect(await edge.waitFor(seq: created.seq, creatives: 1), "\(edge.process.log.suffix(1500))")
                func listed() async -> EdgeInfo? {
                    try? await admin.call(AdminAPI.edgeList, NoParams()).edges.first { $0.edgeId == "edge-1" }
                }
                // The edge's own sealed acknowledgements are taken straight from it.
                #expect(await eventually(timeout: .seconds(10)) { await listed()?.appliedSeq == created.seq }, "\(fixture.process.log.suffix(1500))")

                edge.process.signal(SIGSTOP)
                // The pause comes next: the forger claims the edge applied it, every 200 ms, as the finding's relay did, with
                // no seal, then with the best seal a relay's key can make (its own, with campaignd's public key).
                let pauseSeq = created.seq + 1
                let epoch = try await keys.client(fixture, socket: "sync", pair: relay).call(SyncAPI.snapshot, SnapshotParams(limit: 1)).epoch
                let forger = try keys.client(fixture, socket: "sync", pair: relay)
                let relaySealer = try RecordSealer(keyPair: relay, origin: keys.campaignd.publicKey)
                let answers = Locked<(batches: [EdgeAcksResult], single: [Int])>(([], []))
                let forging = Task {
                    var round = 0
                    while !Task.isCancelled {
                        let claim = EdgeAck(edgeId: "edge-1", region: "test", epoch: epoch, appliedSeq: pauseSeq)
                        var forged = round % 2 == 0 ? claim : relaySealer.sealed(claim)
                        if round % 2 == 0 { forged.sentAt = Timestamp.now().milliseconds }
                        forged.via = ["relay-1"]
                        if let result = try? await forger.call(SyncAPI.acks, EdgeAcks(acks: [forged])) {
                            answers.withLock { $0.batches.append(result) }
                        }
                        do {
                            _ = try await forger.call(SyncAPI.ack, forged)
                            answers.withLock { $0.single.append(0) }
                        } catch let error as JSONRPCError {
                            answers.withLock { $0.single.append(error.code) }
                        } catch {}
                        round += 1
                        try? await Task.sleep(for: .milliseconds(200))
                    }
                }
                let process = try ChildProcess("adctl", ["--endpoint", fixture.endpoints["admin"]!, "--keys-dir", keys.adctlFolder.path,
                                                         "campaign", "pause", "\(created.campaign.id)", "--wait", "--wait-timeout", "3"],
                                               directory: directory)
                let status = await process.exitStatus(timeout: .seconds(60)) ?? -1
                forging.cancel()
                _ = await forging.value
                edge.process.signal(SIGCONT)
                let output = process.log
                #expect(status != 0 && !output.contains("edge-1 applied") && output.contains("did not apply seq \(pauseSeq)") && output.contains("edge-1"),
                        "adctl exited \(status): \(output)")
                let (batches, single) = answers.withLock { $0 }
                #expect(batches.count >= 3 && single.count >= 3, "the forger sent too little to tell: \(batches.count) batches, \(single.count) calls")
                #expect(batches.allSatisfy { $0.taken == 0 && $0.refused == ["edge-1"] }, "\(batches.map { ($0.taken, $0.refused ?? []) })")
                // Refused for its seal, or, while the pause is not yet committed, for claiming a seq beyond campaignd's.
                #expect(single.allSatisfy { $0 == APIError.sealRefused.code || $0 == JSONRPCError.invalidParamsCode }, "\(single)")
                #expect(single.filter { $0 == APIError.sealRefused.code }.count >= 3, "\(single)")
                #expect(fixture.process.log.contains("refused an acknowledgement or report not sealed by its edge"))

                // Thawed, the edge acknowledges the pause itself, with its seal.
                #expect(await eventually(timeout: .seconds(10)) { await listed()?.appliedSeq == pauseSeq }, "\(edge.process.log.suffix(1500))")
                await forger.close()
                await admin.close()
            }
        }
    }

    @Test("edges one and two relays deep: their sealed acknowledgements and reports pass both relays and are taken, and each relay's own")
    func forwardedThroughRelays() async throws {
        let directory = try makeTemporaryDirectory("seal-relays")
        defer { removeTemporaryDirectory(directory) }
        let keys = try KeyTree(in: directory)
        try keys.add(relay: "relay-1")
        try keys.add(relay: "relay-2", below: "relay-1")
        try keys.add(edge: "edge-a", below: "relay-1")
        try keys.add(edge: "edge-b", below: "relay-2")

        try await withCampaignService(configure: { $0.keysDirectory = keys.campaigndFolder.path }) { campaign in
            let admin = try keys.client(campaign)
            let creative = try await campaign.uploadPNG(admin)
            let created = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(creative: creative))
            try await withRelay("relay-1", connectedTo: campaign, configure: { $0.keysDirectory = keys.folder("relay-1").path }) { upper in
                try await withRelay("relay-2", connectedTo: upper, configure: { $0.keysDirectory = keys.folder("relay-2").path }) { lower in
                    func edge(_ name: String) -> (inout DeliveryServiceConfiguration) throws -> Void {
                        { $0.keysDirectory = keys.folder(name).path; $0.reportInterval = .milliseconds(200) }
                    }
                    try await withEdge("edge-a", connectedTo: upper, configure: edge("edge-a")) { a in
                        try await withEdge("edge-b", connectedTo: lower, configure: edge("edge-b")) { b in
                            #expect(await a.waitFor(seq: created.seq, creatives: 1))
                            #expect(await b.waitFor(seq: created.seq, creatives: 1))
                            let expected: [String: [String]?] = ["relay-1": nil, "relay-2": ["relay-1"], "edge-a": ["relay-1"],
                                                                 "edge-b": ["relay-1", "relay-2"]]
                            var edges: [EdgeInfo] = []
                            #expect(await eventually(timeout: .seconds(10)) {
                                edges = (try? await admin.call(AdminAPI.edgeList, NoParams()).edges) ?? []
                                return expected.allSatisfy { name, via in edges.contains { $0.edgeId == name && $0.via == via && $0.appliedSeq == created.seq } }
                            }, "\(edges)\n\(campaign.log.suffix(2000))")
                            for (client, count) in [(a, 2), (b, 3)] {
                                let events = (0..<count).map {
                                    LaunchEvent(eventId: "\(client.name)-\($0)", type: .impression, campaignId: created.campaign.id, deviceId: "d-\($0)")
                                }
                                _ = try await client.client.call(ClientAPI.launchReport, LaunchReportParams(events: events))
                            }
                            var stats: CampaignStats?
                            #expect(await eventually(timeout: .seconds(10)) {
                                stats = try? await admin.call(AdminAPI.campaignStats, CampaignStatsParams(id: created.campaign.id)).stats.first
                                return stats?.impressions == 5
                            }, "\(String(describing: stats))\n\(campaign.log.suffix(2000))")
                            #expect(!campaign.log.contains("not sealed by its edge"), "\(campaign.log.suffix(2000))")
                        }
                    }
                }
            }
            await admin.close()
        }
    }

    @Test("campaignd refuses, whatever key brings it, a record whose field a relay altered, an acknowledgement played again or too old, and one with no seal; a batch's other acknowledgements are taken")
    func alteredAndReplayed() async throws {
        let directory = try makeTemporaryDirectory("seal-altered")
        defer { removeTemporaryDirectory(directory) }
        let keys = try KeyTree(in: directory)
        let relay = try keys.add(relay: "relay-1")
        let edgeA = try keys.add(edge: "edge-a", below: "relay-1")
        let edgeB = try keys.add(edge: "edge-b", below: "relay-1")

        try await withCampaignService(configure: { $0.keysDirectory = keys.campaigndFolder.path }) { campaign in
            let epoch = campaign.app.store.epoch
            // Ten changes, so that the seqs acknowledged below are within campaignd's and only their seals decide.
            let admin = try keys.client(campaign)
            let creative = try await campaign.uploadPNG(admin)
            let created = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "a", creative: creative))
            for round in 0..<9 {
                _ = try await admin.call(round % 2 == 0 ? AdminAPI.campaignPause : AdminAPI.campaignResume, CampaignID(id: created.campaign.id))
            }
            await admin.close()
            let passer = try keys.client(campaign, socket: "sync", pair: relay)
            // The test holds the edges' keys: these are the seals the real edges would make.
            let sealA = try RecordSealer(keyPair: edgeA, origin: keys.campaignd.publicKey)
            let sealB = try RecordSealer(keyPair: edgeB, origin: keys.campaignd.publicKey)
            func ack(_ edgeId: String, _ seq: Int64) -> EdgeAck { EdgeAck(edgeId: edgeId, region: "r", epoch: epoch, appliedSeq: seq) }
            func passed(_ acks: EdgeAck...) async throws -> EdgeAcksResult {
                try await passer.call(SyncAPI.acks, EdgeAcks(acks: acks.map { $0.passed(by: "relay-1") }))
            }
            func refusal(_ body: () async throws -> Void) async -> JSONRPCError? {
                do { try await body(); return nil } catch { return error as? JSONRPCError }
            }

            // Genuine, passed on: taken. The same again, or one older: a replay, refused.
            let first = sealA.sealed(ack("edge-a", 0))
            let result = try await passed(first)
            #expect(result.taken == 1 && result.refused == nil)
            let again = try await passed(first)
            #expect(again.taken == 0 && again.refused == ["edge-a"])
            // A field altered on the way: appliedSeq, the region, the time.
            var altered = sealA.sealed(ack("edge-a", 1))
            altered.appliedSeq = 9
            #expect(try await passed(altered).refused == ["edge-a"])
            altered = sealA.sealed(ack("edge-a", 1))
            altered.sentAt! += 1
            #expect(try await passed(altered).refused == ["edge-a"])
            // Sealed a minute ago (held back, or the edge's clock is off): refused, the edge's next one taken.
            // (A sealer of its own: sealA never goes back in time.)
            let stale = try RecordSealer(keyPair: edgeA, origin: keys.campaignd.publicKey)
                .sealed(ack("edge-a", 1), now: Timestamp.now().adding(seconds: -60))
            #expect(try await passed(stale).refused == ["edge-a"])
            // The edge's own key sealing a time at either end of Int64: refused as far off, campaignd unharmed.
            let seal = try RecordSeal(secretKey: edgeA.secretKey, publicKey: keys.campaignd.publicKey)
            for extreme in [Int64.min, Int64.max] {
                var far = ack("edge-a", 1)
                far.sentAt = extreme
                far.mac = seal.mac(far.sealedFields)
                #expect(try await passed(far).refused == ["edge-a"])
            }
            // One bad acknowledgement in a batch holds back none of the others.
            var forged = sealB.sealed(ack("edge-b", 5))
            forged.appliedSeq = 6
            let mixed = try await passed(sealA.sealed(ack("edge-a", 2)), forged)
            #expect(mixed.taken == 1 && mixed.refused == ["edge-b"])
            // edge.ack straight from the edge's own key, unsealed: refused even so.
            let own = try keys.client(campaign, socket: "sync", pair: edgeB)
            let unsealed = await refusal { _ = try await own.call(SyncAPI.ack, ack("edge-b", 1)) }
            #expect(unsealed?.code == APIError.sealRefused.code && unsealed?.data?["field"] == "mac", "\(String(describing: unsealed))")
            #expect(try await own.call(SyncAPI.ack, sealB.sealed(ack("edge-b", 1))).seq == 1)

            // Reports: genuine, passed on, taken once; a count altered, or no seal, refused naming the field.
            let counts = [CampaignStats(id: 7, impressions: 10, clicks: 1, skips: 0)]
            var report = sealA.sealed(EdgeReport(edgeId: "edge-a", reportId: 1, counts: counts, region: "r"))
            report.via = ["relay-1"]
            #expect(try await passer.call(SyncAPI.report, report).accepted)
            #expect(try await passer.call(SyncAPI.report, report).accepted == false)
            var inflated = sealA.sealed(EdgeReport(edgeId: "edge-a", reportId: 2, counts: counts, region: "r"))
            inflated.counts[0].impressions = 10_000
            inflated.via = ["relay-1"]
            let refusedReport = await refusal { _ = try await passer.call(SyncAPI.report, inflated) }
            #expect(refusedReport?.code == APIError.sealRefused.code && refusedReport?.data?["field"] == "mac", "\(String(describing: refusedReport))")
            let bare = await refusal { _ = try await passer.call(SyncAPI.report, EdgeReport(edgeId: "edge-a", reportId: 3, counts: counts, via: ["relay-1"])) }
            #expect(bare?.code == APIError.sealRefused.code)

            let listed = try await keys.client(campaign).call(AdminAPI.edgeList, NoParams()).edges
            #expect(listed.first { $0.edgeId == "edge-a" }?.appliedSeq == 2 && listed.first { $0.edgeId == "edge-b" }?.appliedSeq == 1, "\(listed)")
            await own.close()
            await passer.close()
        }
    }

    @Test("without keys nothing changes: acknowledgements and reports need no seal")
    func withoutKeys() async throws {
        try await withCampaignService { campaign in
            let sync = try campaign.sync()
            let epoch = campaign.app.store.epoch
            #expect(try await sync.call(SyncAPI.acks, EdgeAcks(acks: [EdgeAck(edgeId: "edge-x", region: "r", epoch: epoch, appliedSeq: 0, via: ["relay-1"])])).taken == 1)
            #expect(try await sync.call(SyncAPI.ack, EdgeAck(edgeId: "edge-y", region: "r", epoch: epoch, appliedSeq: 0)).seq == 0)
            #expect(try await sync.call(SyncAPI.report, EdgeReport(edgeId: "edge-x", reportId: 1, counts: [], via: ["relay-1"])).accepted)
            await sync.close()
        }
    }
}
