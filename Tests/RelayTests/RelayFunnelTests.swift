import DeliveryService
import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdRuntime
import LaunchAdTesting
import Testing
import ZMQRPC

/// The funnel's counts by app come up from edges behind relays like the campaigns' counts: passed on as they come,
/// checked at each relay, and sealed by the edge so that no relay can change them.
@Suite("the funnel's counts through relays", .timeLimit(.minutes(3)))
struct RelayFunnelTests {
    @Test("an edge behind a relay reports its apps' launches with CURVE and seals: app.stats answers them, fill and show rates included")
    func throughRelay() async throws {
        let directory = try makeTemporaryDirectory("funnel-relay")
        defer { removeTemporaryDirectory(directory) }
        let keys = try KeyTree(in: directory)
        try keys.add(relay: "relay-1")
        try keys.add(edge: "edge-a", below: "relay-1")

        try await withCampaignService(configure: { $0.keysDirectory = keys.campaigndFolder.path }) { campaign in
            let admin = try keys.client(campaign)
            let creative = try await campaign.uploadPNG(admin)
            let created = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(app: "shop", creative: creative))
            let id = created.campaign.id
            try await withRelay("relay-1", connectedTo: campaign, configure: { $0.keysDirectory = keys.folder("relay-1").path }) { relay in
                try await withEdge("edge-a", connectedTo: relay, configure: {
                    $0.keysDirectory = keys.folder("edge-a").path
                    $0.reportInterval = .milliseconds(200)
                }) { edge in
                    #expect(await edge.waitFor(seq: created.seq, creatives: 1))
                    func funnel(_ n: Int, _ type: LaunchEvent.Kind, _ app: String) -> LaunchEvent {
                        LaunchEvent(eventId: "f-\(n)", type: type, campaignId: nil, deviceId: "d-\(n)", app: app)
                    }
                    // shop: 5 launches, 1 nothing to show, 1 timed out (sent twice), 2 shown; news: 2 launches, none filled.
                    let events = (1...5).map { funnel($0, .request, "shop") } + [
                        funnel(6, .noAd, "shop"), funnel(7, .timeout, "shop"), funnel(7, .timeout, "shop"),
                        LaunchEvent(eventId: "f-8", type: .impression, campaignId: id, deviceId: "d-1", app: "shop"),
                        LaunchEvent(eventId: "f-9", type: .impression, campaignId: id, deviceId: "d-2"),
                        funnel(10, .request, "news"), funnel(11, .request, "news"), funnel(12, .noAd, "news"), funnel(13, .timeout, "news"),
                    ]
                    let result = try await edge.client.call(ClientAPI.launchReport, LaunchReportParams(events: events))
                    #expect(result.accepted == 13 && result.duplicates == 1)
                    var shop: AppStatsResult?
                    #expect(await eventually(timeout: .seconds(10)) {
                        shop = try? await admin.call(AdminAPI.appStats, AppStatsParams(app: "shop"))
                        return shop?.totals.requests == 5 && shop?.totals.shows == 2
                    }, "\(String(describing: shop))\n\(campaign.log.suffix(2000))")
                    // fills = 5 - 1 - 1 = 3: fill rate 3/5, show rate 2/3.
                    #expect(shop?.totals == AppFunnel(requests: 5, fills: 3, shows: 2, timeouts: 1, failures: 0, fillRate: 0.6, showRate: 2.0 / 3))
                    let news = try await admin.call(AdminAPI.appStats, AppStatsParams(app: "news"))
                    #expect(news.totals == AppFunnel(requests: 2, fills: 0, shows: 0, timeouts: 1, failures: 0, fillRate: 0, showRate: nil))
                    #expect(!campaign.log.contains("not sealed by its edge"), "\(campaign.log.suffix(2000))")
                }
            }
            await admin.close()
        }
    }

    @Test("a relay that alters, drops or adds an edge's counts by app is refused by the seal; the relay checks their bounds before passing them on")
    func alteredFunnel() async throws {
        let directory = try makeTemporaryDirectory("funnel-seal")
        defer { removeTemporaryDirectory(directory) }
        let keys = try KeyTree(in: directory)
        let relay = try keys.add(relay: "relay-1")
        let edgeA = try keys.add(edge: "edge-a", below: "relay-1")

        try await withCampaignService(configure: { $0.keysDirectory = keys.campaigndFolder.path }) { campaign in
            let passer = try keys.client(campaign, socket: "sync", pair: relay)
            let sealA = try RecordSealer(keyPair: edgeA, origin: keys.campaignd.publicKey)
            let hour = HourlyCount.hour(of: .now())
            let apps = [AppHourlyCount(app: "shop", hour: hour, requests: 10, noAds: 1, timeouts: 1, shows: 7)]
            func report(_ id: Int64, apps: [AppHourlyCount]?, _ change: (inout EdgeReport) -> Void = { _ in }) -> EdgeReport {
                var report = sealA.sealed(EdgeReport(edgeId: "edge-a", reportId: id, counts: [], apps: apps, region: "r"))
                change(&report)
                report.via = ["relay-1"]
                return report
            }
            func refusal(_ report: EdgeReport) async -> JSONRPCError? {
                do { _ = try await passer.call(SyncAPI.report, report); return nil } catch { return error as? JSONRPCError }
            }
            let tampered: [(String, EdgeReport)] = [
                ("a count raised", report(1, apps: apps) { $0.apps?[0].requests = 1_000 }),
                ("shows raised", report(1, apps: apps) { $0.apps?[0].shows = 10 }),
                ("another app", report(1, apps: apps) { $0.apps?[0].app = "news" }),
                ("another hour", report(1, apps: apps) { $0.apps?[0].hour = hour.adding(seconds: -3600) }),
                ("an app added", report(1, apps: apps) { $0.apps?.append(AppHourlyCount(app: "news", hour: hour, requests: 1)) }),
                ("the counts dropped", report(1, apps: apps) { $0.apps = nil }),
                ("counts added to a report without", report(1, apps: nil) { $0.apps = apps }),
            ]
            for (what, altered) in tampered {
                let refused = await refusal(altered)
                #expect(refused?.code == APIError.sealRefused.code && refused?.data?["field"] == "mac", "\(what): \(String(describing: refused))")
            }
            #expect(try await passer.call(SyncAPI.report, report(1, apps: apps)).accepted)
            let admin = try keys.client(campaign)
            #expect(try await admin.call(AdminAPI.appStats, AppStatsParams(app: "shop")).totals.requests == 10)
            await admin.close()
            await passer.close()
        }
        // A relay refuses counts out of bounds before they go up, naming the field, as campaignd would.
        try await withCampaignService { campaign in
            try await withRelay("relay-1", connectedTo: campaign) { relay in
                var configuration = RPCClientConfiguration(endpoint: relay.endpoints["sync"]!)
                configuration.timeout = .seconds(5)
                let client = try RPCClient(context: campaign.context, configuration: configuration)
                let hour = HourlyCount.hour(of: .now())
                for (count, field) in [(AppHourlyCount(app: "shop", hour: hour, timeouts: PeerNumbers.maxCount + 1), "apps[0]"),
                                       (AppHourlyCount(app: "no such app", hour: hour, requests: 1), "apps[0].app")] {
                    await #expect { try await client.call(SyncAPI.report, EdgeReport(edgeId: "edge-x", reportId: 1, counts: [], apps: [count])) }
                        throws: { ($0 as? JSONRPCError)?.code == -32602 && ($0 as? JSONRPCError)?.data?["field"] == .string(field) }
                }
                #expect(try await client.call(SyncAPI.report, EdgeReport(edgeId: "edge-x", reportId: 1, counts: [],
                                                                         apps: [AppHourlyCount(app: "shop", hour: hour, requests: 3)])).accepted)
                await client.close()
            }
        }
    }
}
