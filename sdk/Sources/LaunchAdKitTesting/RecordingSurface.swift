import Foundation
import LaunchAdKit

/// A surface that draws nothing and writes down each call with the time it came at: what the SDK's tests, and an
/// app's, drive an ``AdPresenter`` or a ``LaunchAdController`` through on Linux as on a device.
@MainActor
public final class RecordingSurface: AdSurface {
    /// One call of the surface protocol.
    public enum Call: Equatable, Sendable {
        case showWindow(AdRect)
        case launchScreen(Bool)
        case loadMedia(AdMedia, frame: AdRect, clip: AdRect)
        case animationFrame(Int)
        case video(playing: Bool)
        case element(AdElement, String, AdRect)
        case hide(AdElement)
        case logo(AdRect)
        case fadeOut(Double)
        case open(URL)
        case remove
        case why(WhyThisAdSheet)
        case whyUpdated(WhyThisAdSheet)
        case whyDismissed
        /// The user's step in the sheet's report action (``report(_:)``), as the surface told the presenter.
        case report(AdReportStep)
    }

    private let clock: any LaunchAdClock
    private let start: Date
    /// Where the calls go: kept by the test, so they outlive the surface.
    public let log: CallLog
    /// How the surface answers the presenter (the media's first frame, a failure, a tap); nil once removed.
    public private(set) var events: AdSurfaceEvents?
    /// What `open` answers.
    public var opens = true
    /// How the "why this ad" sheet up now tells it was closed (``dismissWhy()``); nil when none is up.
    private var whyDismissed: (@MainActor @Sendable () -> Void)?
    /// The "why this ad" sheet up now, as last presented or updated; nil when none is up.
    public private(set) var sheet: WhyThisAdSheet?

    /// Writes each call to `log`, timed in seconds since now on `clock`.
    public init(clock: any LaunchAdClock, log: CallLog) {
        self.clock = clock
        self.log = log
        start = clock.now()
    }

    /// Times to the microsecond: what the clock's floating point adds below is noise.
    private func note(_ call: Call) {
        log.calls.append(((clock.now().timeIntervalSince(start) * 1e6).rounded() / 1e6, call))
    }

    public func showWindow(frame: AdRect, events: AdSurfaceEvents) {
        self.events = events
        note(.showWindow(frame))
    }
    public func setLaunchScreenVisible(_ visible: Bool) { note(.launchScreen(visible)) }
    public func loadMedia(_ media: AdMedia, frame: AdRect, clip: AdRect) { note(.loadMedia(media, frame: frame, clip: clip)) }
    public func showAnimationFrame(_ index: Int) { note(.animationFrame(index)) }
    public func setVideoPlaying(_ playing: Bool) { note(.video(playing: playing)) }
    public func showElement(_ element: AdElement, text: String, frame: AdRect) { note(.element(element, text, frame)) }
    public func hideElement(_ element: AdElement) { note(.hide(element)) }
    public func showLogo(frame: AdRect) { note(.logo(frame)) }
    public func fadeOut(duration: Double) { note(.fadeOut(duration)) }
    public func open(_ url: URL, completion: @escaping @MainActor @Sendable (Bool) -> Void) {
        note(.open(url))
        completion(opens)
    }
    public func presentWhy(_ sheet: WhyThisAdSheet, dismissed: @escaping @MainActor @Sendable () -> Void) {
        note(.why(sheet))
        whyDismissed = dismissed
        self.sheet = sheet
    }
    public func updateWhy(_ sheet: WhyThisAdSheet) {
        note(.whyUpdated(sheet))
        if whyDismissed != nil { self.sheet = sheet }
    }
    /// The user closes the "why this ad" sheet: false when none is up.
    @discardableResult
    public func dismissWhy() -> Bool {
        guard let dismissed = whyDismissed else { return false }
        whyDismissed = nil
        sheet = nil
        note(.whyDismissed)
        dismissed()
        return true
    }
    /// The user taps the sheet's report action (its button, a reason, the cancel): false when no sheet is up.
    @discardableResult
    public func report(_ step: AdReportStep) -> Bool {
        guard whyDismissed != nil, let events else { return false }
        note(.report(step))
        events.report(step)
        return true
    }
    public func remove() {
        note(.remove)
        (whyDismissed, sheet) = (nil, nil)
        // A removed window answers nothing more.
        events = nil
    }
}
