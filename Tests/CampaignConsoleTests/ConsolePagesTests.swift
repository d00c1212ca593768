import CampaignConsole
import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdTesting
import Testing

@Suite("The console's pages and writes, against campaignd and an edge in process", .timeLimit(.minutes(3)))
struct ConsolePagesTests {
    @Test("The ready announcement names the console's bound address")
    func readyNamesConsole() async throws {
        try await withConsole { service, client, _ in
            let console = try #require(service.endpoints["console"])
            #expect(console.hasPrefix("127.0.0.1:") && !console.hasSuffix(":0"))
            #expect(service.endpoints["http"] != nil)
            #expect(try await client.get("/signin").status == 200)
        }
    }

    @Test("A campaign's page shows its fields, a phone per variant and shape, its stats by hour and its history")
    func campaignPage() async throws {
        try await withConsole { service, client, admin in
            let tall = CampaignFixture.png(width: 1170, height: 2532)
            let classic = MediaBytes.gif(width: 1080, height: 1920, delays: [50, 50, 60])
            let id = try await createCampaign(service, admin, creatives: [tall, classic]) {
                $0.countdown = 5
                $0.skipAfter = 2
                $0.jump = Jump(type: .deeplink, value: "shop://sale/autumn")
            }
            let now = Timestamp.now()
            let hour = Timestamp(milliseconds: now.milliseconds / 3_600_000 * 3_600_000)
            try await service.app.store.addReport(edgeId: "e1", reportId: 1, counts: [CampaignStats(id: id, impressions: 40, clicks: 3, skips: 7)],
                                                  hourly: [HourlyCount(id: id, hour: hour, impressions: 40, clicks: 3, skips: 7)], region: "test")
            try await client.signIn(aliceToken)
            let list = try await client.get("/")
            #expect(list.body.contains("<svg class=\"timeline\""))
            #expect(list.body.contains("href=\"/campaigns/\(id)\""))

            let page = try await client.get("/campaigns/\(id)")
            #expect(page.status == 200)
            // Each variant on four common iPhones, each screen in points (the SVG's viewBox), drawn from AdLayout.
            #expect(page.body.components(separatedBy: "<svg class=\"phone\"").count == 9)
            #expect(page.body.contains("viewBox=\"0 0 393 852\" data-screen=\"393x852@3\""))
            // One screen asked for: one phone per variant, skip where the model puts it under a 47 pt notch.
            let one = try await client.get("/campaigns/\(id)?screen=390x844@3&safeTop=47&safeBottom=34")
            #expect(one.status == 200)
            #expect(one.body.components(separatedBy: "<svg class=\"phone\"").count == 3)
            #expect(one.body.contains("<rect data-frame=\"skip\" class=\"badge\" x=\"302\" y=\"55\" width=\"72\" height=\"44\""))
            for (query, field) in [("screen=390x844", "screen"), ("screen=390x844@3&safeTop=-1", "safeTop"), ("screen=10x20@2", "screen"),
                                   ("safeBottom=34", "safeTop and safeBottom go with screen")] {
                let refused = try await client.get("/campaigns/\(id)?\(query)")
                #expect(refused.status == 400 && refused.body.contains(field), "\(query)")
            }
            #expect(page.body.contains("data-countdown=\"5\" data-skippable=\"true\" data-skip-after=\"2\""))
            #expect(page.body.contains("opens deep link shop://sale/autumn"))
            // What each variant is, and how long an animation or a video plays.
            #expect(page.body.contains("<h3>1170×2532 · image/png · variant "))
            #expect(page.body.contains("<h3>1080×1920 · image/gif, plays 1.6 s · variant "))
            #expect(page.body.contains("An edge answers this campaign now"))
            #expect(page.body.contains("impressions by hour (total 40)"))
            #expect(page.body.contains("clicks by hour (total 3)"))
            #expect(page.body.contains("<rect class=\"bar\""))
            #expect(page.body.contains("<td>created</td><td>local</td>"))
            #expect(page.body.contains("href=\"/campaigns/\(id)/pause\""))
            #expect(!page.body.contains("href=\"/campaigns/\(id)/resume\""))

            // The creative the preview shows is served to the signed-in console only.
            let sha256 = try await admin.call(AdminAPI.campaignGet, CampaignID(id: id)).campaign.creatives[0].sha256
            let image = try await client.get("/creatives/\(sha256)")
            #expect(image.status == 200)
            #expect(image.header("Content-Type") == "image/png")
            #expect(try await client.get("/creatives/\(String(repeating: "0", count: 64))").status == 404)
            #expect(try await client.get("/creatives/..%2F..%2Fetc%2Fpasswd").status == 404)
        }
    }

    @Test("The campaigns page shows each app's funnel over the last day, from app.stats")
    func appFunnel() async throws {
        try await withConsole { service, client, admin in
            _ = try await createCampaign(service, admin)  // app "shop"
            let hour = HourlyCount.hour(of: .now())
            try await service.app.store.addReport(edgeId: "e1", reportId: 1, counts: [], hourly: [], apps: [
                AppHourlyCount(app: "shop", hour: hour, requests: 8, noAds: 1, timeouts: 1, failures: 1, shows: 5),
                AppHourlyCount(app: "shop", hour: hour.adding(seconds: -3 * 86_400), requests: 100),  // older than the page's day
            ], region: "test")
            try await client.signIn(aliceToken)
            let list = try await client.get("/")
            #expect(list.status == 200)
            // fills = 8 - 1 - 1 = 6: fill rate 6/8, show rate 5/6.
            let expected = ["requests": "8", "fills": "6", "shows": "5", "timeouts": "1", "failures": "1", "fillRate": "75.0%", "showRate": "83.3%"]
            #expect(list.body.contains(#"<table class="funnel" data-app="shop">"#), "\(list.body)")
            for (name, value) in expected {
                #expect(list.body.contains(#"<td data-count="\#(name)">\#(value)</td>"#), "\(name) \(list.body)")
            }
        }
    }

    @Test("Bad input to a write is told on the page, and nothing changes")
    func badInput() async throws {
        try await withConsole { service, client, admin in
            let id = try await createCampaign(service, admin)
            try await client.signIn(aliceToken)
            let csrf = try #require(ConsoleClient.csrf(in: try await client.get("/campaigns/\(id)/expire").body))
            let badID = try await client.post("/campaigns/abc/expire", [("csrf", csrf), ("confirm", "yes")])
            #expect(badID.status == 400)
            #expect(badID.body.contains("A campaign id is a positive whole number."))
            let badOperation = try await client.post("/campaigns/\(id)/destroy", [("csrf", csrf), ("confirm", "yes")])
            #expect(badOperation.status == 400)
            #expect(badOperation.body.contains("The console&#39;s writes are pause, resume, expire, force, unforce."))
            let unconfirmed = try await client.post("/campaigns/\(id)/expire", [("csrf", csrf)])
            #expect(unconfirmed.status == 400)
            #expect(unconfirmed.body.contains("Expire needs confirming"))
            let refused = try await client.post("/campaigns/\(id)/resume", [("csrf", csrf), ("confirm", "yes")])
            #expect(refused.status == 409)
            #expect(refused.body.contains("Resume refused:"))
            #expect(refused.body.contains("Nothing was changed."))
            let missing = try await client.post("/campaigns/9999/expire", [("csrf", csrf), ("confirm", "yes")])
            #expect(missing.status == 404)
            #expect(missing.body.contains("There is no campaign 9999."))
            #expect(try await admin.call(AdminAPI.campaignGet, CampaignID(id: id)).campaign.state == .live)
            #expect(try await admin.call(AdminAPI.changeList, ChangeListParams(id: id)).changes.count == 1)
        }
    }

    @Test("Expire from the console runs the admin handler as the console user, and the change is seen reaching the edge")
    func expireSpreads() async throws {
        try await withConsole { service, client, admin in
            let id = try await createCampaign(service, admin)
            try await withEdge("edge-a", connectedTo: service) { edge in
                #expect(await edge.waitFor(seq: try await service.app.store.currentSeq()))
                try await client.signIn(aliceToken)
                let csrf = try #require(ConsoleClient.csrf(in: try await client.get("/campaigns/\(id)/expire").body))
                let expired = try await client.post("/campaigns/\(id)/expire", [("csrf", csrf), ("confirm", "yes")])
                #expect(expired.status == 303)
                let change = try #require(try await admin.call(AdminAPI.changeList, ChangeListParams(id: id)).changes.last)
                #expect(change.op == .expired)
                #expect(change.actor == "alice")
                #expect(expired.header("Location") == "/changes/\(change.seq)")
                #expect(await edge.waitFor(seq: change.seq))
                let reached = await eventually(timeout: .seconds(10)) {
                    let page = try? await client.get("/changes/\(change.seq)")
                    return page?.body.contains("1 of 1 edges have applied seq \(change.seq)") == true
                }
                #expect(reached)
                let spread = try await client.get("/changes/\(change.seq)")
                #expect(spread.body.contains("data-edge=\"edge-a\""))
                #expect(spread.body.contains("<span class=\"reached\">after "))
                let edges = try await client.get("/edges")
                #expect(edges.body.contains("<td class=\"applied\">\(change.seq)</td>"))
                #expect(try await admin.call(AdminAPI.campaignGet, CampaignID(id: id)).campaign.state == .expired)
            }
        }
    }

    @Test("The edges page lists an edge behind a relay with the relay's id, as edge.list answers it")
    func edgeBehindRelay() async throws {
        try await withConsole { service, client, admin in
            _ = try await createCampaign(service, admin)
            let seq = try await admin.call(AdminAPI.edgeList, NoParams()).seq
            try await withRelay("relay-east", connectedTo: service) { relay in
                try await withEdge("edge-behind", connectedTo: relay) { edge in
                    #expect(await edge.waitFor(seq: seq, creatives: 1))
                    // The relay passes the edge's acknowledgement up with its path.
                    let deadline = ContinuousClock.now + .seconds(10)
                    while ContinuousClock.now < deadline,
                          try await admin.call(AdminAPI.edgeList, NoParams()).edges.first(where: { $0.edgeId == "edge-behind" })?.via == nil {
                        try await Task.sleep(for: .milliseconds(20))
                    }
                    try await client.signIn(aliceToken)
                    let page = try await client.get("/edges")
                    #expect(page.status == 200)
                    #expect(page.body.contains("<tr data-edge=\"edge-behind\""))
                    #expect(page.body.contains("<td>relay-east</td>"))
                }
            }
        }
    }

    @Test("A script signs in with a bearer token and writes without a form token; the actor is its user")
    func bearerWrites() async throws {
        try await withConsole { service, client, admin in
            let id = try await createCampaign(service, admin)
            client.bearer = bobToken
            #expect(try await client.get("/").status == 200)
            let forced = try await client.post("/campaigns/\(id)/force", [("confirm", "yes")])
            #expect(forced.status == 303)
            let change = try #require(try await admin.call(AdminAPI.changeList, ChangeListParams(id: id)).changes.last)
            #expect(change.op == .forced)
            #expect(change.actor == "bob")
        }
    }
}
