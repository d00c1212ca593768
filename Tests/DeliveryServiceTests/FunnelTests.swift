@testable import DeliveryService
import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdTesting
import Testing
import ZMQRPC

@Suite("The funnel: request, noAd, timeout and failed reports counted by app and hour, and app.stats", .timeLimit(.minutes(3)))
struct FunnelTests {
    /// A funnel's report of `app` (no campaign unless given).
    static func event(_ id: String, _ type: LaunchEvent.Kind, app: String?, campaign: Int64? = nil, device: String = "d-1") -> LaunchEvent {
        LaunchEvent(eventId: id, type: type, campaignId: campaign, deviceId: device, app: app)
    }

    /// `events` as a `launch.report` call's JSON text, for `/rpc`.
    static func rpcBody(_ events: [LaunchEvent], id: Int) throws -> String {
        let params = try JSONValueEncoder().encode(LaunchReportParams(events: events)).jsonText
        return #"{"jsonrpc":"2.0","id":\#(id),"method":"launch.report","params":\#(params)}"#
    }

    /// Waits until `app.stats` for `app` over the last hours answers totals that `done` takes; returns the last answer.
    static func stats(_ admin: RPCClient, _ app: String, until done: @escaping @Sendable (AppFunnel) -> Bool) async -> AppStatsResult? {
        let last = LastAnswer()
        _ = await eventually(timeout: .seconds(15)) {
            guard let answer = try? await admin.call(AdminAPI.appStats, AppStatsParams(app: app)) else { return false }
            last.value = answer
            return done(answer.totals)
        }
        return last.value
    }

    final class LastAnswer: @unchecked Sendable {
        // @unchecked: written and read by the one test's task, in turn.
        var value: AppStatsResult?
    }

    @Test("an app with no campaign is counted as noAd; a timeout sent again, also after the edge restarts, is counted once; fills, shows and both rates over ZeroMQ and /rpc")
    func funnelEndToEnd() async throws {
        try await DeliveryServiceTests.withCampaignd { fixture, admin, creative in
            let created = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(app: "shop", creative: creative))
            let id = created.campaign.id
            let fast: (inout DeliveryServiceConfiguration) -> Void = { $0.reportInterval = .milliseconds(200) }
            try await withEdge("edge-funnel", connectedTo: fixture, configure: fast) { edge in
                #expect(await edge.waitFor(seq: created.seq, creatives: 1))
                // An app the edge holds no campaign of: its launches are answered without an ad, and reported so.
                let none = try await edge.query(LaunchQueryParams(app: "news", platform: "ios", appVersion: "5.2.0", deviceId: "d-9"))
                #expect(!none.hasAd)
                let news = try await edge.client.call(ClientAPI.launchReport, LaunchReportParams(events: [
                    Self.event("n-1", .request, app: "news"), Self.event("n-2", .noAd, app: "news"),
                    Self.event("n-3", .request, app: "news", device: "d-8"), Self.event("n-4", .noAd, app: "news", device: "d-8"),
                ]))
                #expect(news.accepted == 4 && news.duplicates == 0)
                // shop over the client socket: two launches, one shown, one timed out (the timeout sent twice in one
                // call, as a retry would), and a failure naming the campaign.
                let shop = try await edge.client.call(ClientAPI.launchReport, LaunchReportParams(events: [
                    Self.event("s-1", .request, app: "shop"),
                    LaunchEvent(eventId: "s-2", type: .impression, campaignId: id, deviceId: "d-1", app: "shop"),
                    Self.event("s-3", .request, app: "shop", device: "d-2"),
                    Self.event("s-4", .timeout, app: "shop", device: "d-2"), Self.event("s-4", .timeout, app: "shop", device: "d-2"),
                    Self.event("s-5", .failed, app: "shop", campaign: id, device: "d-2"),
                ]))
                #expect(shop.accepted == 5 && shop.duplicates == 1)
                // And over /rpc: two launches, both shown (an impression without app counts for its campaign's app).
                let http = try HTTPTestConnection(edge.endpoints["http"]!)
                #expect(http.send(HTTPTestConnection.rpc(try Self.rpcBody([
                    Self.event("s-6", .request, app: "shop", device: "d-3"),
                    LaunchEvent(eventId: "s-7", type: .impression, campaignId: id, deviceId: "d-3"),
                    Self.event("s-8", .request, app: "shop", device: "d-4"),
                    LaunchEvent(eventId: "s-9", type: .impression, campaignId: id, deviceId: "d-4", app: "shop"),
                    Self.event("s-4", .timeout, app: "shop", device: "d-2"),
                ], id: 1))))
                let reply = http.response()
                #expect(reply?.status == 200 && reply?.text.contains(#""accepted":4,"duplicates":1"#) == true, "\(reply?.text ?? "no reply")")

                let newsStats = await Self.stats(admin, "news") { $0.requests == 2 }
                #expect(newsStats?.totals == AppFunnel(requests: 2, fills: 0, shows: 0, timeouts: 0, failures: 0, fillRate: 0, showRate: nil),
                        "\(String(describing: newsStats)) \(edge.log.suffix(1500))")
                let shopStats = await Self.stats(admin, "shop") { $0.requests == 4 && $0.shows == 3 }
                // fills = 4 requests - 0 noAd - 1 timeout; fill rate 3/4; show rate 3 shows / 3 fills.
                #expect(shopStats?.totals == AppFunnel(requests: 4, fills: 3, shows: 3, timeouts: 1, failures: 1, fillRate: 0.75, showRate: 1))
                // The series is by hour, and sums to the totals.
                #expect(shopStats?.series.reduce(0) { $0 + $1.requests } == 4 && shopStats?.series.reduce(0) { $0 + $1.shows } == 3)
                #expect(shopStats?.series.allSatisfy { $0.at.map { HourlyCount.hour(of: $0) == $0 } == true } == true)
                // The campaign's own counts are as before: three impressions, by campaign.
                #expect(try await admin.call(AdminAPI.campaignStats, CampaignStatsParams(id: id)).stats.first?.impressions == 3)
            }
            // The edge again, on its cache folder: the timeout's id is still known, and nothing more is counted of it.
            try await withEdge("edge-funnel", connectedTo: fixture, configure: fast) { edge in
                #expect(await edge.waitFor(seq: created.seq, creatives: 1))
                let again = try await edge.client.call(ClientAPI.launchReport, LaunchReportParams(events: [
                    Self.event("s-4", .timeout, app: "shop", device: "d-2"), Self.event("s-10", .request, app: "shop", device: "d-5"),
                ]))
                #expect(again.accepted == 1 && again.duplicates == 1)
                let shopStats = await Self.stats(admin, "shop") { $0.requests == 5 }
                #expect(shopStats?.totals == AppFunnel(requests: 5, fills: 4, shows: 3, timeouts: 1, failures: 1, fillRate: 0.8, showRate: 0.75),
                        "\(String(describing: shopStats))")
            }
        }
    }

    @Test("counts by app wait in the edge's report file while campaignd is away, outlive a restart, and are shipped once it answers")
    func waitWhileAway() async throws {
        try await withCampaignService { fixture in
            let admin = try fixture.admin()
            let fast: (inout DeliveryServiceConfiguration) -> Void = { $0.reportInterval = .milliseconds(200) }
            let file = fixture.cacheDirectory("edge-away").appendingPathComponent("reports.json")
            // Nothing listens on port 1: campaignd is away, and the edge's reports wait.
            try await withEdge("edge-away", connectedTo: fixture, sync: "tcp://127.0.0.1:1", updates: "tcp://127.0.0.1:1", configure: fast) { edge in
                let result = try await edge.client.call(ClientAPI.launchReport, LaunchReportParams(events: [
                    Self.event("w-1", .request, app: "news"), Self.event("w-2", .noAd, app: "news"), Self.event("w-3", .request, app: "news"),
                    Self.event("w-4", .failed, app: "news"),
                ]))
                #expect(result.accepted == 4)
                #expect(await eventually(timeout: .seconds(10)) {
                    (try? String(contentsOf: file, encoding: .utf8))?.contains(#""app":"news""#) == true
                }, "\(edge.log.suffix(1500))")
            }
            #expect(try await admin.call(AdminAPI.appStats, AppStatsParams(app: "news")).totals.requests == 0)
            // Started again, now reaching campaignd: the counts from the file go up, once.
            try await withEdge("edge-away", connectedTo: fixture, configure: fast) { edge in
                let news = await Self.stats(admin, "news") { $0.requests == 2 }
                #expect(news?.totals == AppFunnel(requests: 2, fills: 1, shows: 0, timeouts: 0, failures: 1, fillRate: 0.5, showRate: 0),
                        "\(String(describing: news)) \(edge.log.suffix(1500))")
                // The ids are known again: a client sending them again counts nothing more.
                let again = try await edge.client.call(ClientAPI.launchReport, LaunchReportParams(events: [Self.event("w-2", .noAd, app: "news")]))
                #expect(again.duplicates == 1)
            }
            await admin.close()
        }
    }

    @Test("launch.report names the field it refuses: app required for the funnel's reports, a campaign for impressions, the campaign's own app, an app id as launch.query takes it")
    func refusals() async throws {
        try await HTTPRPCTests.withLiveEdge { edge, _, campaign, _ in
            let id = campaign.id
            let cases: [([LaunchEvent], String)] = [
                ([Self.event("r-1", .timeout, app: nil)], "events[0].app"),
                ([Self.event("r-1", .request, app: "shop"), Self.event("r-2", .noAd, app: nil, campaign: id)], "events[1].app"),
                ([LaunchEvent(eventId: "r-1", type: .impression, campaignId: nil, deviceId: "d-1", app: "shop")], "events[0].campaignId"),
                ([LaunchEvent(eventId: "r-1", type: .click, campaignId: id, deviceId: "d-1", app: "news")], "events[0].app"),
                ([Self.event("r-1", .failed, app: "news", campaign: id)], "events[0].app"),
                ([Self.event("r-1", .request, app: "Shop App")], "events[0].app"),
                ([Self.event("r-1", .request, app: String(repeating: "a", count: 65))], "events[0].app"),
                ([Self.event("r-1", .noAd, app: "shop", campaign: 0)], "events[0].campaignId"),
                ([LaunchEvent(eventId: "r-1", type: .skip, campaignId: 999_999, deviceId: "d-1", app: "shop")], "events[0].campaignId"),
            ]
            for (events, field) in cases {
                do {
                    _ = try await edge.client.call(ClientAPI.launchReport, LaunchReportParams(events: events))
                    Issue.record("taken, where \(field) should have been refused")
                } catch let error as JSONRPCError {
                    #expect(error.code == -32602 && error.data?["field"] == .string(field), "\(field): \(error)")
                }
            }
            // The same over /rpc; and an unknown type names the type.
            let http = try HTTPTestConnection(edge.endpoints["http"]!)
            #expect(http.send(HTTPTestConnection.rpc(try Self.rpcBody([Self.event("r-1", .timeout, app: nil)], id: 2))))
            let reply = http.response()
            #expect(reply?.text.contains(#""field":"events[0].app""#) == true, "\(reply?.text ?? "no reply")")
            await #expect { try await edge.client.call("launch.report", params: ["events": [["eventId": "r-1", "type": "launch", "deviceId": "d-1", "app": "shop"]]]) }
                throws: { ($0 as? JSONRPCError)?.code == -32602 }
            // A campaign the edge no longer holds may come with a funnel's report: it is counted by its app.
            let taken = try await edge.client.call(ClientAPI.launchReport, LaunchReportParams(events: [Self.event("r-9", .failed, app: "shop", campaign: 999_999)]))
            #expect(taken.accepted == 1)
        }
    }

    @Test("app.stats names the param it refuses: the app id, a span that ends before it starts or is too long, an unknown bucket")
    func appStatsRefusals() async throws {
        try await withCampaignService { fixture in
            let admin = try fixture.admin()
            let now = Timestamp.now()
            for (params, field) in [
                (AppStatsParams(app: ""), "app"),
                (AppStatsParams(app: "Shop"), "app"),
                (AppStatsParams(app: String(repeating: "a", count: 65)), "app"),
                (AppStatsParams(app: "shop", from: now, to: now.adding(seconds: -3600)), "to"),
                (AppStatsParams(app: "shop", from: now.adding(seconds: -40 * 86_400), to: now, by: .hour), "from"),
                (AppStatsParams(app: "shop", from: now.adding(seconds: -400 * 86_400), to: now, by: .day), "from"),
            ] {
                await #expect { try await admin.call(AdminAPI.appStats, params) } throws: { error in
                    (error as? JSONRPCError)?.code == -32602 && (error as? JSONRPCError)?.data?["field"] == .string(field)
                }
            }
            for params: JSONValue in [["app": "shop", "by": "week"], ["from": "2026-12-01T00:00:00Z"], ["app": 7], ["app": "shop", "to": "yesterday"]] {
                await #expect { try await admin.call("app.stats", params: params) } throws: { ($0 as? JSONRPCError)?.code == -32602 }
            }
            // An app nothing was reported for: zeros, no rate, no bucket.
            let empty = try await admin.call(AdminAPI.appStats, AppStatsParams(app: "quiet", by: .day))
            #expect(empty.totals == AppFunnel(requests: 0, fills: 0, shows: 0, timeouts: 0, failures: 0, fillRate: nil, showRate: nil))
            #expect(empty.series.isEmpty && empty.by == .day && empty.to.milliseconds - empty.from.milliseconds >= 30 * 86_400_000)
            await admin.close()
        }
    }

    @Test("the edge holds a bounded number of apps and hours: a new one past the bound is not counted, those held still are, and a report takes the oldest hours first")
    func boundedApps() {
        let ledger = EventLedger(capacity: 1_000, appLimit: 3)
        let now = Timestamp.now()
        let earlier = now.adding(seconds: -3 * 3600)
        #expect(ledger.admit(LaunchEvent(eventId: "old", type: .request, campaignId: nil, deviceId: "d", at: earlier, app: "a0"), app: "a0", now: now))
        for n in 1...4 { #expect(ledger.admit(Self.event("e\(n)", .request, app: "a\(n)"), app: "a\(n)", now: now)) }
        #expect(ledger.unsentApps.map(\.app) == ["a0", "a1", "a2"])
        // Held: still counted; an impression as a show of its campaign's app; a click counts for no app.
        #expect(ledger.admit(Self.event("e5", .timeout, app: "a1"), app: "a1", now: now))
        #expect(ledger.admit(LaunchEvent(eventId: "e6", type: .impression, campaignId: 7, deviceId: "d"), app: "a2", now: now))
        #expect(ledger.admit(LaunchEvent(eventId: "e7", type: .click, campaignId: 7, deviceId: "d"), app: "a2", now: now))
        #expect(!ledger.admit(Self.event("e5", .timeout, app: "a1"), app: "a1", now: now))
        let held = Dictionary(uniqueKeysWithValues: ledger.unsentApps.map { ($0.app, $0.numbers) })
        #expect(held == ["a0": [1, 0, 0, 0, 0], "a1": [1, 0, 1, 0, 0], "a2": [1, 0, 0, 0, 1]])
        #expect(ledger.drain().map(\.impressions) == [1] && ledger.unsent.isEmpty)
        // A report takes at most its share, the oldest hour first; the rest waits, and room is made for new apps.
        #expect(ledger.drainApps(limit: 2).map(\.app) == ["a0", "a1"])
        #expect(ledger.unsentApps.map(\.app) == ["a2"])
        #expect(ledger.admit(Self.event("e8", .noAd, app: "a8"), app: "a8", now: now))
        #expect(ledger.drainApps().map(\.app) == ["a2", "a8"] && ledger.unsentApps.isEmpty)
    }
}
