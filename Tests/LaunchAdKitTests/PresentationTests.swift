import Foundation
import LaunchAdKit
import LaunchAdKitTesting
import LaunchAdTesting
import Testing

@Suite("a real edge's answer on the screen: LaunchAdController through a recording surface", .timeLimit(.minutes(2)))
struct PresentationTests {
    @Test("fresh: the cover goes up, the answered creative loads at AdLayout's frames for its pixel size, 3 ticks, the impression reaches the edge")
    func freshAnswerPresented() async throws {
        try await withKitWorld { world in try await Self.present(world) }
    }

    /// The app's side runs on the main actor, as LaunchAdKitUI's does.
    @MainActor
    static func present(_ world: KitWorld) async throws {
        let campaign = try await world.create()
        let clock = ManualClock()
        let client = try world.client(.fresh, clock: clock)
        let scheduler = VirtualScheduler(clock: clock)
        let log = CallLog()
        let made = Made()
        let screen = AdScreen(width: 393, height: 852, scale: 3, safeTop: 59, safeBottom: 34)
        var options = AdPresentationOptions()
        options.locale = "zh-Hans"
        let controller = LaunchAdController(client: client, scheduler: scheduler, options: options, screen: { screen },
                                            makeSurface: {
            let surface = RecordingSurface(clock: clock, log: log)
            made.surface = surface
            return surface
        })
        controller.launch()
        #expect(log.calls.map(\.call) == [.showWindow(screen.bounds), .launchScreen(true)])
        // The decision comes over HTTP from the edge, with the creative downloaded and checked.
        for _ in 0..<500 where controller.presenter?.phase == .covering {
            try await Task.sleep(nanoseconds: 5_000_000)
        }
        let presenter = try #require(controller.presenter)
        #expect(presenter.phase == .loading)
        let ad = try #require(presenter.ad)
        #expect(ad.campaignId == campaign.id && ad.pixelWidth == KitWorld.screen.width && ad.pixelHeight == KitWorld.screen.height)
        let layout = AdLayout(screen: screen, mediaPixels: KitWorld.screen, locale: "zh-Hans")
        #expect(log.calls.last?.call == .loadMedia(.image(ad.file), frame: layout.frames.media, clip: layout.frames.ad))
        #expect(SHA256Digest.hex(try Data(contentsOf: ad.file)) == world.creative)

        // The surface shows the first frame: the countdown from the campaign's, skip from skipAfter, then the end.
        try #require(made.surface?.events).mediaAppeared(nil)
        scheduler.advance(by: Double(campaign.countdown) + 1)
        let texts = log.calls.compactMap { entry -> String? in
            if case .element(let element, let text, _) = entry.call, element == .skip || element == .countdown { return text }
            return nil
        }
        // Second by second, the seconds left, as skip once skipAfter has passed, in the locale's language.
        let expected = (1...campaign.countdown).reversed().map { left in
            campaign.skippable && campaign.countdown - left >= (campaign.skipAfter ?? 0) ? "跳过 \(left)" : "\(left)秒"
        }
        #expect(texts == expected)
        #expect(log.calls.suffix(2).map(\.call) == [.fadeOut(0.5), .remove])
        #expect(controller.presenter == nil)
        #expect(made.surface == nil, "the surface is released at the end")
        // The launch's `request` (sent as the decision came) and the impression, queued on disk and sent; the edge
        // counts the impression (an edge from before the funnel refuses the `request`, which is then dropped).
        let flushes = await controller.settleReports().compactMap { $0 }
        #expect(flushes.count == 2, "\(flushes)")
        #expect(flushes.reduce(0) { $0 + $1.accepted + $1.rejected + $1.duplicates } == 2 && flushes.reduce(0) { $0 + $1.accepted } >= 1,
                "\(flushes)")
        #expect(await client.pendingReports().isEmpty)
        await client.settle()
    }

    /// The surface the controller made, held weakly (the presenter alone keeps it).
    @MainActor
    final class Made {
        weak var surface: RecordingSurface?
    }
}
