import Foundation
@testable import LaunchAdKit
import LaunchAdKitTesting
import Testing

@Suite("LaunchAdController: the cover at each launch, hot starts by the time away", .timeLimit(.minutes(1)))
@MainActor
struct LaunchAdControllerTests {
    /// A client with an empty cache and an edge that refuses connections: cache first decides "no ad" at once.
    static func client(clock: ManualClock) throws -> (LaunchAdClient, URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kit-\(UUID().uuidString)")
        var configuration = LaunchAdConfiguration(edge: URL(string: "http://127.0.0.1:9")!, app: "shop", platform: "ios",
                                                  appVersion: "5.2.0", deviceId: "d-1", stateDirectory: folder)
        configuration.policy = .cacheFirst
        configuration.requestTimeout = 1
        return (try LaunchAdClient(configuration: configuration, clock: clock), folder)
    }

    @Test("no ad: the launch screen's cover goes up at once and fades; back from 2 minutes away, a hot launch of 120 s")
    func coverAndHotStart() async throws {
        let clock = ManualClock(Date(timeIntervalSinceReferenceDate: 0))
        let (client, folder) = try Self.client(clock: clock)
        defer { try? FileManager.default.removeItem(at: folder) }
        let scheduler = VirtualScheduler(clock: clock)
        let log = CallLog()
        var surfaces = 0
        let delegate = RecordingDelegate()
        let controller = LaunchAdController(client: client, scheduler: scheduler, screen: { Stage.screen }, makeSurface: {
            surfaces += 1
            return RecordingSurface(clock: clock, log: log)
        })
        controller.delegate = delegate
        controller.launch()
        // The cover is up before the client has decided anything.
        #expect(log.calls.map(\.call) == [.showWindow(Stage.screen.bounds), .launchScreen(true)])
        #expect(controller.lastLaunch == .cold)
        controller.launch()  // a second launch while one is under way is ignored
        #expect(surfaces == 1)
        for _ in 0..<500 where controller.presenter != nil {
            try await Task.sleep(nanoseconds: 2_000_000)
            scheduler.advance(by: 0.1)
        }
        #expect(controller.presenter == nil)
        #expect(log.calls.suffix(2).map(\.call) == [.fadeOut(0.5), .remove])
        #expect(delegate.heard == ["end none"])

        controller.didEnterBackground()
        clock.advance(by: 120.4)
        controller.willEnterForeground()
        #expect(controller.lastLaunch == .hot(backgroundSeconds: 120))
        #expect(surfaces == 2)
        controller.didEnterBackground()  // with the hot launch's cover up: it is told, and nothing starts
        controller.willEnterForeground()
        #expect(surfaces == 2)
        await client.settle()
    }

    @Test("with a landing page of the app's up, the launch's ad appears and waits at its full count; its countdown starts when the page closes")
    func landingPageHoldsTheCountdown() async throws {
        let seeded = try await Seeded(before: { $0.landingPageOpened() })
        defer { seeded.device.remove() }
        let (client, scheduler, delegate, controller, log) = (seeded.client, seeded.scheduler, seeded.delegate, seeded.controller, seeded.log)
        #expect(controller.presenter?.phase == .loading && controller.presenter?.ad?.campaignId == 7)
        try #require(seeded.made?.events).mediaAppeared(nil)
        scheduler.advance(by: 30)
        #expect(delegate.heard == ["show", "tick 3 skip"])
        controller.landingPageClosed()
        scheduler.advance(by: 10)
        #expect(delegate.heard == ["show", "tick 3 skip", "tick 2 skip", "tick 1 skip", "end countdown"])
        #expect(log.calls.last.map { $0.at } == 33.5, "3 s counted from the page's close at 30 s, then the fade")
        #expect(controller.presenter == nil)
        _ = await controller.settleReports()
        await client.settle()
    }

    @Test("media that never shows its first frame: the launch goes on, and its funnel holds `request` and `failed` with the campaign and the app")
    func failedMediaReported() async throws {
        let seeded = try await Seeded()
        let (device, client, delegate, controller) = (seeded.device, seeded.client, seeded.delegate, seeded.controller)
        defer { device.remove() }
        seeded.scheduler.advance(by: 3)  // past the media timeout (2 s) and the fade
        #expect(delegate.heard == ["end failed"])
        _ = await controller.settleReports()  // the edge is out of reach: the events wait on disk
        let events = try device.queued()
        #expect(events.map(\.type) == ["request", "failed"])
        #expect(events.map(\.campaignId) == [nil, 7] && events.allSatisfy { $0.app == "shop" })
        #expect(Set(events.map { $0.eventId.split(separator: "-").dropLast().joined(separator: "-") }).count == 1, "one launch's id")
        await client.settle()
    }

    @Test("a launch opened by a push, or while ads are suppressed, puts up no cover: the delegate hears at once that no ad came")
    func excludedLaunches() async throws {
        let clock = ManualClock(Date(timeIntervalSinceReferenceDate: 0))
        let (client, folder) = try Self.client(clock: clock)
        defer { try? FileManager.default.removeItem(at: folder) }
        var surfaces = 0
        let delegate = RecordingDelegate()
        let controller = LaunchAdController(client: client, scheduler: VirtualScheduler(clock: clock), screen: { Stage.screen }, makeSurface: {
            surfaces += 1
            return RecordingSurface(clock: clock, log: CallLog())
        })
        controller.delegate = delegate
        controller.launch(.cold, openedBy: .push)
        #expect(surfaces == 0 && controller.presenter == nil && controller.lastLaunch == .cold)
        #expect(delegate.heard == ["end notForOpening"])

        try await client.suppress(for: 300)
        controller.didEnterBackground()
        clock.advance(by: 120)
        controller.willEnterForeground()
        #expect(surfaces == 0 && controller.lastLaunch == .hot(backgroundSeconds: 120))
        #expect(delegate.heard == ["end notForOpening", "end suppressed"])
        clock.advance(by: 200)  // the suppression is over: the cover goes up again
        controller.launch(.cold, openedBy: .userTap)
        #expect(surfaces == 1 && controller.presenter != nil)
        await client.settle()
    }
}

@Suite("how the app was opened, learnt after its launch began", .timeLimit(.minutes(1)))
@MainActor
struct LateOpeningTests {
    @Test("a link arriving while the launch's ad loads ends it before it appears (notForOpening); a tap on the icon changes nothing")
    func linkEndsTheLoadingAd() async throws {
        let seeded = try await Seeded()
        defer { seeded.device.remove() }
        let (client, delegate, controller) = (seeded.client, seeded.delegate, seeded.controller)
        #expect(controller.presenter?.phase == .loading)
        controller.opened(by: .userTap)  // shown for: nothing changes
        #expect(controller.presenter?.phase == .loading)
        let events = try #require(seeded.made?.events)
        controller.opened(by: .url)
        #expect(controller.presenter?.phase != .loading)
        events.mediaAppeared(nil)  // too late: the ad is not shown
        seeded.scheduler.advance(by: 10)
        #expect(delegate.heard == ["end notForOpening"])
        #expect(controller.presenter == nil)
        let queued = try seeded.device.queued().map(\.type)
        #expect(!queued.contains("impression"), "\(queued)")
        _ = await controller.settleReports()
        await client.settle()
    }

    @Test("an ad already on the screen plays on when the opening comes late")
    func shownAdPlaysOn() async throws {
        let seeded = try await Seeded()
        defer { seeded.device.remove() }
        let (client, delegate, controller) = (seeded.client, seeded.delegate, seeded.controller)
        try #require(seeded.made?.events).mediaAppeared(nil)
        controller.opened(by: .push)
        seeded.scheduler.advance(by: 10)
        #expect(delegate.heard.first == "show" && delegate.heard.last == "end countdown", "\(delegate.heard)")
        _ = await controller.settleReports()
        await client.settle()
    }
}

/// A controller over a device whose cache holds campaign 7 (cache first, the edge out of reach), launched once
/// (`before` runs first) and past its cover: the ad's media is loading on a recording surface.
@MainActor
final class Seeded {
    let device = Device(clock: ManualClock(Date(timeIntervalSinceReferenceDate: 0)))
    let client: LaunchAdClient
    let scheduler: VirtualScheduler
    let delegate = RecordingDelegate()
    let log = CallLog()
    let controller: LaunchAdController
    weak var made: RecordingSurface?

    init(before: (LaunchAdController) -> Void = { _ in }) async throws {
        try device.seed(7)
        client = try device.client(.cacheFirst)
        scheduler = VirtualScheduler(clock: device.clock)
        let (clock, log) = (device.clock, log)
        let box = SurfaceBox()
        controller = LaunchAdController(client: client, scheduler: scheduler, screen: { Stage.screen }, makeSurface: {
            let surface = RecordingSurface(clock: clock, log: log)
            box.surface = surface
            return surface
        })
        controller.delegate = delegate
        before(controller)
        controller.launch()
        for _ in 0..<500 where controller.presenter?.phase == .covering {
            try await Task.sleep(nanoseconds: 2_000_000)
        }
        made = box.surface
    }
}

/// The surface a controller made, held weakly (the presenter alone keeps it).
@MainActor
final class SurfaceBox {
    weak var surface: RecordingSurface?
}
