import Foundation
import JSONRPC
import LaunchAdKit
import LaunchAdTesting
import Testing

/// adctl → campaignd → deliveryd → adsim, every one a real process of the build.
@Suite("adsim plays the app against a real edge as operators change campaigns", .timeLimit(.minutes(4)))
struct AdSimEndToEndTests {
    typealias Outcome = AdSimSystem.Outcome

    static func outcome(_ events: [JSONValue]) -> Outcome { Outcome(events) }

    @Test("create, force, expire and pause: a fresh launch follows each at once, a cache-first launch within one launch")
    func operatorsAndApp() async throws {
        try await AdSimSystem.with { system in
            let fixture = system.fixture, edge = system.edge
            let sha256 = try await system.upload()
            func create(_ name: String) async throws -> Int { try await system.create(name, creative: sha256) }

            // Created: a fresh launch shows it, counts down, and reports the impression.
            let first = try await create("a")
            var events = try await system.adsim("fresh", policy: "fresh")
            #expect(events.map { $0["event"]?.stringValue ?? "" }.first == "waiting")
            #expect(Self.outcome(events) == Outcome(shown: first, end: "countdown"))
            // A tick for each second the countdown button shows (one may be passed over when the host is slow to wake
            // adsim at 20 times the speed; the second by second ticks are tested on a manual clock).
            let ticks = events.filter { $0["event"] == "tick" }.map { $0["secondsLeft"]?.intValue ?? -1 }
            #expect(ticks.first == 3 && ticks == ticks.sorted(by: >) && Set(ticks).count == ticks.count && ticks.allSatisfy { (1...3).contains($0) })
            #expect(events.contains { $0["event"] == "report" && $0["type"] == "impression" && $0["sent"] == true })
            // layout: the model of the screen for the ad the edge answers, as LaunchAdKitUI and the console draw it.
            let layout = try ChildProcess("adsim", [
                "--edge", "http://\(edge.endpoints["http"]!)", "--app", "shop", "--platform", "ios", "--app-version", "5.2.0",
                "--device", "device-e2e", "--state-dir", fixture.directory.appendingPathComponent("layout").path, "--locale", "zh-CN",
                "layout", "--screen", "390x844@3", "--safe-top", "47", "--safe-bottom", "34",
            ], directory: fixture.directory)
            #expect(await layout.exitStatus(timeout: .seconds(60)) == 0)
            let model = try JSONParser.parse(layout.log.trimmingCharacters(in: .whitespacesAndNewlines))
            #expect(model["campaignId"]?.intValue == first && model["display"] == "full" && model["clickArea"] == "button")
            let expected = AdLayout(screen: AdScreen(width: 390, height: 844, scale: 3, safeTop: 47, safeBottom: 34),
                                    mediaPixels: (1179, 2556), locale: "zh-CN")
            for (name, frame) in expected.namedFrames {
                #expect(model["frames"]?[name]?.arrayValue?.compactMap(\.doubleValue) == [frame.x, frame.y, frame.width, frame.height], "\(name)")
            }
            #expect(model["frames"]?["logo"] == nil)
            #expect(model["texts"]?["skip"] == "跳过 3" && model["texts"]?["label"] == "广告")
            // A half display with the whole ad as click area: the answer says so, the logo strip comes, the click is the ad.
            _ = try await system.adctl(["campaign", "update", String(first), "--display", "half", "--click-area", "full", "--wait"])
            let half = try ChildProcess("adsim", [
                "--edge", "http://\(edge.endpoints["http"]!)", "--app", "shop", "--platform", "ios", "--app-version", "5.2.0",
                "--device", "device-e2e", "--state-dir", fixture.directory.appendingPathComponent("layout-half").path,
                "layout", "--screen", "390x844@3", "--safe-top", "47", "--safe-bottom", "34",
            ], directory: fixture.directory)
            #expect(await half.exitStatus(timeout: .seconds(60)) == 0)
            let halfModel = try JSONParser.parse(half.log.trimmingCharacters(in: .whitespacesAndNewlines))
            #expect(halfModel["display"] == "half" && halfModel["clickArea"] == "full")
            let halfLayout = AdLayout(screen: AdScreen(width: 390, height: 844, scale: 3, safeTop: 47, safeBottom: 34),
                                      mediaPixels: (1179, 2556), display: .half, clickArea: .full)
            #expect(halfLayout.frames.logo != nil && halfLayout.frames.click == halfLayout.frames.ad)
            for (name, frame) in halfLayout.namedFrames {
                #expect(halfModel["frames"]?[name]?.arrayValue?.compactMap(\.doubleValue) == [frame.x, frame.y, frame.width, frame.height], "\(name)")
            }
            #expect(halfModel["texts"]?["click"] == nil)
            _ = try await system.adctl(["campaign", "update", String(first), "--display", "full", "--click-area", "button", "--wait"])

            // Clicked: the jump goes to the app.
            events = try await system.adsim("fresh", policy: "fresh", ["launch", "--click-at", "0.5", "--speed", "20"])
            let end = events.first { $0["event"] == "end" }
            #expect(end?["reason"] == "click" && end?["jumpValue"] == "https://shop.example.com/a")
            // Cache first: the first launch caches, the next shows from disk.
            #expect(Self.outcome(try await system.adsim("cached", policy: "cache-first")) == Outcome(shown: nil, end: "none"))
            #expect(Self.outcome(try await system.adsim("cached", policy: "cache-first")) == Outcome(shown: first, end: "countdown"))

            // Forced: fresh at once; cache first from the launch after.
            let second = try await create("b")
            _ = try await system.adctl(["campaign", "force", String(second), "--wait"])
            #expect(Self.outcome(try await system.adsim("fresh", policy: "fresh")).shown == second)
            #expect(Self.outcome(try await system.adsim("cached", policy: "cache-first")).shown == first)
            #expect(Self.outcome(try await system.adsim("cached", policy: "cache-first")).shown == second)

            // Expired: gone for fresh at once; cache first shows its disk once more, then not.
            _ = try await system.adctl(["campaign", "expire", String(second), "--wait"])
            #expect(Self.outcome(try await system.adsim("fresh", policy: "fresh")).shown == first)
            #expect(Self.outcome(try await system.adsim("cached", policy: "cache-first")).shown == second)
            #expect(Self.outcome(try await system.adsim("cached", policy: "cache-first")).shown == first)

            // why: the edge's launch.why for the device and the campaign it answered (no targeting: no reason).
            let why = try await system.adsim("fresh", ["why", String(first)])
            #expect(why.first?["event"] == "why" && why.first?["campaignId"]?.intValue == first && why.first?["reasons"] == [], "\(why)")

            // refresh: the prefetch keeps the live campaign's creative on a device that never launched.
            var refreshed = try await system.adsim("refresher", policy: "fresh", ["refresh"])
            #expect(refreshed.first?["event"] == "refresh" && refreshed.first?["kept"] == [.string(sha256)])

            // Paused: no ad.
            _ = try await system.adctl(["campaign", "pause", String(first), "--wait"])
            #expect(Self.outcome(try await system.adsim("fresh", policy: "fresh")) == Outcome(shown: nil, end: "none"))
            #expect(Self.outcome(try await system.adsim("cached", policy: "cache-first")).shown == first)
            #expect(Self.outcome(try await system.adsim("cached", policy: "cache-first")) == Outcome(shown: nil, end: "none"))

            // refresh: the paused campaign is revoked and its creative deleted from the device.
            refreshed = try await system.adsim("refresher", policy: "fresh", ["refresh"])
            #expect(refreshed.first?["deleted"] == [.string(sha256)] && refreshed.first?["kept"] == [])
            #expect(refreshed.first?["revoked"]?.arrayValue?.compactMap(\.intValue).contains(first) == true, "\(refreshed)")
            #expect(try FileManager.default.contentsOfDirectory(
                atPath: fixture.directory.appendingPathComponent("refresher/cache/creatives").path).isEmpty)
        }
    }
}
