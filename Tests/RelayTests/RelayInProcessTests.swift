import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdTesting
import Testing
import ZMQRPC

/// campaignd, relays and edges built in process: acknowledgements through relays, and what relays serve.
@Suite("relays in process", .timeLimit(.minutes(3)))
struct RelayInProcessTests {
    @Test("edge.list shows every edge behind relays with its relay path, and each relay's own acknowledgement; adctl --wait counts the edges behind relays")
    func acknowledgementsThroughRelays() async throws {
        try await withCampaignService { campaign in
            let admin = try campaign.admin()
            let creative = try await campaign.uploadPNG(admin)
            try await withRelay("relay-a", connectedTo: campaign) { relayA in
                try await withRelay("relay-b", connectedTo: campaign) { relayB in
                    try await withRelay("relay-a2", connectedTo: relayA) { chained in
                        let upstreams: [any CampaignServiceEndpoints] = [relayA, relayB, chained]
                        try await withEdges(["edge-a", "edge-b", "edge-a2"], connectedTo: { upstreams[$0] }) { edges in
                            let created = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "a", creative: creative))
                            for edge in edges { #expect(await edge.waitFor(seq: created.seq, creatives: 1), "\(edge.name)") }
                            let expected: [String: [String]?] = ["edge-a": ["relay-a"], "edge-b": ["relay-b"], "edge-a2": ["relay-a", "relay-a2"],
                                                                 "relay-a": nil, "relay-b": nil, "relay-a2": ["relay-a"]]
                            var listed: [EdgeInfo] = []
                            let seen = await eventually(timeout: .seconds(5)) {
                                listed = (try? await admin.call(AdminAPI.edgeList, NoParams()).edges) ?? []
                                return expected.allSatisfy { id, via in
                                    listed.contains { $0.edgeId == id && $0.via == via && $0.appliedSeq == created.seq && !$0.stale }
                                }
                            }
                            #expect(seen, "\(listed)")

                            // adctl --wait: every edge, behind relays or not, acknowledges the force.
                            let process = try ChildProcess("adctl", ["--endpoint", campaign.endpoints["admin"]!, "campaign", "force",
                                                                     String(created.campaign.id), "--wait", "--wait-timeout", "20"],
                                                           directory: campaign.directory)
                            #expect(await process.exitStatus(timeout: .seconds(30)) == 0, "\(process.log)")
                            for id in expected.keys { #expect(process.log.contains(id), "\(process.log)") }
                            let forced = try await campaign.snapshot().seq
                            for edge in edges { #expect(try await edge.status().seq == forced) }

                            // adctl edges names the path.
                            let table = try ChildProcess("adctl", ["--endpoint", campaign.endpoints["admin"]!, "edges"], directory: campaign.directory)
                            #expect(await table.exitStatus() == 0)
                            #expect(table.log.contains("relay-a > relay-a2"), "\(table.log)")
                        }
                    }
                }
            }
            await admin.close()
        }
    }

    @Test("a creative's length (durationMs) reaches an edge behind a relay: in the relay's state, its creative.get, and the edge's answer")
    func durationThroughRelay() async throws {
        try await withCampaignService { campaign in
            let admin = try campaign.admin()
            let gif = MediaBytes.gif(width: 1080, height: 1920, delays: [30, 30, 45])
            let facts = try await admin.call(AdminAPI.creativeUpload, CreativeUploadParams(contentType: "image/gif", data: Data(gif).base64EncodedString()))
            #expect(facts.durationMs == 1_050)
            try await withRelay("relay-media", connectedTo: campaign) { relay in
                try await withEdges(["edge-media"], connectedTo: { _ in relay }) { edges in
                    let created = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(creative: facts.sha256))
                    #expect(await edges[0].waitFor(seq: created.seq, creatives: 1))
                    #expect(relay.app.followed.cell.state.creatives[facts.sha256] == facts)
                    let sync = try relay.sync()
                    #expect(try await sync.call(SyncAPI.creative, CreativeChunkParams(sha256: facts.sha256, offset: 0, length: 8)).durationMs == 1_050)
                    await sync.close()
                    #expect(try await edges[0].query().creative == facts)
                }
            }
            await admin.close()
        }
    }

    @Test("a campaign's advertiser and paidBy reach an edge behind a relay, in the relay's state and the edge's answer")
    func partiesThroughRelay() async throws {
        try await withCampaignService { campaign in
            let admin = try campaign.admin()
            let creative = try await campaign.uploadPNG(admin)
            try await withRelay("relay-parties", connectedTo: campaign) { relay in
                try await withEdges(["edge-parties"], connectedTo: { _ in relay }) { edges in
                    var fields = CampaignFixture.fields(creative: creative)
                    fields.advertiser = "Shop \"A\" <b>"
                    fields.paidBy = "双十一 Ltd"
                    let created = try await admin.call(AdminAPI.campaignCreate, fields)
                    #expect(await edges[0].waitFor(seq: created.seq, creatives: 1))
                    let held = relay.app.followed.cell.state.campaigns[created.campaign.id]
                    #expect(held?.advertiser == fields.advertiser && held?.paidBy == fields.paidBy)
                    let answer = try await edges[0].query()
                    #expect(answer.advertiser == fields.advertiser && answer.paidBy == fields.paidBy)
                }
            }
            await admin.close()
        }
    }

    @Test("reports from an edge behind two relays reach campaignd's counts")
    func reportsThroughRelays() async throws {
        try await withCampaignService { campaign in
            let admin = try campaign.admin()
            let creative = try await campaign.uploadPNG(admin)
            let created = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "a", creative: creative))
            try await withRelay("relay-a", connectedTo: campaign) { upper in
                try await withRelay("relay-b", connectedTo: upper) { lower in
                    try await withEdge("edge", connectedTo: lower, configure: { $0.reportInterval = .milliseconds(200) }) { edge in
                        #expect(await edge.waitFor(seq: created.seq, creatives: 1))
                        let events = (0..<3).map { LaunchEvent(eventId: "e-\($0)", type: .impression, campaignId: created.campaign.id, deviceId: "d-\($0)") }
                        _ = try await edge.client.call(ClientAPI.launchReport, LaunchReportParams(events: events + [
                            LaunchEvent(eventId: "c-1", type: .click, campaignId: created.campaign.id, deviceId: "d-1"),
                        ]))
                        var stats: CampaignStats?
                        #expect(await eventually(timeout: .seconds(10)) {
                            stats = try? await admin.call(AdminAPI.campaignStats, CampaignStatsParams(id: created.campaign.id)).stats.first
                            return stats?.impressions == 3 && stats?.clicks == 1
                        }, "\(String(describing: stats)) \(edge.log.suffix(1500))")
                    }
                }
            }
            await admin.close()
        }
    }

    @Test("a relay answers sync.changes from its window, refuses what it does not hold, and serves snapshots a page at a time and creatives from its cache")
    func servesTheSyncAPI() async throws {
        try await withCampaignService { campaign in
            let admin = try campaign.admin()
            let creative = try await campaign.uploadPNG(admin)
            let start = try await campaign.snapshot().seq
            try await withRelay("relay", connectedTo: campaign, configure: { $0.changeWindow = 3 }) { relay in
                // The relay holds the state before the writes, so all five come to it as changes: a relay whose
                // snapshot already held some of them has no change before its snapshot's seq to answer with.
                #expect(await eventually(timeout: .seconds(10)) { (try? await relay.snapshot().seq) == start })
                var last: Int64 = 0
                for index in 0..<5 {
                    last = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "c\(index)", creative: creative)).seq
                }
                let upstream = try await campaign.snapshot()
                #expect(await eventually(timeout: .seconds(10)) { (try? await relay.snapshot().seq) == last })
                let sync = try relay.sync()
                #expect(try await relay.snapshot().campaigns == upstream.campaigns)
                #expect(try await relay.snapshot().epoch == upstream.epoch)
                // The window holds the last three changes: from seq 2 on, not from 1.
                let page = try await sync.call(SyncAPI.changes, ChangesParams(epoch: upstream.epoch, since: last - 3, limit: 2))
                #expect(page.changes.map(\.seq) == [last - 2, last - 1] && page.seq == last)
                await #expect(throws: JSONRPCError.self) {
                    try await sync.call(SyncAPI.changes, ChangesParams(epoch: upstream.epoch, since: last - 4))
                }
                await #expect(throws: JSONRPCError.self) {
                    try await sync.call(SyncAPI.changes, ChangesParams(epoch: "another", since: last))
                }
                await #expect(throws: JSONRPCError.self) {
                    try await sync.call(SyncAPI.changes, ChangesParams(epoch: upstream.epoch, since: last + 1))
                }
                // Pages of two join to the whole.
                var joined: [Campaign] = []
                var after: Int64 = 0
                while true {
                    let page = try await sync.call(SyncAPI.snapshot, SnapshotParams(after: after, limit: 2))
                    joined += page.campaigns
                    guard let next = page.next else { break }
                    after = next
                }
                #expect(joined == upstream.campaigns)
                #expect(await eventually(timeout: .seconds(10)) { relay.app.followed.cell.state.creatives[creative] != nil })
                let chunk = try await sync.call(SyncAPI.creative, CreativeChunkParams(sha256: creative))
                #expect(Data(base64Encoded: chunk.data).map { [UInt8]($0) } == CampaignFixture.png(width: 1080, height: 1920))
                #expect(try await relay.metric("launchad_relayd_seq") == Double(last))
                await sync.close()
            }
            await admin.close()
        }
    }
}
