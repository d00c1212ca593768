import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdKit
import LaunchAdTesting
import Testing

/// Seconds `body` took.
func timed<T>(_ body: () async throws -> T) async rethrows -> (T, Double) {
    let start = ContinuousClock.now
    let value = try await body()
    let elapsed = (ContinuousClock.now - start).components
    return (value, Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18)
}

@Suite("revalidate, the default: the edge's answer in time rules this launch", .timeLimit(.minutes(3)))
struct RevalidateTests {
    @Test("the default policy is revalidate: pause and expire are obeyed at the launch right after them, resume at the next but one")
    func pauseAndExpire() async throws {
        try await withKitWorld { world in
            let campaign = try await world.create(duration: 3 * 86_400)
            let state = world.folder.appendingPathComponent("device")
            #expect(LaunchAdConfiguration(edge: world.edgeURL, app: "shop", platform: "ios", appVersion: "5.2.0", deviceId: "d",
                                          stateDirectory: state).policy == .revalidate)
            // A budget the answer meets on a loaded machine: the subject here is what an answer in time decides.
            let sdk = try world.client(.revalidate, state: state) { $0.revalidateBudget = 5 }
            // The first launch: the edge chose the campaign, its creative is not on disk: shown from the next launch.
            #expect(await sdk.launch() == .noAd(.none))
            await sdk.settle()
            let ad = try #require(await sdk.launch().ad)
            #expect(ad.campaignId == campaign.id && ad.source == .fresh && ad.sha256 == world.creative)
            await sdk.settle()

            try await world.apply(AdminAPI.campaignPause, to: campaign.id)
            #expect(await sdk.launch() == .noAd(.none), "paused: not shown once more")
            await sdk.settle()
            let creatives = state.appendingPathComponent("cache/creatives")
            #expect(try FileManager.default.contentsOfDirectory(atPath: creatives.path).isEmpty, "the paused campaign's creative is deleted")

            try await world.apply(AdminAPI.campaignResume, to: campaign.id)
            #expect(await sdk.launch() == .noAd(.none))  // chosen again; its creative comes back for the next launch
            await sdk.settle()
            #expect(await sdk.launch().ad?.campaignId == campaign.id)
            await sdk.settle()

            try await world.apply(AdminAPI.campaignExpire, to: campaign.id)
            #expect(await sdk.launch() == .noAd(.none), "expired: not shown once more")
            await sdk.settle()
            let offline = try world.client(.revalidate, state: state, edge: KitWorld.unreachable) { $0.revalidateBudget = 5 }
            #expect(await offline.launch() == .noAd(.none))
            await offline.settle()
        }
    }

    /// Campaign "a" of `priority`, for three days, and a revalidate SDK that has shown it: its creative on disk.
    static func shown(_ world: KitWorld, priority: Int) async throws -> (Campaign, LaunchAdClient) {
        let campaign = try await world.create(name: "a", duration: 3 * 86_400) { $0.priority = priority }
        // A budget the answer meets on a loaded machine: the subject is what an answer in time decides.
        let sdk = try world.client(.revalidate) { $0.revalidateBudget = 5 }
        _ = await sdk.launch()
        await sdk.settle()
        #expect(await sdk.launch().ad?.campaignId == campaign.id)
        await sdk.settle()
        return (campaign, sdk)
    }

    @Test("a forced campaign shows at the launch right after the force: its creative fetched within the wait budget")
    func forcedShowsNow() async throws {
        try await withKitWorld { world in
            let (first, sdk) = try await Self.shown(world, priority: 60)

            let other = try await world.upload(seed: 1)
            let forced = try await world.create(name: "b", creative: other, duration: 3 * 86_400, creatives: 2) { $0.priority = 10 }
            try await world.apply(AdminAPI.campaignForce, to: forced.id)
            let ad = try #require(await sdk.launch().ad)
            #expect(ad.campaignId == forced.id && ad.sha256 == other && ad.source == .fresh)
            #expect(SHA256Digest.hex(try Data(contentsOf: ad.file)) == other)
            await sdk.settle()

            // Unforced, the first campaign's higher priority rules again, from its creative on disk.
            try await world.apply(AdminAPI.campaignUnforce, to: forced.id)
            #expect(await sdk.launch().ad?.campaignId == first.id)
            await sdk.settle()
        }
    }

    @Test("the cached choice shows only while the answer still chooses it (in a newer version too); what the answer chose shows from the next launch")
    func cachedOnlyWhileChosen() async throws {
        try await withKitWorld { world in
            let (first, sdk) = try await Self.shown(world, priority: 50)

            // A newer version of it, with a creative not on disk yet: the cached version shows, the new one next.
            let second = try await world.upload(seed: 2)
            var fields = CampaignFixture.fields(name: "a", creative: second, duration: 3 * 86_400)
            (fields.countdown, fields.priority) = (4, 50)
            let updated = try await world.admin.call(AdminAPI.campaignUpdate, CampaignUpdateParams(id: first.id, fields: fields))
            #expect(await world.edge.waitFor(seq: updated.seq, creatives: 2))
            let cached = try #require(await sdk.launch().ad)
            #expect(cached.campaignId == first.id && cached.sha256 == world.creative && cached.source == .cache)
            await sdk.settle()
            let newer = try #require(await sdk.launch().ad)
            #expect(newer.campaignId == first.id && newer.sha256 == second && newer.version == updated.campaign.version && newer.countdown == 4)
            await sdk.settle()

            // Another campaign of a higher priority: the cached one is no longer chosen, so nothing shows this launch.
            let third = try await world.upload(seed: 3)
            let higher = try await world.create(name: "c", creative: third, duration: 3 * 86_400, creatives: 3) { $0.priority = 90 }
            #expect(await sdk.launch() == .noAd(.none))
            await sdk.settle()
            #expect(await sdk.launch().ad?.campaignId == higher.id)
            await sdk.settle()
        }
    }

    @Test("an answer after the budget: the cached choice shows at the budget, the late answer is cached, and the next launch (late again) obeys it")
    func lateAnswer() async throws {
        let edge = try ScriptedEdge()
        let folder = try makeTemporaryDirectory("revalidate")
        defer { removeTemporaryDirectory(folder) }
        let creative = ScriptedEdge.creative(41)
        edge.answer(creative)
        var configuration = LaunchAdConfiguration(edge: edge.url, app: "shop", platform: "ios", appVersion: "5.2.0", deviceId: "d-1",
                                                  stateDirectory: folder)
        configuration.revalidateBudget = 0.5
        let sdk = try LaunchAdClient(configuration: configuration)
        _ = await sdk.launch()
        await sdk.settle()
        #expect(await sdk.launch().ad?.campaignId == 41)
        await sdk.settle()

        // Paused: the edge now answers no ad and revokes it, 3 s late (within the launch's work: twice the wait budget).
        edge.answer(nil)
        edge.script(revoked: [41])
        edge.answerLate(by: 3)
        let (late, seconds) = await timed { await sdk.launch() }
        #expect(late.ad?.campaignId == 41 && late.ad?.source == .cache, "no answer in time: the cached choice, \(late)")
        #expect(seconds >= 0.45 && seconds < 2.5, "decided at the revalidate budget, not with the answer: \(seconds) s")
        await sdk.settle()  // the late answer comes, and is applied
        let (next, nextSeconds) = await timed { await sdk.launch() }
        #expect(next == .noAd(.timeout), "the revoked campaign is gone from the cache: nothing to fall back on, \(next)")
        #expect(nextSeconds < 2.5)
        await sdk.settle()
        let creatives = folder.appendingPathComponent("cache/creatives")
        #expect(try FileManager.default.contentsOfDirectory(atPath: creatives.path).isEmpty)
    }

    @Test("an edge that never answers: the cached choice at the budget, or a timeout; a fresh launch's work ends within twice its wait budget")
    func noAnswer() async throws {
        let edge = try ScriptedEdge()
        let folder = try makeTemporaryDirectory("revalidate")
        defer { removeTemporaryDirectory(folder) }
        edge.hangRPC()
        var configuration = LaunchAdConfiguration(edge: edge.url, app: "shop", platform: "ios", appVersion: "5.2.0", deviceId: "d-1",
                                                  stateDirectory: folder)
        configuration.waitBudget = 1
        configuration.requestTimeout = 15
        let sdk = try LaunchAdClient(configuration: configuration)
        let (decision, seconds) = await timed { await sdk.launch() }
        #expect(decision == .noAd(.timeout))
        #expect(seconds >= 0.45 && seconds < 2.5, "decided at the revalidate budget: \(seconds) s")
        let (_, settled) = await timed { await sdk.settle() }
        // Twice the wait budget (2 s), far from the request timeout (15 s), with room for a loaded machine.
        #expect(seconds + settled >= 1.9 && seconds + settled < 5, "the launch's work gave up within twice the wait budget: \(seconds + settled) s")

        configuration.policy = .fresh
        let fresh = try LaunchAdClient(configuration: configuration)
        let (played, total) = await timed { await fresh.play { _ in } }
        #expect(played == .timeout)
        #expect(total >= 0.95 && total < 5, "a played launch ends within the wait budget after its end, not the request timeout: \(total) s")
    }
}

@Suite("the launch funnel and the answer's new fields, at the wire", .timeLimit(.minutes(2)))
struct FunnelWireTests {
    static func client(_ edge: ScriptedEdge, _ folder: URL, clock: any LaunchAdClock = SystemClock(),
                       _ configure: (inout LaunchAdConfiguration) -> Void = { _ in }) throws -> LaunchAdClient {
        var configuration = LaunchAdConfiguration(edge: edge.url, app: "shop", platform: "ios", appVersion: "5.2.0", deviceId: "d-1",
                                                  stateDirectory: folder)
        configuration.waitBudget = 1
        // A budget the answer meets on a loaded machine: the subject here is what is reported and read.
        configuration.revalidateBudget = 5
        configure(&configuration)
        return try LaunchAdClient(configuration: configuration, clock: clock)
    }

    @Test("request on every launch decided, noAd when the edge had none, timeout past the budget, impression with its campaign; every event with the app; nothing for a launch not for its opening")
    func funnel() async throws {
        let edge = try ScriptedEdge()
        let folder = try makeTemporaryDirectory("funnel")
        defer { removeTemporaryDirectory(folder) }
        // The session's countdown on a manual clock: played at once.
        let sdk = try Self.client(edge, folder, clock: ManualClock())

        #expect(await sdk.play { _ in } == .none)  // the edge has no ad
        #expect(await sdk.launch(openedBy: .push) == .noAd(.notForOpening))
        edge.answer(ScriptedEdge.creative(41))
        _ = await sdk.launch()  // chosen, fetched for the next launch: a request, not a noAd
        await sdk.settle()
        #expect(await sdk.play { _ in } == .countdown)
        _ = await sdk.flushReports(force: true)

        let timeoutSDK = try Self.client(edge, folder.appendingPathComponent("late")) { $0.policy = .fresh }
        edge.answerLate(by: 2)
        #expect(await timeoutSDK.play { _ in } == .timeout)
        edge.answerLate(by: 0)
        _ = await timeoutSDK.flushReports(force: true)

        let events = edge.reported
        let kinds = events.map { $0["type"]?.stringValue ?? "?" }
        #expect(kinds == ["request", "noAd", "request", "request", "impression", "request", "timeout"], "\(kinds)")
        #expect(events.allSatisfy { $0["app"]?.stringValue == "shop" && $0["deviceId"]?.stringValue == "d-1" })
        let campaigns = events.map { $0["campaignId"].flatMap { if case .number(let n) = $0 { n.exactly(Int64.self) } else { nil } } }
        #expect(campaigns == [nil, nil, nil, nil, 41, nil, nil])
        // One launch's events share its id: `<launch>-<kind>`, at most 64 bytes.
        let ids = events.compactMap { $0["eventId"]?.stringValue }
        #expect(ids.allSatisfy { $0.utf8.count <= 64 })
        let launches = ids.map { $0.split(separator: "-").dropLast().joined(separator: "-") }
        #expect(launches[0] == launches[1] && launches[3] == launches[4] && launches[5] == launches[6] && Set(launches).count == 4)
        #expect(await sdk.pendingReports().isEmpty)
        #expect(await timeoutSDK.pendingReports().isEmpty)
    }

    /// The answer as an edge of the new contract writes it: `showMoment` a number, the moments in `launchTypes`,
    /// the media's `durationMs`.
    static func answer(_ creative: ScriptedEdge.Creative, host: String, showMoment: String, durationMs: Int?) -> String {
        let duration = durationMs.map { #","durationMs":\#($0)"# } ?? ""
        return #"{"hasAd":true,"id":\#(creative.campaignId),"version":3,"imgUrl":"http://\#(host)/creatives/\#(creative.sha256)","#
            + #""creative":{"sha256":"\#(creative.sha256)","contentType":"image/gif","width":1179,"height":2556,"#
            + #""size":\#(creative.bytes.count)\#(duration)},"jumpType":"none","showMoment":\#(showMoment),"#
            + #""launchTypes":["cold","hot"],"countdown":3,"skippable":true,"skipAfter":0,"forced":false,"#
            + #""expiresAt":"\#(RFC3339Text.now(plus: 3600))","epoch":"scripted","seq":1,"revoked":[]}"#
    }

    @Test("showMoment as a number (1 later, 0 now even before the creative is on disk) and as the older string, launchTypes and creative.durationMs: the ad carries the media's length")
    func newAnswerFields() async throws {
        let edge = try ScriptedEdge()
        let folder = try makeTemporaryDirectory("wire")
        defer { removeTemporaryDirectory(folder) }
        let creative = ScriptedEdge.creative(52, size: 3_000)
        edge.answer(creative)  // serves its bytes
        edge.answerJSON { host in Self.answer(creative, host: host, showMoment: "1", durationMs: 2_400) }
        let sdk = try Self.client(edge, folder)
        #expect(await sdk.launch() == .noAd(.none))
        await sdk.settle()
        edge.answerJSON { host in Self.answer(creative, host: host, showMoment: "0", durationMs: 2_400) }
        let ad = try #require(await sdk.launch().ad)
        #expect(ad.campaignId == 52 && ad.durationMs == 2_400 && ad.contentType == "image/gif" && ad.version == 3)
        await sdk.settle()
        // Offline, from the manifest: the length kept.
        let offline = try LaunchAdClient(configuration: {
            var configuration = sdk.configuration
            configuration.edge = KitWorld.unreachable
            return configuration
        }())
        #expect(await offline.launch().ad?.durationMs == 2_400)
        await offline.settle()

        // showMoment 0 for a creative not on disk (a forced ad, as a newer edge writes it): fetched and shown now.
        let empty = try Self.client(edge, folder.appendingPathComponent("empty"))
        let now = try #require(await empty.launch().ad)
        #expect(now.campaignId == 52 && now.source == .fresh && now.durationMs == 2_400)
        await empty.settle()

        // An older edge: the moments as a string in showMoment, no durationMs.
        edge.answerJSON { host in Self.answer(creative, host: host, showMoment: #""cold,hot""#, durationMs: nil) }
        let older = try #require(await sdk.launch().ad)
        #expect(older.campaignId == 52 && older.durationMs == 0)
        await sdk.settle()
    }
}

/// RFC 3339 text of a time from now.
enum RFC3339Text {
    static func now(plus seconds: Double) -> String {
        Date().addingTimeInterval(seconds).formatted(Date.ISO8601FormatStyle())
    }
}
