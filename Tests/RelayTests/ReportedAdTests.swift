import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdRuntime
import LaunchAdTesting
import Testing
import ZMQRPC

/// Users' reports of an ad (`launch.report` kind `reported`) from an edge behind a relay to campaignd, as real
/// processes: checked at the edge, counted once by event id across an edge's restart, and pausing the campaign at its
/// app's threshold.
@Suite("reported ads, end to end", .serialized, .timeLimit(.minutes(3)))
struct ReportedAdTests {
    @Test("reports through a relay are counted once by event id across an edge restart, by reason, and the app's threshold pauses the campaign once, by rules")
    func reportedThroughRelay() async throws {
        try await withStopping(CampaignFixture()) { fixture in
            let admin = try fixture.admin()
            let creative = try await fixture.uploadPNG(admin)
            _ = try await admin.call(AdminAPI.appSet, AppPatch(app: "shop", market: .global, reportPause: 3))
            // Another app's campaign, with no threshold: its fresh report shows the edge still shipping at the end.
            let other = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "other", app: "news", creative: creative)).campaign.id
            let created = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "reported", creative: creative))
            let id = created.campaign.id
            func reports(_ campaign: Int64? = nil) async -> CampaignStats? {
                let answer = try? await admin.call(AdminAPI.campaignStats, CampaignStatsParams(id: campaign ?? id))
                return answer?.stats.first
            }
            // Every report at the same moment of this hour: an hour passing during the test does not part them.
            let at = HourlyCount.hour(of: .now()).adding(seconds: 1)
            func event(_ n: Int, _ reason: ReportReason?, type: LaunchEvent.Kind = .reported) -> LaunchEvent {
                LaunchEvent(eventId: "r-\(n)", type: type, campaignId: id, deviceId: "d-\(n)", at: at, reason: reason)
            }
            try await withStopping(fixture.startRelay("relay-1")) { relay in
                func startEdge() async throws -> EdgeProcess {
                    try await fixture.startEdge("edge-r", sync: relay.endpoints["sync"], updates: relay.endpoints["updates"])
                }
                var edge = try await startEdge()
                #expect(await edge.waitFor(seq: created.seq, creatives: 1), "\(edge.log.suffix(2000))")
                let query = LaunchQueryParams(app: "shop", platform: "ios", appVersion: "5.2.0", deviceId: "d-q")
                #expect(try await edge.query(query).id == id)

                // The reason: required for reported, refused on the other kinds, one of four.
                for (bad, field, rule) in [
                    (event(90, nil), "events[0].reason", "is required for reported (inappropriate, misleading, repetitive, other)"),
                    (event(91, .other, type: .impression), "events[0].reason", "is only for reported"),
                    (LaunchEvent(eventId: "r-92", type: .reported, campaignId: nil, deviceId: "d", reason: .other), "events[0].campaignId",
                     "is required for impression, click, skip and reported"),
                ] {
                    await #expect { try await edge.client.call(ClientAPI.launchReport, LaunchReportParams(events: [bad])) } throws: { error in
                        let error = error as? JSONRPCError
                        return error?.code == -32602 && error?.data?["field"] == .string(field) && error?.data?["reason"] == .string(rule)
                    }
                }
                let unknown: JSONValue = .object([
                    "events": .array([.object(["eventId": "r-93", "type": "reported", "campaignId": .number(JSONNumber(id)), "deviceId": "d", "reason": "boring"])]),
                ])
                await #expect { try await edge.client.call(ClientAPI.launchReport.name, params: unknown) } throws: { error in
                    (error as? JSONRPCError)?.code == -32602 && (error as? JSONRPCError)?.data?["field"] == "events[0].reason"
                }

                // Two reports (one sent twice): counted, not yet the threshold.
                var result = try await edge.client.call(ClientAPI.launchReport, LaunchReportParams(events: [event(1, .misleading), event(2, .inappropriate), event(1, .misleading)]))
                #expect(result.accepted == 2 && result.duplicates == 1)
                #expect(await eventually(timeout: .seconds(10)) { await reports()?.reports == 2 }, "\(edge.log.suffix(2000))")

                // The edge restarts: the same ids are known, and not counted again.
                await edge.stop()
                edge = try await startEdge()
                #expect(await edge.waitFor(seq: created.seq, creatives: 1))
                result = try await edge.client.call(ClientAPI.launchReport, LaunchReportParams(events: [event(1, .misleading), event(2, .inappropriate)]))
                #expect(result.accepted == 0 && result.duplicates == 2)
                // A third: the threshold of 3 an hour reached, the campaign paused by rules.
                result = try await edge.client.call(ClientAPI.launchReport, LaunchReportParams(events: [event(3, .repetitive)]))
                #expect(result.accepted == 1)
                #expect(await eventually(timeout: .seconds(10)) { await reports()?.reports == 3 })
                let stats = await reports()
                #expect(stats?.reasons == ReportReasons(inappropriate: 1, misleading: 1, repetitive: 1))
                #expect(await eventually(timeout: .seconds(10)) {
                    (try? await admin.call(AdminAPI.campaignGet, CampaignID(id: id)).campaign.state) == .paused
                })
                let changes = try await admin.call(AdminAPI.changeList, ChangeListParams(id: id)).changes
                #expect(changes.map { "\($0.op.rawValue) by \($0.actor)" } == ["created by local", "paused by rules"], "\(changes)")
                // The pause reaches the edge: it no longer answers the campaign.
                #expect(await edge.waitFor(seq: changes.last?.seq ?? .max), "\(edge.log.suffix(2000))")
                #expect(try await edge.query(query).id != id)
                let listed = try await admin.call(AdminAPI.reportList, ReportListParams(app: "shop")).campaigns
                #expect(listed.map(\.id) == [id] && listed.first?.total == 3 && listed.first?.name == "reported")
                // One device reports a campaign once an hour: a fresh event id from it is a duplicate. Once the fresh
                // report of the other campaign is counted (shipped after everything before it), the duplicates are
                // not, on either campaign.
                result = try await edge.client.call(ClientAPI.launchReport, LaunchReportParams(events: [
                    LaunchEvent(eventId: "o-1", type: .reported, campaignId: other, deviceId: "d-9", at: at, reason: .other),
                    LaunchEvent(eventId: "o-2", type: .reported, campaignId: other, deviceId: "d-9", at: at, reason: .misleading),
                ]))
                #expect(result.accepted == 1 && result.duplicates == 1)
                #expect(await eventually(timeout: .seconds(10)) { await reports(other)?.reports == 1 }, "\(edge.log.suffix(2000))")
                #expect(await reports(other)?.reasons == ReportReasons(other: 1))
                #expect(await reports()?.reports == 3)
                await edge.stop()
            }
            await admin.close()
        }
    }

    @Test("a relay that alters, drops or adds an edge's reports by reason is refused by the seal; a report sealed with them is taken")
    func sealedReasons() async throws {
        let directory = try makeTemporaryDirectory("reported-seal")
        defer { removeTemporaryDirectory(directory) }
        let keys = try KeyTree(in: directory)
        let relay = try keys.add(relay: "relay-1")
        let edgeA = try keys.add(edge: "edge-a", below: "relay-1")

        try await withCampaignService(configure: { $0.keysDirectory = keys.campaigndFolder.path }) { campaign in
            let admin = try keys.client(campaign)
            let creative = try await campaign.uploadPNG(admin)
            let id = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(app: "shop", creative: creative)).campaign.id
            let passer = try keys.client(campaign, socket: "sync", pair: relay)
            let sealA = try RecordSealer(keyPair: edgeA, origin: keys.campaignd.publicKey)
            let hour = HourlyCount.hour(of: .now())
            let reasons = ReportReasons(misleading: 2)
            func report(_ reasons: ReportReasons?, _ change: (inout EdgeReport) -> Void = { _ in }) -> EdgeReport {
                var report = sealA.sealed(EdgeReport(edgeId: "edge-a", reportId: 1, counts: [CampaignStats(id: id, impressions: 1, clicks: 0, skips: 0, reasons: reasons)],
                                                     hourly: [HourlyCount(id: id, hour: hour, impressions: 1, reasons: reasons)], region: "r"))
                change(&report)
                report.via = ["relay-1"]
                return report
            }
            let tampered: [(String, EdgeReport)] = [
                ("a reason raised", report(reasons) { $0.hourly?[0].reasons?.misleading = 200; $0.counts[0].reasons?.misleading = 200 }),
                ("a reason moved", report(reasons) { $0.counts[0].reasons = ReportReasons(other: 2); $0.hourly?[0].reasons = ReportReasons(other: 2) }),
                ("the reasons dropped", report(reasons) { $0.hourly?[0].reasons = nil; $0.counts[0].reasons = nil }),
                ("reasons added to a report without", report(nil) { $0.hourly?[0].reasons = reasons; $0.counts[0].reasons = reasons }),
            ]
            for (what, altered) in tampered {
                do {
                    _ = try await passer.call(SyncAPI.report, altered)
                    Issue.record("\(what): taken")
                } catch {
                    #expect((error as? JSONRPCError)?.code == APIError.sealRefused.code, "\(what): \(error)")
                }
            }
            // The hours' reasons not adding up to the totals' (only the hours inflated), or a total out of bounds: refused
            // before the seal is read, naming the field.
            for (altered, field) in [
                (report(reasons) { $0.hourly?[0].reasons?.misleading = 200 }, "counts[0].reasons"),
                (report(nil) { $0.hourly?[0].reasons = reasons }, "counts[0].reasons"),
                (report(reasons) { $0.counts = [] }, "hourly[0].reasons"),
                (report(reasons) { $0.counts[0].reports = -1 }, "counts[0].reports"),
            ] {
                await #expect { _ = try await passer.call(SyncAPI.report, altered) } throws: { error in
                    (error as? JSONRPCError)?.code == -32602 && (error as? JSONRPCError)?.data?["field"] == .string(field)
                }
            }
            #expect(try await passer.call(SyncAPI.report, report(reasons)).accepted)
            let stats = try await admin.call(AdminAPI.campaignStats, CampaignStatsParams(id: id)).stats.first
            #expect(stats?.reports == 2 && stats?.reasons == reasons)
            // An edge's fallback after a refused hour: its totals alone, their reasons kept, filed under this hour.
            var totals = sealA.sealed(EdgeReport(edgeId: "edge-a", reportId: 2, counts: [CampaignStats(id: id, impressions: 0, clicks: 0, skips: 0,
                                                                                                     reasons: ReportReasons(other: 1))], region: "r"))
            totals.via = ["relay-1"]
            #expect(try await passer.call(SyncAPI.report, totals).accepted)
            let after = try await admin.call(AdminAPI.campaignStats, CampaignStatsParams(id: id)).stats.first
            #expect(after?.reports == 3 && after?.reasons == ReportReasons(misleading: 2, other: 1))
            await passer.close()
            await admin.close()
        }
    }
}
