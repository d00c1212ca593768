import Foundation
import LaunchAdKit
import LaunchAdKitTesting
import Testing

/// One presentation on virtual time: a manual clock, timers that fire as the test moves it, a recording surface.
@MainActor
final class Stage {
    let clock = ManualClock(Date(timeIntervalSinceReferenceDate: 0))
    let scheduler: VirtualScheduler
    let delegate = RecordingDelegate()
    let presenter: AdPresenter
    /// Held weakly: the presenter alone keeps the surface, and lets it go at the end.
    weak var surface: RecordingSurface?
    /// Its calls, kept after the surface is gone.
    let log = CallLog()
    var reports: [ReportKind] = []
    var finished: [EndReason] = []
    static let screen = AdScreen(width: 390, height: 844, scale: 3, safeTop: 47, safeBottom: 34)

    /// `reporting`: the presenter queues the user's reports (``userReports``); without, its sheet offers none.
    init(options: AdPresentationOptions = Stage.options(), why: (@MainActor @Sendable (LaunchAd) async throws -> AdWhy)? = nil,
         reporting: Bool = true) {
        scheduler = VirtualScheduler(clock: clock)
        let surface = RecordingSurface(clock: clock, log: log)
        self.surface = surface
        let box = ReportBox()
        var reportAd: (@MainActor (LaunchAd, AdReportReason) -> Task<Bool, Never>)?
        if reporting {
            reportAd = { ad, reason in
                box.userReports.append((ad.campaignId, reason))
                let queued = box.queues
                return Task { queued }
            }
        }
        presenter = AdPresenter(screen: Self.screen, surface: surface, clock: clock, scheduler: scheduler, options: options,
                                report: { kind, _ in box.kinds.append(kind) }, finished: { reason in box.ended.append(reason) },
                                why: why, reportAd: reportAd)
        self.box = box
        presenter.delegate = delegate
    }

    private let box: ReportBox

    static func options(_ change: (inout AdPresentationOptions) -> Void = { _ in }) -> AdPresentationOptions {
        var options = AdPresentationOptions()
        options.locale = "en_US"
        change(&options)
        return options
    }

    var reported: [ReportKind] { box.kinds }
    /// The user's reports the presenter queued: the campaign and the reason.
    var userReports: [(campaignId: Int64, reason: AdReportReason)] { box.userReports }
    /// Whether the user's reports are queued (false: each fails, as on a full disk).
    var reportsQueue: Bool {
        get { box.queues }
        set { box.queues = newValue }
    }
    var ended: [EndReason] { box.ended }

    /// The surface's calls so far (kept across its release).
    func snapshot() -> [(at: Double, call: RecordingSurface.Call)] { log.calls }

    func appear(duration: Double? = nil) { surface?.events?.mediaAppeared(duration) }
    func tap(_ frame: AdRect) { surface?.events?.tapped(frame.x + frame.width / 2, frame.y + frame.height / 2) }
    var layout: AdLayout { presenter.layout! }
}

@MainActor
final class ReportBox {
    var kinds: [ReportKind] = []
    var ended: [EndReason] = []
    var userReports: [(campaignId: Int64, reason: AdReportReason)] = []
    var queues = true
}

func sampleAd(countdown: Int = 3, skippable: Bool = true, skipAfter: Int = 0, contentType: String = "image/png",
              file: URL = URL(fileURLWithPath: "/dev/null"), display: AdDisplay = .full, clickArea: AdClickArea = .button,
              videoSound: Bool = false, jump: LaunchAd.Jump? = .init(type: "url", value: "https://shop.example.com/1212")) -> LaunchAd {
    LaunchAd(campaignId: 7, version: 2, sha256: String(repeating: "a", count: 64), file: file, contentType: contentType,
             countdown: countdown, skippable: skippable, skipAfter: skipAfter, jump: jump, forced: false,
             expiresAt: Date(timeIntervalSince1970: 1_900_000_000), source: .cache, pixelWidth: 1242, pixelHeight: 2688,
             display: display, clickArea: clickArea, videoSound: videoSound)
}

@Suite("AdPresenter drives the surface: window, media, countdown, taps, pauses, the end", .timeLimit(.minutes(1)))
@MainActor
struct AdPresenterTests {
    @Test("the window goes up with the launch screen before the media's first frame; 3 ticks, a fade, everything released")
    func countdownToTheEnd() {
        let stage = Stage()
        stage.presenter.cover()
        stage.scheduler.advance(by: 0.2)  // deciding
        stage.presenter.present(sampleAd())
        stage.scheduler.advance(by: 0.3)  // decoding
        #expect(stage.presenter.phase == .loading)
        stage.appear()
        let layout = stage.layout
        let calls = stage.snapshot().map(\.call)
        #expect(Array(calls.prefix(3)) == [.showWindow(Stage.screen.bounds), .launchScreen(true),
                                           .loadMedia(.image(URL(fileURLWithPath: "/dev/null")), frame: layout.frames.media, clip: layout.frames.ad)])
        #expect(stage.snapshot()[2].at == 0.2)
        // The launch screen goes only with the first frame, then the label, the button and skip from the first frame.
        #expect(Array(calls.dropFirst(3)) == [.launchScreen(false), .element(.label, "Ad", layout.frames.label),
                                              .element(.click, "Tap to learn more", layout.frames.click),
                                              .element(.skip, "Skip 3", layout.frames.skip)])
        stage.scheduler.advance(by: 10)
        let timeline = stage.snapshot()
        let controls = timeline.compactMap { entry -> String? in
            if case .element(.skip, let text, _) = entry.call { return "\(entry.at) \(text)" }
            return nil
        }
        #expect(controls == ["0.5 Skip 3", "1.5 Skip 2", "2.5 Skip 1"])
        #expect(timeline.suffix(2).map(\.call) == [.fadeOut(0.5), .remove])
        #expect(timeline.suffix(2).map(\.at) == [3.5, 4.0])
        #expect(stage.delegate.heard == ["show", "tick 3 skip", "tick 2 skip", "tick 1 skip", "end countdown"])
        #expect(stage.reported == [.impression])
        #expect(stage.ended == [.countdown])
        #expect(stage.presenter.phase == .ended(.countdown))
        // No window, no view, no timer left.
        #expect(stage.surface == nil)
        #expect(stage.scheduler.waiting == 0)
    }

    @Test("skip is refused before skipAfter (the countdown shows), offered then, and ends the ad as a skip")
    func skipAfterTwo() {
        let stage = Stage()
        stage.presenter.cover()
        stage.presenter.present(sampleAd(countdown: 5, skipAfter: 2))
        stage.appear()
        let layout = stage.layout
        stage.scheduler.advance(by: 1.2)
        stage.tap(layout.frames.skip)
        #expect(stage.presenter.phase == .showing)
        stage.scheduler.advance(by: 1.3)  // 2.5 s in
        stage.tap(layout.frames.skip)
        stage.scheduler.advance(by: 1)
        let controls = stage.snapshot().compactMap { entry -> String? in
            switch entry.call {
            case .element(.skip, let text, _), .element(.countdown, let text, _): "\(entry.at) \(text)"
            case .hide(let element): "\(entry.at) hide \(element)"
            default: nil
            }
        }
        #expect(controls == ["0.0 5s", "1.0 4s", "2.0 hide countdown", "2.0 Skip 3"])
        #expect(stage.reported == [.impression, .skip])
        #expect(stage.ended == [.skip])
        #expect(stage.delegate.heard.last == "end skip")
        #expect(stage.snapshot().last.map { $0.at } == 3.0)  // removed 0.5 s after the tap at 2.5
    }

    @Test("an ad that is not skippable ignores taps on its countdown, even with the whole ad as click area")
    func notSkippable() {
        let stage = Stage()
        stage.presenter.cover()
        stage.presenter.present(sampleAd(countdown: 3, skippable: false, clickArea: .full))
        stage.appear()
        stage.tap(stage.layout.frames.countdown)
        stage.scheduler.advance(by: 3.6)
        #expect(stage.ended == [.countdown])
        #expect(stage.reported == [.impression])
        #expect(!stage.snapshot().contains { if case .element(.click, _, _) = $0.call { true } else { false } })
    }

    @Test("a click outside the app: the countdown pauses while the landing page is up, the ad ends on the way back")
    func clickOutside() {
        let stage = Stage()
        stage.presenter.cover()
        stage.presenter.present(sampleAd(countdown: 3))
        stage.appear()
        stage.scheduler.advance(by: 1.4)
        stage.tap(stage.layout.frames.click)
        #expect(stage.delegate.heard.last == "open https://shop.example.com/1212")
        #expect(stage.snapshot().last?.call == .open(URL(string: "https://shop.example.com/1212")!))
        #expect(stage.presenter.phase == .landing(inApp: false))
        // The browser is up: the app goes away and comes back long after the countdown would have ended.
        stage.scheduler.advance(by: 2)
        stage.presenter.enterBackground()
        stage.scheduler.advance(by: 60)
        #expect(stage.ended.isEmpty)
        #expect(stage.snapshot().last?.call == .open(URL(string: "https://shop.example.com/1212")!))
        stage.presenter.enterForeground()
        stage.scheduler.advance(by: 1)
        #expect(stage.ended == [.click])
        #expect(stage.reported == [.impression, .click])
        #expect(stage.snapshot().suffix(2).map(\.call) == [.fadeOut(0.5), .remove])
        #expect(stage.delegate.heard == ["show", "tick 3 skip", "tick 2 skip", "open https://shop.example.com/1212", "end click"])
        #expect(stage.surface == nil)
    }

    @Test("a click the app opens itself: the ad steps aside, paused, and is released when the landing page closes")
    func clickInApp() {
        let stage = Stage()
        stage.delegate.opensItself = true
        stage.presenter.cover()
        stage.presenter.present(sampleAd(countdown: 3, clickArea: .full))
        stage.appear()
        stage.scheduler.advance(by: 0.5)
        stage.tap(AdRect(x: 100, y: 400, width: 1, height: 1))  // anywhere on a full click area
        #expect(stage.presenter.phase == .landing(inApp: true))
        #expect(stage.snapshot().last?.call == .fadeOut(0.5))
        stage.scheduler.advance(by: 30)
        #expect(stage.ended.isEmpty)
        stage.delegate.closeLanding?()
        stage.scheduler.advance(by: 0)
        #expect(stage.ended == [.click])
        #expect(stage.snapshot().suffix(2).map(\.call) == [.fadeOut(0.5), .remove])
        #expect(stage.surface == nil)
    }

    @Test("a URL that cannot be opened ends the ad at once, as a click")
    func openFails() {
        let stage = Stage()
        stage.presenter.cover()
        stage.surface?.opens = false
        stage.presenter.present(sampleAd())
        stage.appear()
        stage.tap(stage.layout.frames.click)
        stage.scheduler.advance(by: 0.5)
        #expect(stage.ended == [.click])
    }

    @Test("the background stops the countdown where it is; it goes on from there on the way back")
    func backgroundPauses() {
        let stage = Stage()
        stage.presenter.cover()
        stage.presenter.present(sampleAd(countdown: 3))
        stage.appear()
        stage.scheduler.advance(by: 1.5)
        stage.presenter.enterBackground()
        stage.scheduler.advance(by: 120)
        #expect(stage.ended.isEmpty)
        stage.presenter.enterForeground()
        stage.scheduler.advance(by: 10)
        let ticks = stage.snapshot().compactMap { entry -> String? in
            if case .element(.skip, let text, _) = entry.call { return "\(entry.at) \(text)" } else { return nil }
        }
        // 1.5 s before, 1.5 s after: the countdown ends 3 s of foreground in.
        #expect(ticks == ["0.0 Skip 3", "1.0 Skip 2", "122.0 Skip 1"])
        #expect(stage.snapshot().last.map { $0.at } == 123.5)
        #expect(stage.ended == [.countdown])
    }

    @Test("a landing page the app opened is up when the media appears: the ad waits at its full count, however long; the countdown starts when the page closes, and stops again if it reopens")
    func countdownHeldByALandingPage() {
        let stage = Stage()
        stage.presenter.cover()
        stage.presenter.setLandingPageUp(true)
        stage.presenter.present(sampleAd(countdown: 3, skipAfter: 3))
        stage.appear()
        stage.scheduler.advance(by: 30)
        #expect(stage.presenter.phase == .showing)
        #expect(stage.delegate.heard == ["show", "tick 3"])
        // Background and foreground meanwhile do not start it either.
        stage.presenter.enterBackground()
        stage.scheduler.advance(by: 5)
        stage.presenter.enterForeground()
        stage.scheduler.advance(by: 5)
        #expect(stage.delegate.heard == ["show", "tick 3"])
        stage.presenter.setLandingPageUp(false)  // at 40 s
        stage.scheduler.advance(by: 1.5)
        stage.presenter.setLandingPageUp(true)  // 1.5 s counted
        stage.scheduler.advance(by: 20)
        #expect(stage.delegate.heard == ["show", "tick 3", "tick 2"])
        stage.presenter.setLandingPageUp(false)  // at 61.5 s
        stage.scheduler.advance(by: 10)
        let controls = stage.snapshot().compactMap { entry -> String? in
            switch entry.call {
            case .element(.skip, let text, _), .element(.countdown, let text, _): "\(entry.at) \(text)"
            default: nil
            }
        }
        #expect(controls == ["0.0 3s", "41.0 2s", "62.0 1s"])
        #expect(stage.ended == [.countdown])
        // 1.5 s from 40 s, 1.5 s from 61.5 s: the countdown ends at 63 s, the fade then takes 0.5 s.
        #expect(stage.snapshot().last.map { $0.at } == 63.5)
        #expect(stage.reported == [.impression])
    }

    @Test("no first frame within the media timeout: the cover fades, the launch goes on, `failed` is reported (no impression)")
    func mediaTimeout() {
        let stage = Stage()
        stage.presenter.cover()
        stage.presenter.present(sampleAd())
        stage.scheduler.advance(by: 2.6)
        #expect(stage.ended == [.failed])
        #expect(stage.reported == [.failed])
        #expect(stage.snapshot().suffix(2).map(\.call) == [.fadeOut(0.5), .remove])
        #expect(stage.snapshot().last.map { $0.at } == 2.5)
        stage.appear()  // too late: nothing happens
        #expect(stage.delegate.heard == ["end failed"])
        #expect(stage.reported == [.failed])
    }

    @Test("no ad this launch: the cover fades away")
    func noAd() {
        let stage = Stage()
        stage.presenter.cover()
        stage.scheduler.advance(by: 0.1)
        stage.presenter.dismiss(.none)
        stage.scheduler.advance(by: 1)
        #expect(stage.snapshot().map(\.call) == [.showWindow(Stage.screen.bounds), .launchScreen(true), .fadeOut(0.5), .remove])
        #expect(stage.delegate.heard == ["end none"])
        #expect(stage.surface == nil)
    }

    @Test("the ad is laid out on the screen as it is when the ad comes (the window's safe area known once it is up)")
    func screenAtPresent() {
        let stage = Stage()
        stage.presenter.cover()
        var later = Stage.screen
        later.safeTop = 59
        stage.presenter.present(sampleAd(), on: later)
        #expect(stage.layout.screen == later)
        #expect(stage.layout.frames.skip.y == 67)
    }

    @Test("a half display keeps the launch screen under the logo strip and shows the logo there")
    func half() {
        let stage = Stage()
        stage.presenter.cover()
        stage.presenter.present(sampleAd(display: .half))
        stage.appear()
        let calls = stage.snapshot().map(\.call)
        #expect(!calls.contains(.launchScreen(false)))
        let logo = try! #require(stage.layout.frames.logo)
        #expect(calls.contains(.logo(logo)))
    }

    @Test("a GIF's frames change at its own delays (a 0 delay drawn as 0.1 s), and stop in the background")
    func gifDelays() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("gif-\(UUID().uuidString).gif")
        try GIFBytes.make(delays: [20, 50, 0]).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let stage = Stage()
        stage.presenter.cover()
        stage.presenter.present(sampleAd(countdown: 3, contentType: "image/gif", file: file))
        #expect(stage.snapshot().last?.call == .loadMedia(.animation(file, delays: [0.2, 0.5, 0.1]), frame: stage.layout.frames.media,
                                                          clip: stage.layout.frames.ad))
        stage.appear()
        stage.scheduler.advance(by: 1.85)
        stage.presenter.enterBackground()
        stage.scheduler.advance(by: 5)
        let frames = stage.snapshot().compactMap { entry -> String? in
            if case .animationFrame(let index) = entry.call { return String(format: "%.1f:%d", entry.at, index) } else { return nil }
        }
        #expect(frames == ["0.0:0", "0.2:1", "0.7:2", "0.8:0", "1.0:1", "1.5:2", "1.6:0", "1.8:1"])
    }

    @Test("a video plays muted, pauses in the background, and its countdown is cut to its length when asked")
    func video() {
        let stage = Stage(options: Stage.options { $0.countdownWithinVideo = true })
        let file = URL(fileURLWithPath: "/tmp/ad.mp4")
        stage.presenter.cover()
        stage.presenter.present(sampleAd(countdown: 5, contentType: "video/mp4", file: file))
        #expect(stage.snapshot().last?.call == .loadMedia(.video(file, muted: true), frame: stage.layout.frames.media, clip: stage.layout.frames.ad))
        stage.appear(duration: 2.6)
        stage.scheduler.advance(by: 0.5)
        stage.presenter.enterBackground()
        stage.presenter.enterForeground()
        stage.scheduler.advance(by: 5)
        let calls = stage.snapshot()
        let playing = calls.compactMap { entry -> Bool? in if case .video(let on) = entry.call { return on } else { return nil } }
        #expect(playing == [true, false, true, false])
        #expect(stage.delegate.heard == ["show", "tick 2 skip", "tick 1 skip", "end countdown"])
        #expect(calls.last.map { $0.at } == 2.5)

        // Without the option the campaign's countdown stands, past the video's end.
        let full = Stage()
        full.presenter.cover()
        full.presenter.present(sampleAd(countdown: 5, contentType: "video/mp4", file: file))
        full.appear(duration: 2.6)
        full.scheduler.advance(by: 10)
        #expect(full.delegate.heard.first(where: { $0.hasPrefix("tick") }) == "tick 5 skip")
        #expect(full.snapshot().last.map { $0.at } == 5.5)
    }

    @Test("a video plays with its sound when its campaign says videoSound, muted without it, and muted when the app mutes every video")
    func videoSound() {
        let file = URL(fileURLWithPath: "/tmp/ad.mp4")
        for (videoSound, alwaysMuted, muted) in [(true, false, false), (false, false, true), (true, true, true), (false, true, true)] {
            let stage = Stage(options: Stage.options { $0.alwaysMuted = alwaysMuted })
            stage.presenter.cover()
            stage.presenter.present(sampleAd(contentType: "video/mp4", file: file, videoSound: videoSound))
            #expect(stage.snapshot().last?.call == .loadMedia(.video(file, muted: muted), frame: stage.layout.frames.media,
                                                              clip: stage.layout.frames.ad), "videoSound \(videoSound), alwaysMuted \(alwaysMuted)")
        }
        // An image has no sound to play: videoSound changes nothing.
        let image = Stage()
        image.presenter.cover()
        image.presenter.present(sampleAd(videoSound: true))
        #expect(image.snapshot().last?.call == .loadMedia(.image(URL(fileURLWithPath: "/dev/null")), frame: image.layout.frames.media,
                                                          clip: image.layout.frames.ad))
    }
}

/// A small well-formed GIF: 1×1, one frame per delay (hundredths of a second), each behind its Graphic Control
/// Extension, with a NETSCAPE loop extension and a comment the reader must step over.
enum GIFBytes {
    static func make(delays: [Int]) -> Data {
        var bytes: [UInt8] = Array("GIF89a".utf8) + [1, 0, 1, 0, 0x80, 0, 0] + [0, 0, 0, 255, 255, 255]  // a 2-colour global table
        bytes += [0x21, 0xFF, 11] + Array("NETSCAPE2.0".utf8) + [3, 1, 0, 0, 0]
        bytes += [0x21, 0xFE, 3] + Array("hi!".utf8) + [0]
        for delay in delays {
            bytes += [0x21, 0xF9, 4, 0, UInt8(delay & 0xFF), UInt8(delay >> 8), 0, 0]
            bytes += [0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0]
            bytes += [2, 2, 0x4C, 0x01, 0]
        }
        bytes.append(0x3B)
        return Data(bytes)
    }
}

@Suite("GIF frame delays read from the bytes", .timeLimit(.minutes(1)))
struct GIFTimingTests {
    @Test("each frame's delay from its Graphic Control Extension; 0 and 1 hundredths drawn as 0.1 s")
    func delays() {
        #expect(GIFTiming.frameDelays(GIFBytes.make(delays: [7, 150, 0, 1, 2])) == [0.07, 1.5, 0.1, 0.1, 0.02])
    }

    @Test("what is not a whole GIF has no delays")
    func malformed() {
        let good = GIFBytes.make(delays: [10, 10])
        #expect(GIFTiming.frameDelays(Data("PNG".utf8)) == nil)
        #expect(GIFTiming.frameDelays(good.prefix(30)) == nil)
        #expect(GIFTiming.frameDelays(good.prefix(good.count - 3)) == nil)
        var wrong = [UInt8](good)
        wrong[wrong.count - 1] = 0x99
        #expect(GIFTiming.frameDelays(Data(wrong)) == nil)
    }
}

/// A delegate that writes down what it hears.
@MainActor
final class RecordingDelegate: LaunchAdDelegate {
    var heard: [String] = []
    /// Whether the app opens jumps itself, and the `closed` it was handed.
    var opensItself = false
    var closeLanding: (@MainActor @Sendable () -> Void)?

    func launchAdDidShow(_ ad: LaunchAd) { heard.append("show") }
    func launchAd(_ ad: LaunchAd, didTick secondsLeft: Int, skipAllowed: Bool) { heard.append("tick \(secondsLeft)\(skipAllowed ? " skip" : "")") }
    func launchAdDidEnd(_ ad: LaunchAd?, reason: EndReason) { heard.append("end \(reason.rawValue)") }
    func launchAd(_ ad: LaunchAd, open jump: LaunchAd.Jump, closed: @escaping @MainActor @Sendable () -> Void) -> Bool {
        heard.append("open \(jump.value)")
        closeLanding = closed
        return opensItself
    }
}
