import Foundation
@testable import LaunchAdKit
import LaunchAdKitTesting
import Testing

/// A device's state folder as an earlier run left it: campaign `id`'s creative on disk and chosen for cold launches by
/// an answer at `answeredAt`. The edge is out of reach (nothing listens on port 9), so every launch decides from it.
struct Device {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kit-\(UUID().uuidString)")
    let clock: ManualClock

    static let edge = URL(string: "http://127.0.0.1:9")!

    init(clock: ManualClock = ManualClock(Date(timeIntervalSince1970: 1_900_000_000))) { self.clock = clock }

    /// Puts campaign `id` with a creative of `size` bytes on disk; the latest answer chose it at `answeredAt` (now,
    /// unless given) for cold launches, or for none (`chosen` false).
    @discardableResult
    func seed(_ id: Int64, size: Int = 4_000, answeredAt: Date? = nil, chosen: Bool = true) throws -> String {
        let bytes = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ Int(id)) })
        let sha256 = SHA256Digest.hex(bytes)
        let cache = folder.appendingPathComponent("cache")
        for folder in ["creatives", "partial"] {
            try FileManager.default.createDirectory(at: cache.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        try bytes.write(to: cache.appendingPathComponent("creatives").appendingPathComponent(sha256))
        let file = cache.appendingPathComponent("manifest.json")
        var manifest = CacheManifest.load(from: file)
        let presentation = CacheManifest.Presentation(version: 1, sha256: sha256, contentType: "image/png", countdown: 3, skippable: true,
                                                      skipAfter: 0, jumpType: "none", jumpValue: nil, forced: false, width: 1179, height: 2556,
                                                      durationMs: 0)
        manifest.campaigns[id] = .init(id: id, startsAt: nil, expiresAt: clock.now().addingTimeInterval(7 * 86_400), creatives: [sha256],
                                       presentation: presentation, answeredAt: answeredAt ?? clock.now(), hotAfterSeconds: nil)
        if chosen { manifest.next["cold"] = id }
        manifest.creatives[sha256] = .init(sha256: sha256, size: size, contentType: "image/png", lastUsed: clock.now())
        try manifest.save(to: file)
        return sha256
    }

    func client(_ policy: LaunchPolicy = .revalidate, configure: (inout LaunchAdConfiguration) -> Void = { _ in }) throws -> LaunchAdClient {
        var configuration = LaunchAdConfiguration(edge: Self.edge, app: "shop", platform: "ios", appVersion: "5.2.0", deviceId: "d-1",
                                                  stateDirectory: folder)
        configuration.policy = policy
        configuration.requestTimeout = 2
        configure(&configuration)
        return try LaunchAdClient(configuration: configuration, clock: clock)
    }

    /// The queued events, as they will go to the edge.
    func queued() throws -> [ReportEvent] {
        struct Stored: Decodable { var pending: [ReportEvent] }
        let file = folder.appendingPathComponent("reports.json")
        guard FileManager.default.fileExists(atPath: file.path) else { return [] }
        return try JSONDecoder().decode(Stored.self, from: Data(contentsOf: file)).pending
    }

    func remove() { try? FileManager.default.removeItem(at: folder) }
}

@Suite("the device's own rules: the cache's age offline, how the app was opened, suppression, the cache as an API", .timeLimit(.minutes(1)))
struct LaunchRulesTests {
    @Test("offline, the cached choice shows while its answer is younger than maxCachedAge and never after, under revalidate and cache first")
    func maxCachedAge() async throws {
        for policy in [LaunchPolicy.revalidate, .cacheFirst] {
            let device = Device()
            defer { device.remove() }
            try device.seed(7)
            device.clock.advance(by: 86_400 - 60)  // 23 h 59 min after the answer
            let sdk = try device.client(policy)
            let ad = try #require(await sdk.launch().shown, "\(policy)")
            #expect(ad.campaignId == 7 && ad.source == .cache)
            device.clock.advance(by: 120)  // 24 h 1 min
            #expect(await sdk.launch() == .noAd(.none), "\(policy)")
            // A shorter bound, set by the app.
            let strict = try device.client(policy) { $0.maxCachedAge = 3_600 }
            device.clock.set(Date(timeIntervalSince1970: 1_900_000_000 + 3_599))
            #expect(await strict.launch().shown?.campaignId == 7, "\(policy)")
            device.clock.advance(by: 2)
            #expect(await strict.launch() == .noAd(.none), "\(policy)")
            await sdk.settle()
            await strict.settle()
        }
    }

    @Test("a launch opened by a push, a link or a shortcut shows nothing, asks nothing and reports nothing unless showOn has it")
    func openedBy() async throws {
        let device = Device()
        defer { device.remove() }
        try device.seed(7)
        let sdk = try device.client()
        for opening in [LaunchOpening.push, .url, .shortcut] {
            #expect(await sdk.launch(openedBy: opening) == .noAd(.notForOpening))
        }
        #expect(try device.queued().isEmpty)
        #expect(await sdk.launch(openedBy: .userTap).shown?.campaignId == 7)
        #expect(try device.queued().map(\.type) == ["request"])

        let pushes = try device.client { $0.showOn = [.push] }
        #expect(await pushes.launch(openedBy: .push).shown?.campaignId == 7)
        #expect(await pushes.launch(openedBy: .userTap) == .noAd(.notForOpening))
        #expect(try device.queued().map(\.type) == ["request", "request"])
        await sdk.settle()
        await pushes.settle()
    }

    @Test("suppress(for:) holds ads back, across a restart of the app, until its time is over; 0 lifts it; a negative time is refused")
    func suppression() async throws {
        let device = Device()
        defer { device.remove() }
        try device.seed(7)
        let sdk = try device.client()
        try await sdk.suppress(for: 600)
        #expect(await sdk.launch() == .noAd(.suppressed))
        #expect(try device.queued().isEmpty, "a suppressed launch is not an ad request")

        let restarted = try device.client()
        device.clock.advance(by: 599)
        #expect(await restarted.launch() == .noAd(.suppressed))
        device.clock.advance(by: 2)
        #expect(await restarted.launch().shown?.campaignId == 7)

        try await restarted.suppress(for: 3_600)
        try await restarted.suppress(for: 0)
        #expect(await restarted.launch().shown?.campaignId == 7)
        #expect(await (try device.client()).launch().shown?.campaignId == 7, "lifted on disk too")
        await #expect(throws: LaunchAdClient.InvalidSuppression.self) { try await restarted.suppress(for: -1) }
        await #expect(throws: LaunchAdClient.InvalidSuppression.self) { try await restarted.suppress(for: .infinity) }
        await sdk.settle()
        await restarted.settle()
    }

    @Test("cacheSize counts the bytes on disk; clearCache(keeping:) removes every other creative and choice, clearCache() all")
    func cacheAPI() async throws {
        let device = Device()
        defer { device.remove() }
        let kept = try device.seed(7, size: 30_000, chosen: false)
        let other = try device.seed(8, size: 50_000)
        let partial = device.folder.appendingPathComponent("cache/partial/\(String(repeating: "b", count: 64)).part")
        try Data(count: 5_000).write(to: partial)
        let sdk = try device.client(.cacheFirst)
        let manifestBytes = { (try? Data(contentsOf: device.folder.appendingPathComponent("cache/manifest.json")).count) ?? -1 }
        #expect(await sdk.cacheSize() == 30_000 + 50_000 + 5_000 + manifestBytes())
        #expect(await sdk.launch().shown?.campaignId == 8)
        await sdk.settle()

        try await sdk.clearCache(keeping: [7])
        let creatives = device.folder.appendingPathComponent("cache/creatives")
        #expect(try FileManager.default.contentsOfDirectory(atPath: creatives.path) == [kept])
        #expect(!FileManager.default.fileExists(atPath: partial.path))
        #expect(await sdk.cacheSize() == 30_000 + manifestBytes())
        #expect(await sdk.launch() == .noAd(.none), "campaign 8 and its choice are gone: \(other)")
        await sdk.settle()

        try await sdk.clearCache()
        #expect(try FileManager.default.contentsOfDirectory(atPath: creatives.path).isEmpty)
        #expect(await sdk.cacheSize() == manifestBytes())
        #expect(await (try device.client(.cacheFirst)).cacheSize() == manifestBytes(), "a new SDK over the folder finds it empty")
    }

    @Test("every launch the SDK decides reports `request` with the app; `timeout` when the edge could not be reached and nothing was cached (an outage is not a want of ads); the event ids are the launch's")
    func funnelReports() async throws {
        let device = Device()
        defer { device.remove() }
        let sdk = try device.client()
        #expect(await sdk.launch() == .noAd(.none))  // nothing cached, the edge out of reach
        await sdk.settle()
        try device.seed(7)
        let seeded = try device.client()
        #expect(await seeded.launch().shown?.campaignId == 7)
        await seeded.settle()
        let events = try device.queued()
        #expect(events.map(\.type) == ["request", "timeout", "request"])
        #expect(events.allSatisfy { $0.app == "shop" && $0.deviceId == "d-1" && $0.campaignId == nil && $0.at != nil })
        let launches = events.map { $0.eventId.split(separator: "-").dropLast().joined(separator: "-") }
        #expect(launches[0] == launches[1] && launches[1] != launches[2])
        #expect(events.map { String($0.eventId.split(separator: "-").last!) } == ["request", "timeout", "request"])
    }
}

@Suite("the edge's JSON as the SDK reads and writes it", .timeLimit(.minutes(1)))
struct WireMessageTests {
    static func answer(showMoment: String, extra: String = "") -> String {
        #"{"hasAd":true,"id":7,"version":2,"imgUrl":"http://edge/creatives/x","creative":{"sha256":"x","contentType":"image/gif","#
            + #""width":10,"height":20,"size":30\#(extra)},"showMoment":\#(showMoment),"launchTypes":["cold","hot"],"#
            + #""expiresAt":"2030-01-01T00:00:00Z","epoch":"e","seq":1,"revoked":[]}"#
    }

    @Test("showMoment as a number (0 now, 1 later) or as the older string of moments; launchTypes and durationMs when present")
    func showMoment() throws {
        let decode = { (text: String) in try JSONDecoder().decode(QueryAnswer.self, from: Data(text.utf8)) }
        #expect(try decode(Self.answer(showMoment: "0", extra: #","durationMs":2400"#)).showMoment == .now)
        #expect(try decode(Self.answer(showMoment: "1")).showMoment == .later)
        #expect(try decode(Self.answer(showMoment: #""cold,hot""#)).showMoment == .moments("cold,hot"))
        let answer = try decode(Self.answer(showMoment: "0", extra: #","durationMs":2400"#))
        #expect(answer.launchTypes == ["cold", "hot"] && answer.creative?.durationMs == 2400)
        #expect(try decode(Self.answer(showMoment: "1")).creative?.durationMs == nil)
        #expect(throws: DecodingError.self) { try decode(Self.answer(showMoment: "2")) }
    }

    @Test("a manifest written before durationMs loads, its ads 0 ms long; a launch's event leaves out the campaign it has not")
    func olderManifestAndEvents() async throws {
        let device = Device()
        defer { device.remove() }
        try device.seed(7)
        let file = device.folder.appendingPathComponent("cache/manifest.json")
        let text = try String(contentsOf: file, encoding: .utf8).replacingOccurrences(of: #","durationMs":0"#, with: "")
        #expect(!text.contains("durationMs"))
        try text.write(to: file, atomically: true, encoding: .utf8)
        let ad = try #require(await device.client(.cacheFirst).launch().shown)
        #expect(ad.campaignId == 7 && ad.durationMs == 0)

        let event = ReportEvent(eventId: "l-request", type: "request", campaignId: nil, app: "shop", deviceId: "d-1", sha256: nil, at: nil)
        let json = String(decoding: try JSONEncoder().encode(event), as: UTF8.self)
        #expect(!json.contains("campaignId") && json.contains(#""app":"shop""#))
    }
}

extension LaunchDecision {
    /// The ad, when the decision shows one.
    var shown: LaunchAd? {
        if case .show(let ad) = self { return ad }
        return nil
    }
}
