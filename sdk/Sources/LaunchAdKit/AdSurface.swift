import Foundation

/// The media as the surface draws it.
public enum AdMedia: Sendable, Equatable {
    /// A still image (PNG, JPEG, WebP).
    case image(URL)
    /// An animated GIF: the presenter shows frame after frame with these delays (seconds, the GIF's own).
    case animation(URL, delays: [Double])
    /// A video, muted or not.
    case video(URL, muted: Bool)

    /// How `ad`'s creative is drawn: a GIF of more than one frame animates (its delays read from its bytes),
    /// `video/*` plays, anything else is a still image. A video is muted unless its campaign says `videoSound`;
    /// `alwaysMuted` (the app's word) mutes it whatever the campaign says.
    public static func of(_ ad: LaunchAd, alwaysMuted: Bool = false) -> AdMedia {
        let type = ad.contentType.lowercased()
        if type.hasPrefix("video/") { return .video(ad.file, muted: alwaysMuted || !ad.videoSound) }
        if type == "image/gif", let data = try? Data(contentsOf: ad.file), let delays = GIFTiming.frameDelays(data), delays.count > 1 {
            return .animation(ad.file, delays: delays)
        }
        return .image(ad.file)
    }
}

/// The things the surface draws over the media, each at its ``AdLayout`` frame.
public enum AdElement: String, Sendable, CaseIterable {
    case skip, countdown, label, click
}

/// What the surface tells the presenter: the media's first frame, a failure, a tap. The closures hold the
/// presenter weakly, so a surface that outlives it calls nothing.
public struct AdSurfaceEvents: Sendable {
    /// The media's first frame is on screen; with a video, its length in seconds.
    public var mediaAppeared: @MainActor @Sendable (_ duration: Double?) -> Void
    /// The media cannot be shown.
    public var mediaFailed: @MainActor @Sendable () -> Void
    /// A tap, in points from the screen's top left.
    public var tapped: @MainActor @Sendable (_ x: Double, _ y: Double) -> Void
    /// A tap on the "why this ad" sheet's report action (its button, a reason, the cancel): the presenter decides
    /// what it means and redraws the sheet with ``AdSurface/updateWhy(_:)``.
    public var report: @MainActor @Sendable (AdReportStep) -> Void

    public init(mediaAppeared: @escaping @MainActor @Sendable (Double?) -> Void, mediaFailed: @escaping @MainActor @Sendable () -> Void,
                tapped: @escaping @MainActor @Sendable (Double, Double) -> Void,
                report: @escaping @MainActor @Sendable (AdReportStep) -> Void = { _ in }) {
        self.mediaAppeared = mediaAppeared
        self.mediaFailed = mediaFailed
        self.tapped = tapped
        self.report = report
    }
}

/// What draws an ad: LaunchAdKitUI's window on an iPhone, a recording in the tests. Each call is one thing to draw
/// or take away; the surface decides nothing (no frame, no time, no meaning of a tap), the ``AdPresenter`` does.
@MainActor
public protocol AdSurface: AnyObject {
    /// Puts up a window of the ad's own over the whole screen (`frame`), above the app's, the app's launch screen
    /// filling it, the status bar hidden; `events` is how the surface answers.
    func showWindow(frame: AdRect, events: AdSurfaceEvents)
    /// Shows or takes away the app's launch screen under the ad.
    func setLaunchScreenVisible(_ visible: Bool)
    /// Loads the media, drawn at `frame` and clipped to `clip`; once its first frame is on screen the surface calls
    /// `mediaAppeared` (or `mediaFailed`). An animation shows its first frame; a video waits for `setVideoPlaying`.
    func loadMedia(_ media: AdMedia, frame: AdRect, clip: AdRect)
    /// Shows frame `index` of an animation.
    func showAnimationFrame(_ index: Int)
    /// Plays or pauses a video.
    func setVideoPlaying(_ playing: Bool)
    /// Shows `element` at `frame` with `text` (or changes its text).
    func showElement(_ element: AdElement, text: String, frame: AdRect)
    /// Takes `element` away.
    func hideElement(_ element: AdElement)
    /// Shows the app's logo view at `frame` (a `half` display's strip), if the app gave one.
    func showLogo(frame: AdRect)
    /// Fades the whole window out over `duration` seconds (alpha, not hiding: hiding flickers).
    func fadeOut(duration: Double)
    /// Opens `url` outside the app (the landing page the app did not open itself); `completion` says whether it did.
    func open(_ url: URL, completion: @escaping @MainActor @Sendable (Bool) -> Void)
    /// Takes the window down and lets go of every view, image and player in it.
    func remove()
    /// Presents the "why this ad" sheet over the ad; `dismissed` once the user closes it (the countdown waits till then),
    /// or at once when the sheet cannot be presented. The ad's skip stays reachable while it is up.
    func presentWhy(_ sheet: WhyThisAdSheet, dismissed: @escaping @MainActor @Sendable () -> Void)
    /// Shows `sheet` in place of the one up now: the edge's answer came in after it was presented while loading, or
    /// its report action moved (the reasons listed, or closed, or the ad reported).
    func updateWhy(_ sheet: WhyThisAdSheet)
}

extension AdSurface {
    /// A surface that cannot present the sheet: as if it were dismissed at once, so the countdown goes on.
    public func presentWhy(_ sheet: WhyThisAdSheet, dismissed: @escaping @MainActor @Sendable () -> Void) { dismissed() }
    /// Nothing is up to update.
    public func updateWhy(_ sheet: WhyThisAdSheet) {}
}

/// A wake-up the presenter asked for, which it may call off.
public struct AdWake: Sendable {
    private let cancelling: @Sendable () -> Void
    public init(cancel: @escaping @Sendable () -> Void) { cancelling = cancel }
    public func cancel() { cancelling() }
}

/// When the presenter's timers fire: on the SDK's clock in an app, on virtual time in the tests.
@MainActor
public protocol AdScheduler: AnyObject {
    /// Runs `action` on the main actor `seconds` from now, unless cancelled first.
    func after(_ seconds: Double, _ action: @escaping @MainActor @Sendable () -> Void) -> AdWake
}

/// Timers on a ``LaunchAdClock`` (the system's in an app): each wake-up a task that sleeps on the clock.
@MainActor
public final class ClockScheduler: AdScheduler {
    public let clock: any LaunchAdClock

    public init(clock: any LaunchAdClock = SystemClock()) { self.clock = clock }

    public func after(_ seconds: Double, _ action: @escaping @MainActor @Sendable () -> Void) -> AdWake {
        let clock = clock
        let task = Task { @MainActor in
            do { try await clock.sleep(seconds: seconds) } catch { return }
            guard !Task.isCancelled else { return }
            action()
        }
        return AdWake { task.cancel() }
    }
}
