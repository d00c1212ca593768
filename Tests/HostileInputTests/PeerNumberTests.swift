import CampaignService
import CampaignStore
import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdRuntime
import LaunchAdTesting
import Testing
import ZeroMQ
import ZMQRPC

/// Numbers from peers holding valid keys (report ids, counts, hours, applied seqs, epochs) are bounded where they
/// enter, at campaignd and at each relay; what a campaignd from before the bounds stored crashes nothing.
@Suite("numbers from peers", .timeLimit(.minutes(4)), .sharedPostgresCluster)
struct PeerNumberTests {
    /// Expects `call` to be refused as invalid params naming `field`.
    static func expectRefused(_ field: String, _ sourceLocation: SourceLocation = #_sourceLocation,
                              _ call: () async throws -> some Sendable) async {
        do {
            _ = try await call()
            Issue.record("\(field): taken", sourceLocation: sourceLocation)
        } catch let error as JSONRPCError {
            #expect(error.code == JSONRPCError.invalidParamsCode && error.data?["field"] == .string(field), "\(error)",
                    sourceLocation: sourceLocation)
        } catch {
            Issue.record("\(field): \(error)", sourceLocation: sourceLocation)
        }
    }

    /// The reports and acknowledgements a key holder may send anywhere, each refused naming its field; `via` is the
    /// relay path claimed (the caller's key must speak for its first relay), `seq` the receiver's; `sealer` seals the
    /// acknowledgements as the edge would (campaignd with CURVE takes none without it).
    static func expectBoundsHeld(_ sync: RPCClient, edgeId: String, via: [String]? = nil, seq: Int64, epoch: String,
                                 sealer: RecordSealer? = nil) async {
        let now = Timestamp.now()
        let hour = HourlyCount.hour(of: now)
        func report(_ id: Int64, counts: [CampaignStats] = [], hourly: [HourlyCount]? = nil) -> EdgeReport {
            EdgeReport(edgeId: edgeId, reportId: id, counts: counts, hourly: hourly, via: via)
        }
        let id = now.milliseconds
        await expectRefused("reportId") { try await sync.call(SyncAPI.report, report(Int64.max)) }
        await expectRefused("reportId") { try await sync.call(SyncAPI.report, report(now.milliseconds + 2 * 86_400_000)) }
        await expectRefused("reportId") { try await sync.call(SyncAPI.report, report(0)) }
        await expectRefused("counts[0]") {
            try await sync.call(SyncAPI.report, report(id, counts: [CampaignStats(id: 1, impressions: Int64.max - 1, clicks: 0, skips: 0)]))
        }
        await expectRefused("hourly[0]") {
            try await sync.call(SyncAPI.report, report(id, hourly: [HourlyCount(id: 1, hour: hour, clicks: PeerNumbers.maxCount + 1)]))
        }
        await expectRefused("hourly[0].hour") {
            try await sync.call(SyncAPI.report, report(id, hourly: [HourlyCount(id: 1, hour: Timestamp(rfc3339: "9999-12-31T23:00:00Z")!, impressions: 1)]))
        }
        // Two hours on: always more than the 10 minutes of skew ahead (the next hour is not, in the last 10 of this one).
        await expectRefused("hourly[0].hour") {
            try await sync.call(SyncAPI.report, report(id, hourly: [HourlyCount(id: 1, hour: hour.adding(seconds: 7200), impressions: 1)]))
        }
        // Older than any retention campaignd takes (a relay checks against the longest): 11 years back.
        await expectRefused("hourly[0].hour") {
            try await sync.call(SyncAPI.report, report(id, hourly: [HourlyCount(id: 1, hour: hour.adding(seconds: -11 * 366 * 86_400), impressions: 1)]))
        }
        func ack(_ seq: Int64, epoch: String = epoch) -> EdgeAck {
            let ack = EdgeAck(edgeId: edgeId, region: "r", epoch: epoch, appliedSeq: seq, via: via)
            return sealer?.sealed(ack) ?? ack
        }
        await expectRefused("appliedSeq") { try await sync.call(SyncAPI.ack, ack(-1)) }
        await expectRefused("appliedSeq") { try await sync.call(SyncAPI.ack, ack(seq + 1000)) }
        await expectRefused("appliedSeq") { try await sync.call(SyncAPI.ack, ack(Int64.max)) }
        await expectRefused("epoch") { try await sync.call(SyncAPI.ack, ack(seq, epoch: String(repeating: "e", count: 60_000))) }
        await expectRefused("epoch") { try await sync.call(SyncAPI.ack, ack(seq, epoch: "ab\u{0}cd")) }
        // In a batch, the acknowledgement out of bounds is left out and named; the others are taken.
        let mixed = try? await sync.call(SyncAPI.acks, EdgeAcks(acks: [ack(seq), ack(-1)]))
        #expect(mixed?.taken == 1 && mixed?.refused == [edgeId], "\(String(describing: mixed))")
        let longEpoch = try? await sync.call(SyncAPI.acks, EdgeAcks(acks: [ack(seq, epoch: String(repeating: "e", count: 65))]))
        #expect(longEpoch?.taken == 0 && longEpoch?.refused == [edgeId], "\(String(describing: longEpoch))")
        // Within the bounds: taken.
        #expect((try? await sync.call(SyncAPI.ack, ack(seq)))?.seq == seq)
    }

    @Test("with CURVE keys: report ids, counts, hours, seqs and epochs beyond the bounds are refused through an edge's key, a relay's key and a relay; a real edge keeps shipping")
    func boundsWithKeys() async throws {
        let directory = try makeTemporaryDirectory("peer-numbers")
        defer { removeTemporaryDirectory(directory) }
        let keys = try CurveKeyTree(in: directory)
        try keys.edgeTrustsCampaignd()
        let (server, relay, edge) = (keys.server, keys.relay, keys.edge)
        func client(_ endpoint: String, serverKey: String, keys pair: CurveKeyPair, context: ZMQContext) throws -> RPCClient {
            var configuration = RPCClientConfiguration(endpoint: endpoint)
            configuration.curve = CurveClientOptions(serverKey: serverKey, keyPair: pair)
            return try RPCClient(context: context, configuration: configuration)
        }

        try await withCampaignService(configure: { $0.keysDirectory = keys.campaigndKeys.path }) { campaign in
            let admin = try client(campaign.endpoints["admin"]!, serverKey: server.publicKey, keys: keys.operatorKeys, context: campaign.context)
            let creative = try await campaign.uploadPNG(admin)
            let created = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "a", creative: creative))
            let epoch = campaign.app.store.epoch
            // Straight at campaignd with the edge's own key, and with the relay's key passing on for any edge.
            let asEdge = try client(campaign.endpoints["sync"]!, serverKey: server.publicKey, keys: edge, context: campaign.context)
            let sealer = try RecordSealer(keyPair: edge, origin: server.publicKey)
            await Self.expectBoundsHeld(asEdge, edgeId: "edge-1", seq: created.seq, epoch: epoch, sealer: sealer)
            let asRelay = try client(campaign.endpoints["sync"]!, serverKey: server.publicKey, keys: relay, context: campaign.context)
            await Self.expectBoundsHeld(asRelay, edgeId: "edge-1", via: ["relay-1"], seq: created.seq, epoch: epoch, sealer: sealer)
            // Through a relay, with the edge's key: the relay refuses before passing anything on.
            try await withRelay("relay-1", connectedTo: campaign, configure: { $0.keysDirectory = keys.relayKeys.path }) { relayService in
                let behindRelay = try client(relayService.endpoints["sync"]!, serverKey: relay.publicKey, keys: edge, context: campaign.context)
                #expect(await eventually(timeout: .seconds(10)) { (try? await behindRelay.call(SyncAPI.ack, EdgeAck(edgeId: "edge-1", region: "r", epoch: epoch, appliedSeq: created.seq))) != nil })
                await Self.expectBoundsHeld(behindRelay, edgeId: "edge-1", seq: created.seq, epoch: epoch)
                await behindRelay.close()
            }
            await asRelay.close()

            // The real edge, after all that: it follows, ships its counts, and they are counted.
            try await withEdge("edge-1", connectedTo: campaign, configure: { $0.keysDirectory = keys.edgeKeys.path }) { follower in
                #expect(await follower.waitFor(seq: created.seq, creatives: 1))
                let id = created.campaign.id
                _ = try await follower.client.call(ClientAPI.launchReport, LaunchReportParams(events: (1...3).map {
                    LaunchEvent(eventId: "e-\($0)", type: .impression, campaignId: id, deviceId: "d-\($0)", sha256: creative)
                }))
                #expect(await eventually(timeout: .seconds(15)) {
                    (try? await admin.call(AdminAPI.campaignStats, CampaignStatsParams(id: id)))?.stats.first?.impressions == 3
                }, "\(follower.log.suffix(2000))")
                // A report id far ahead, sent in the edge's name with its key, is refused; the edge keeps shipping.
                await Self.expectRefused("reportId") { try await asEdge.call(SyncAPI.report, EdgeReport(edgeId: "edge-1", reportId: Int64.max, counts: [])) }
                _ = try await follower.client.call(ClientAPI.launchReport, LaunchReportParams(events: [
                    LaunchEvent(eventId: "e-4", type: .click, campaignId: id, deviceId: "d-4", sha256: creative),
                ]))
                #expect(await eventually(timeout: .seconds(15)) {
                    (try? await admin.call(AdminAPI.campaignStats, CampaignStatsParams(id: id)))?.stats.first?.clicks == 1
                }, "\(follower.log.suffix(2000))")
            }
            await asEdge.close()
            await admin.close()
        }
    }

    @Test("through two relays (processes): the nearest relay refuses what is beyond the bounds, and so does the one above it")
    func boundsThroughTwoRelays() async throws {
        try await withCampaignService { campaign in
            let admin = try campaign.admin()
            let creative = try await campaign.uploadPNG(admin)
            let created = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "a", creative: creative))
            try await withStopping(campaign.startRelay("relay-a")) { upper in
                try await withStopping(upper.startRelay("relay-b")) { lower in
                    let epoch = campaign.app.store.epoch
                    for (relay, via) in [(lower, nil), (upper, ["relay-b"])] as [(RelayProcess, [String]?)] {
                        var configuration = RPCClientConfiguration(endpoint: relay.endpoints["sync"]!)
                        configuration.timeout = .seconds(5)
                        let sync = try RPCClient(context: campaign.context, configuration: configuration)
                        #expect(await eventually(timeout: .seconds(15)) {
                            (try? await sync.call(SyncAPI.ack, EdgeAck(edgeId: "edge-x", region: "r", epoch: epoch, appliedSeq: created.seq, via: via))) != nil
                        }, "\(relay.log.suffix(2000))")
                        await Self.expectBoundsHeld(sync, edgeId: "edge-x", via: via, seq: created.seq, epoch: epoch)
                        await sync.close()
                    }
                    await admin.close()
                }
            }
        }
    }

    /// Writes `sql` into the store: the SQLite file in `dataDirectory` with the `sqlite3` shell, PostgreSQL
    /// through the cluster.
    static func write(_ sql: String, dataDirectory: String, postgres: (url: String, cluster: PostgresCluster)?) throws {
        if let postgres {
            try postgres.cluster.execute(sql, database: postgres.url)
            return
        }
        try runSQLiteShell(URL(fileURLWithPath: dataDirectory).appendingPathComponent(SQLiteStore.fileName).path, sql)
    }

    @Test("what a campaignd from before the bounds stored (ids at Int64.max, overflowed sums, far-future hours, negative seqs) is put back at start; counts saturate; stats answers before and after a restart",
          arguments: StoreEngine.allCases)
    func storedBeforeTheBounds(engine: StoreEngine) async throws {
        let directory = try makeTemporaryDirectory("peer-numbers-store")
        defer { removeTemporaryDirectory(directory) }
        let dataDirectory = directory.appendingPathComponent("data").path
        func run(_ postgres: (url: String, cluster: PostgresCluster)?) async throws {
            let configure: (inout CampaignServiceConfiguration) throws -> Void = { configuration in
                configuration.dataDirectory = dataDirectory
                if let postgres { configuration.database = try DatabaseURL(parsing: postgres.url) }
            }
            let (id, creative) = try await withCampaignService(configure: configure) { campaign in
                let admin = try campaign.admin()
                let creative = try await campaign.uploadPNG(admin)
                let id = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "a", creative: creative)).campaign.id
                await admin.close()
                return (id, creative)
            }
            let now = Timestamp.now()
            let hour = HourlyCount.hour(of: now).milliseconds
            let farFuture = Timestamp(rfc3339: "9999-12-31T23:00:00Z")!.milliseconds
            // SQLite kept an overflowed sum as a floating-point value; PostgreSQL refused to pass Int64.max, so its
            // largest is just below.
            let huge = postgres == nil ? "18446744073709551615.0" : "\(Int64.max - 1)"
            try Self.write("""
                INSERT INTO edge_reports (edge_id, last_report_id) VALUES ('edge-p', \(Int64.max));
                INSERT INTO stats (campaign_id, impressions, clicks, skips) VALUES (\(id), \(huge), \(Int64.max - 1), 0);
                INSERT INTO stats_hourly (campaign_id, hour, creative, region, impressions, clicks, skips) VALUES
                    (\(id), \(hour), '', 'r', \(huge), 1, 0), (\(id), \(hour), '\(creative)', 'r', \(Int64.max - 1), 1, 0),
                    (\(id), \(farFuture), '', 'r', 5, 0, 0);
                INSERT INTO edge_acks (edge_id, region, epoch, applied_seq, last_seen) VALUES
                    ('edge-neg', 'r', 'e', -5, \(now.milliseconds)), ('edge-long', 'r', '\(String(repeating: "e", count: 500))', 0, \(now.milliseconds));
                """, dataDirectory: dataDirectory, postgres: postgres)

            for round in 1...2 {
                try await withCampaignService(configure: configure) { campaign in
                    let admin = try campaign.admin()
                    let sync = try campaign.sync()
                    let totals = try await admin.call(AdminAPI.campaignStats, CampaignStatsParams(id: id)).stats.first
                    let impressions = postgres == nil || round == 2 ? Int64.max : Int64.max - 1
                    #expect(totals?.impressions == impressions && totals?.clicks == (round == 1 ? Int64.max - 1 : Int64.max),
                            "round \(round): \(String(describing: totals))")
                    // Hourly counts near the end of 64 bits: the day's sum stops at Int64.max (with round 1's report in round 2).
                    let series = try await admin.call(AdminAPI.campaignStats, CampaignStatsParams(id: id, from: Timestamp(milliseconds: hour - 86_400_000), by: .day)).series
                    #expect(series?.map(\.impressions) == [Int64.max] && series?.map(\.clicks) == [round == 1 ? 2 : 9], "round \(round): \(String(describing: series))")
                    let listed = try await admin.call(AdminAPI.edgeList, NoParams()).edges.map(\.edgeId)
                    #expect(!listed.contains("edge-neg") && !listed.contains("edge-long"), "\(listed)")
                    // The edge whose last id was Int64.max ships again, under ids from its clock; counts saturate.
                    let answer = try await sync.call(SyncAPI.report, EdgeReport(edgeId: "edge-p", reportId: Timestamp.now().milliseconds + Int64(round),
                                                                                 counts: [CampaignStats(id: id, impressions: 7, clicks: 7, skips: 7)]))
                    #expect(answer.accepted && answer.lastReportId < Int64.max / 2, "\(answer)")
                    let after = try await admin.call(AdminAPI.campaignStats, CampaignStatsParams(id: id)).stats.first
                    #expect(after?.impressions == Int64.max && after?.clicks == Int64.max && after?.skips == 7 * Int64(round), "\(String(describing: after))")
                    await sync.close()
                    await admin.close()
                }
            }
        }
        switch engine {
        case .sqlite: try await run(nil)
        case .postgres: try await withPostgresDatabase { url, cluster in try await run((url, cluster)) }
        }
    }

    @Test("an edge whose campaignd answers a last report id of Int64.max (stored before the bounds) keeps running and ships its counts once the id is put back")
    func edgeSurvivesAnAbsurdLastReportId() async throws {
        let directory = try makeTemporaryDirectory("peer-numbers-edge")
        defer { removeTemporaryDirectory(directory) }
        let dataDirectory = directory.appendingPathComponent("data").path
        try await withCampaignService(configure: { $0.dataDirectory = dataDirectory }) { campaign in
            let admin = try campaign.admin()
            let creative = try await campaign.uploadPNG(admin)
            let created = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "a", creative: creative))
            let id = created.campaign.id
            func impressions() async -> Int64? { (try? await admin.call(AdminAPI.campaignStats, CampaignStatsParams(id: id)))?.stats.first?.impressions }
            try await withEdge("edge-z", connectedTo: campaign) { edge in
                #expect(await edge.waitFor(seq: created.seq, creatives: 1))
                func impression(_ n: Int) async throws {
                    _ = try await edge.client.call(ClientAPI.launchReport, LaunchReportParams(events: [
                        LaunchEvent(eventId: "z-\(n)", type: .impression, campaignId: id, deviceId: "d-\(n)", sha256: creative),
                    ]))
                }
                try await impression(1)
                #expect(await eventually(timeout: .seconds(15)) { await impressions() == 1 }, "\(edge.log.suffix(2000))")
                // What a campaignd from before the bounds kept after a forged report: the edge's next report is answered
                // "not taken, the last id is Int64.max" (an edge from before the bounds stopped on `+ 1` there).
                try Self.write("UPDATE edge_reports SET last_report_id = \(Int64.max) WHERE edge_id = 'edge-z'",
                               dataDirectory: dataDirectory, postgres: nil)
                try await impression(2)
                #expect(await eventually(timeout: .seconds(15)) { edge.log.contains("campaignd answered a last report id beyond the ids it takes") },
                        "\(edge.log.suffix(2000))")
                #expect(try await edge.status().loaded)
                #expect(await impressions() == 1)
                // Put back (as a restart of campaignd does): the counts held meanwhile are taken, once.
                try Self.write("UPDATE edge_reports SET last_report_id = 1 WHERE edge_id = 'edge-z'",
                               dataDirectory: dataDirectory, postgres: nil)
                try await impression(3)
                #expect(await eventually(timeout: .seconds(15)) { await impressions() == 3 }, "\(edge.log.suffix(2000))")
            }
            await admin.close()
        }
    }

    @Test("an upstream that answers a snapshot at seq Int64.max is not followed: the edge takes nothing and keeps running")
    func upstreamSeqBounded() async throws {
        var table = MethodTable()
        table.register(SyncAPI.snapshot) { _, _ in Snapshot(epoch: "forged", seq: Int64.max, campaigns: []) }
        table.register(SyncAPI.changes) { _, _ -> ChangesResult in
            throw JSONRPCError(code: APIError.changesUnavailable.code, message: APIError.changesUnavailable.message)
        }
        try await withCampaignService { campaign in
            let server = try RPCServer(context: campaign.context, dispatcher: JSONRPCDispatcher(methods: table, info: SyncAPI.info),
                                       configuration: RPCServerConfiguration(endpoint: "tcp://127.0.0.1:0", name: "forged-sync"))
            let endpoint = try server.start()
            // Heartbeats from the real campaignd (another epoch) make the edge ask the forged socket for snapshots.
            try await withEdge("edge-f", connectedTo: campaign, sync: endpoint) { edge in
                #expect(await eventually(timeout: .seconds(10)) { edge.log.contains("outside 0...\(PeerNumbers.maxSeq)") }, "\(edge.log.suffix(2000))")
                let status = try await edge.status()
                #expect(!status.loaded && status.seq == 0, "\(status)")
            }
            await server.shutdown()
        }
    }

    @Test("an edge's hour older than campaignd's stats retention is refused; the edge sends the report again without its hours, and the totals are counted")
    func hoursPastTheRetention() async throws {
        try await withCampaignService(configure: { $0.statsRetention = 3600 }) { campaign in
            let admin = try campaign.admin()
            let creative = try await campaign.uploadPNG(admin)
            let created = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "a", creative: creative))
            let id = created.campaign.id
            try await withEdge("edge-old", connectedTo: campaign) { edge in
                #expect(await edge.waitFor(seq: created.seq, creatives: 1))
                // Three hours back: an app may report that late (up to 7 days), and campaignd keeps one hour.
                _ = try await edge.client.call(ClientAPI.launchReport, LaunchReportParams(events: [
                    LaunchEvent(eventId: "o-1", type: .impression, campaignId: id, deviceId: "d-1", sha256: creative, at: Timestamp.now().adding(seconds: -3 * 3600)),
                ]))
                #expect(await eventually(timeout: .seconds(15)) {
                    (try? await admin.call(AdminAPI.campaignStats, CampaignStatsParams(id: id)))?.stats.first?.impressions == 1
                }, "\(edge.log.suffix(2000))")
                #expect(edge.log.contains("campaignd refuses this report's hours"), "\(edge.log.suffix(2000))")
            }
            await admin.close()
        }
    }
}
