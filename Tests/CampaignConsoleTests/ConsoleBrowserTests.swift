import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdKit
import LaunchAdTesting
import Testing

/// The console in a real browser: Debian's Chromium, headless, driven through chromedriver by
/// `Tests/Browser/console_browser.py` (Selenium; `deploy/local/ensure-deps.sh` installs all three). campaignd and two
/// edges run in process. With `LAUNCHAD_CONSOLE_SCREENSHOTS=1` the screenshots replace the README's, in docs/console.
@Suite("The console in Chromium", .timeLimit(.minutes(3)))
struct ConsoleBrowserTests {
    /// The two variants: an iPhone-shaped one (390×844) and a 16:9 one (360×640), each a colour the script looks for.
    static let variants: [(width: Int, height: Int, color: (UInt8, UInt8, UInt8))] = [
        (390, 844, (200, 40, 120)), (360, 640, (30, 160, 150)),
    ]

    @Test("Sign in, read each page, see the preview on phones with its countdown and each frame where AdLayout puts it, expire and watch the edges")
    func browser() async throws {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let script = repository.appendingPathComponent("Tests/Browser/console_browser.py")
        try await withConsole { service, _, admin in
            let images = Self.variants.map { SolidPNG.make(width: $0.width, height: $0.height, color: $0.color) }
            let id = try await createCampaign(service, admin, name: "Autumn sale", creatives: images) {
                $0.countdown = 5
                $0.skipAfter = 2
                $0.jump = Jump(type: .url, value: "https://shop.example/autumn")
            }
            let hostile = try await createCampaign(service, admin, name: "<script>window.owned=1</script><img src=x onerror=\"window.owned=2\">") {
                $0.priority = 10
                $0.advertiser = "<img src=x onerror=\"window.owned=3\">"
                $0.paidBy = "<script>window.owned=4</script>"
            }
            let campaign = try await admin.call(AdminAPI.campaignGet, CampaignID(id: id)).campaign
            // Some hours of counts, as edges report them, for the charts.
            let hour = Timestamp.now().milliseconds / 3_600_000 * 3_600_000
            var hourly: [HourlyCount] = []
            for back in 0..<12 {
                let at = Timestamp(milliseconds: hour - Int64(back) * 3_600_000)
                let impressions = Int64(400 + (back * 37) % 300), clicks = Int64(12 + (back * 5) % 17), skips = Int64(80 + (back * 11) % 60)
                hourly.append(HourlyCount(id: id, hour: at, sha256: campaign.creatives[back % 2].sha256,
                                          impressions: impressions, clicks: clicks, skips: skips))
            }
            let totals = CampaignStats(id: id, impressions: hourly.map(\.impressions).reduce(0, +), clicks: hourly.map(\.clicks).reduce(0, +),
                                       skips: hourly.map(\.skips).reduce(0, +))
            try await service.app.store.addReport(edgeId: "edge-east", reportId: 1, counts: [totals], hourly: hourly, region: "cn-east")
            let variants: JSONValue = .array(zip(campaign.creatives, Self.variants).map { reference, variant in
                ["sha256": .string(reference.sha256), "width": .number(JSONNumber(variant.width)), "height": .number(JSONNumber(variant.height)),
                 "color": [.number(JSONNumber(variant.color.0)), .number(JSONNumber(variant.color.1)), .number(JSONNumber(variant.color.2))]]
            })
            // The preview of one screen must put each frame where AdLayout does: the model's frames, in points.
            let screen = AdScreen(width: 390, height: 844, scale: 3, safeTop: 47, safeBottom: 34)
            var frames: [String: [String: AdRect]] = [:]
            for (reference, variant) in zip(campaign.creatives, Self.variants) {
                let layout = AdLayout(screen: screen, mediaPixels: (variant.width, variant.height))
                frames[reference.sha256] = Dictionary(uniqueKeysWithValues: layout.namedFrames.map { ($0.name, $0.frame) })
            }
            let out = ProcessInfo.processInfo.environment["LAUNCHAD_CONSOLE_SCREENSHOTS"] == "1"
                ? repository.appendingPathComponent("docs/console") : service.directory.appendingPathComponent("screenshots")
            try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
            try await withEdge("edge-east", connectedTo: service, configure: { $0.following.region = "cn-east" }) { east in
                try await withEdge("edge-south", connectedTo: service, configure: { $0.following.region = "cn-south" }) { south in
                    let seq = try await service.app.store.currentSeq()
                    #expect(await east.waitFor(seq: seq))
                    #expect(await south.waitFor(seq: seq))
                    let browser = try ChildProcess(executable: URL(fileURLWithPath: "/usr/bin/env"), [
                        "python3", script.path, "--console", service.endpoints["console"]!, "--user", "alice", "--token", aliceToken,
                        "--campaign", "\(id)", "--hostile", "\(hostile)", "--variants", String(decoding: variants.jsonBytes, as: UTF8.self),
                        "--edges", "2", "--out", out.path, "--screen", "screen=390x844@3&safeTop=47&safeBottom=34",
                        "--frames", String(decoding: try JSONEncoder().encode(frames), as: UTF8.self),
                    ], directory: service.directory)
                    let status = await browser.exitStatus(timeout: .seconds(120))
                    if status == nil { browser.signal(SIGKILL) }
                    print(browser.log)
                    #expect(status == 0, "\(browser.log)")
                    #expect(browser.log.contains("all browser checks passed"))
                }
            }
            #expect(try await admin.call(AdminAPI.campaignGet, CampaignID(id: id)).campaign.state == .expired)
            let actors = try await admin.call(AdminAPI.changeList, ChangeListParams(id: id)).changes.map { "\($0.op.rawValue) by \($0.actor)" }
            #expect(actors == ["created by local", "forced by alice", "expired by alice"])
        }
    }
}
