import Foundation

/// What the app hears of its launch ads. Every method has a default that does nothing (and `open` returns false,
/// so the SDK opens the URL itself).
@MainActor
public protocol LaunchAdDelegate: AnyObject {
    /// The ad's first frame is on screen.
    func launchAdDidShow(_ ad: LaunchAd)
    /// A second of the countdown (and its start): what the countdown or skip button shows.
    func launchAd(_ ad: LaunchAd, didTick secondsLeft: Int, skipAllowed: Bool)
    /// The ad is gone and its window released (or no ad came): the app's own screen is what the user sees.
    func launchAdDidEnd(_ ad: LaunchAd?, reason: EndReason)
    /// The user tapped the ad. Return true when the app opens `jump` itself (its own landing page, a deep link) and
    /// call `closed` when the user comes back from it; false, and the SDK opens the URL outside the app. The
    /// countdown stays paused meanwhile, and the ad ends (`click`) on the way back.
    func launchAd(_ ad: LaunchAd, open jump: LaunchAd.Jump, closed: @escaping @MainActor @Sendable () -> Void) -> Bool
}

extension LaunchAdDelegate {
    public func launchAdDidShow(_ ad: LaunchAd) {}
    public func launchAd(_ ad: LaunchAd, didTick secondsLeft: Int, skipAllowed: Bool) {}
    public func launchAdDidEnd(_ ad: LaunchAd?, reason: EndReason) {}
    public func launchAd(_ ad: LaunchAd, open jump: LaunchAd.Jump, closed: @escaping @MainActor @Sendable () -> Void) -> Bool { false }
}

/// How an ad is presented, beyond what the campaign says.
public struct AdPresentationOptions: Sendable, Equatable {
    /// Seconds of the fade-out at the end (S0's 0.5 s cross-dissolve).
    public var fadeDuration: Double = 0.5
    /// Seconds the media has to put its first frame up; past them the launch goes on without the ad (`failed`).
    public var mediaTimeout: Double = 2
    /// Every video plays without sound, even a campaign's that says `videoSound`. Without it a video is muted unless
    /// its campaign says otherwise (muted is what users expect of a launch ad).
    public var alwaysMuted: Bool = false
    /// A video's countdown is cut to the video's whole seconds when it is shorter (the last frame never lingers).
    public var countdownWithinVideo: Bool = false
    /// The app's locale for the texts ("广告" / "Ad"); nil: the device's.
    public var locale: String?
    /// A tap on the ad label opens the "why this ad" sheet (who the ad is for, who paid, why this device was chosen:
    /// DSA Art. 26, Apple's guideline 2.5.18), with its "Report this ad" action, the countdown paused while it is up.
    /// Off by default: the app turns it on (an app in the EU, or on the App Store, should).
    public var whyThisAdOnLabel: Bool = false

    public init() {}
}

/// One launch's ad on the screen, from the window going up to its release: which frames, when a tick happens, what
/// a tap does, the pauses for the background and the landing page, the fade and the release. It drives an
/// ``AdSurface`` and holds every decision; the surface only draws.
@MainActor
public final class AdPresenter {
    /// Where the presentation is.
    public enum Phase: Sendable, Equatable {
        /// The window is up over the launch screen; the decision is not in yet.
        case covering
        /// The media is loading (the launch screen still shows).
        case loading
        /// The ad is up, counting down.
        case showing
        /// The landing page is up (in the app, or outside it); the countdown is paused.
        case landing(inApp: Bool)
        /// Fading out.
        case ending(EndReason)
        /// Gone: the surface is released.
        case ended(EndReason)
    }

    public private(set) var phase: Phase = .covering
    public private(set) var ad: LaunchAd?
    public private(set) var layout: AdLayout?
    /// The screen: as it was at the cover, then as it is when the ad comes (a window's safe area is known once it is up).
    public private(set) var screen: AdScreen
    public let options: AdPresentationOptions
    public weak var delegate: (any LaunchAdDelegate)?
    private var surface: (any AdSurface)?
    private let clock: any LaunchAdClock
    private let scheduler: any AdScheduler
    private let report: @MainActor (ReportKind, LaunchAd) -> Void
    private let finished: @MainActor (EndReason) -> Void
    private var session: AdSession?
    private var media: AdMedia?
    /// What the controls show now (redrawn only when it changes).
    private var shown: SessionState?
    private var frameIndex = 0
    private var wakes: [AdWake] = []
    /// Whether the app went to the background while the landing page was up outside it.
    private var leftForLanding = false
    /// Whether a landing page the app opened (from an earlier ad, a push, a link) is up: the countdown neither starts
    /// nor runs meanwhile (``setLandingPageUp(_:)``).
    public private(set) var landingPageUp = false
    /// Whether the app is in the background (the countdown waits for both this and the landing page).
    private var inBackground = false
    /// Whether the "why this ad" sheet is up (its reasons fetched or still being fetched): the countdown waits for
    /// it too, and the ad takes no tap meanwhile but skip's, which always closes the ad (the cn market's rule).
    public private(set) var whyThisAdUp = false
    /// The edge being asked why: cancelled when the ad ends first.
    private var whyFetch: Task<Void, Never>?
    /// Asks the edge why this device was shown the ad (``LaunchAdClient/whyThisAd(_:)``); nil: the label opens nothing.
    private let why: (@MainActor @Sendable (LaunchAd) async throws -> AdWhy)?
    /// What the sheet up now says of why (nil while the edge is asked), and in which language.
    private var whyAnswer: Result<AdWhy, any Error>?
    private var whyChinese = false
    /// Queues the user's report of the ad (``LaunchAdClient/report(_:reason:launch:)``), its task answering whether
    /// it was queued; nil: the sheet offers none.
    private let reportAd: (@MainActor (LaunchAd, AdReportReason) -> Task<Bool, Never>)?
    /// The reason the user reported this ad for, once queued: the report is queued once, and the sheet says so
    /// however often it is opened again.
    public private(set) var reported: AdReportReason?
    /// The report chosen, waiting to hear whether it was queued: the sheet takes no other step meanwhile.
    private var queuing: Task<Void, Never>?
    /// The last report chosen could not be queued: the sheet says so, and offers the action again.
    public private(set) var reportNotQueued = false
    /// Whether the sheet lists the report's reasons now. Like the sheet itself, it holds the countdown and never skip.
    public private(set) var reportMenuOpen = false

    /// `report` queues impression, click and skip, and `failed` when the media cannot be shown; `finished` hears the
    /// end once the surface is released; `why` answers the label's "why this ad" (with ``AdPresentationOptions/whyThisAdOnLabel``);
    /// `reportAd` queues the user's report chosen in that sheet, its task answering whether it was (without it the
    /// sheet offers no report action; with a false answer the sheet says the report failed and offers it again).
    public init(screen: AdScreen, surface: any AdSurface, clock: any LaunchAdClock, scheduler: any AdScheduler,
                options: AdPresentationOptions = AdPresentationOptions(),
                report: @escaping @MainActor (ReportKind, LaunchAd) -> Void = { _, _ in },
                finished: @escaping @MainActor (EndReason) -> Void = { _ in },
                why: (@MainActor @Sendable (LaunchAd) async throws -> AdWhy)? = nil,
                reportAd: (@MainActor (LaunchAd, AdReportReason) -> Task<Bool, Never>)? = nil) {
        self.why = why
        self.reportAd = reportAd
        self.screen = screen
        self.surface = surface
        self.clock = clock
        self.scheduler = scheduler
        self.options = options
        self.report = report
        self.finished = finished
    }

    /// Puts the window up with the launch screen in it, before anything is decided: the user never sees the app's
    /// root screen flash, nor a blank one.
    public func cover() {
        guard phase == .covering else { return }
        let events = AdSurfaceEvents(
            mediaAppeared: { [weak self] duration in self?.mediaAppeared(duration: duration) },
            mediaFailed: { [weak self] in self?.mediaFailed() },
            tapped: { [weak self] x, y in self?.tap(x: x, y: y) },
            report: { [weak self] step in self?.reportStep(step) })
        surface?.showWindow(frame: screen.bounds, events: events)
        surface?.setLaunchScreenVisible(true)
    }

    /// Shows `ad`: loads its media under the launch screen; the ad appears with the media's first frame.
    public func present(_ ad: LaunchAd, on screen: AdScreen? = nil) {
        guard phase == .covering else { return }
        if let screen { self.screen = screen }
        let layout = AdLayout(screen: self.screen, mediaPixels: (ad.pixelWidth, ad.pixelHeight), display: ad.display,
                              clickArea: ad.clickArea, locale: options.locale ?? Locale.preferredLanguages.first)
        let media = AdMedia.of(ad, alwaysMuted: options.alwaysMuted)
        (self.ad, self.layout, self.media, phase) = (ad, layout, media, .loading)
        surface?.loadMedia(media, frame: layout.frames.media, clip: layout.frames.ad)
        wakes.append(scheduler.after(options.mediaTimeout) { [weak self] in self?.mediaFailed() })
    }

    /// No ad this launch (or its media failed): the window fades away over the launch screen.
    public func dismiss(_ reason: EndReason) {
        guard phase == .covering || phase == .loading else { return }
        end(reason)
    }

    // MARK: What the surface tells

    func mediaAppeared(duration: Double?) {
        guard phase == .loading, var ad, let layout, let media else { return }
        cancelWakes()
        if case .video = media, options.countdownWithinVideo, let duration, duration > 0 {
            ad.countdown = min(ad.countdown, max(1, Int(duration.rounded(.down))))
            self.ad = ad
        }
        var session = AdSession(ad: ad)
        session.show(at: clock.now())
        // Over a landing page (or in the background), the ad is up but its countdown waits, not one second counted.
        if !countdownMayRun { session.enterBackground(at: clock.now()) }
        self.session = session
        phase = .showing
        // The launch screen goes once the media covers it; a half display keeps it for the logo strip below.
        if ad.display == .full { surface?.setLaunchScreenVisible(false) }
        if let logo = layout.frames.logo { surface?.showLogo(frame: logo) }
        let texts = layout.texts(secondsLeft: ad.countdown)
        surface?.showElement(.label, text: texts.label, frame: layout.frames.label)
        if let click = texts.click { surface?.showElement(.click, text: click, frame: layout.frames.click) }
        delegate?.launchAdDidShow(ad)
        report(.impression, ad)
        redrawControls()
        if countdownMayRun { resume() }
    }

    func mediaFailed() {
        guard phase == .loading, let ad else { return }
        report(.failed, ad)
        end(.failed)
    }

    /// A tap at a point of the screen: skip when on skip and skip is offered; the jump when in the click area.
    /// A tap on the countdown before skip is offered does nothing (it is not a click, even on a full-screen click area).
    /// With ``AdPresentationOptions/whyThisAdOnLabel``, a tap on the label (a hit area of at least 44×44 pt around it)
    /// opens "why this ad", ahead of a full-screen click area under it. Skip goes through even with the sheet up.
    func tap(x: Double, y: Double) {
        guard phase == .showing, let layout, var session, let ad else { return }
        let now = clock.now()
        if layout.frames.skip.contains(x: x, y: y) {
            guard session.skip(at: now) else { return }
            self.session = session
            report(.skip, ad)
            end(.skip)
            return
        }
        guard !whyThisAdUp else { return }
        if options.whyThisAdOnLabel, let why, Self.hitArea(layout.frames.label).contains(x: x, y: y) {
            openWhy(ad, why, chinese: layout.chinese)
            return
        }
        guard layout.frames.click.contains(x: x, y: y), ad.jump != nil, let jump = session.click(at: now) else { return }
        self.session = session
        report(.click, ad)
        pause()
        let handled = delegate?.launchAd(ad, open: jump, closed: { [weak self] in self?.landingClosed() }) ?? false
        if handled {
            // The app's landing page is drawn in its own window, under this one: the ad steps aside while it is up.
            phase = .landing(inApp: true)
            surface?.fadeOut(duration: options.fadeDuration)
        } else if let url = URL(string: jump.value), url.scheme != nil {
            phase = .landing(inApp: false)
            leftForLanding = false
            surface?.open(url) { [weak self] opened in
                if !opened { self?.landingClosed() }
            }
        } else {
            end(.click)
        }
    }

    /// The label's hit area: its frame grown to the smallest hit area Apple allows, about its centre.
    static func hitArea(_ frame: AdRect) -> AdRect {
        let width = max(frame.width, AdLayout.minimumHit), height = max(frame.height, AdLayout.minimumHit)
        return AdRect(x: frame.x - (width - frame.width) / 2, y: frame.y - (height - frame.height) / 2, width: width, height: height)
    }

    /// "Why this ad": the countdown pauses as for a click, the sheet goes up at once with what the ad itself
    /// carries and a loading line, and is updated with what the edge said (or that it could not say) when it
    /// answers; the countdown goes on once the sheet is dismissed. Nothing waits on the edge: skip closes the ad
    /// meanwhile, and the fetch is cancelled.
    private func openWhy(_ ad: LaunchAd, _ why: @escaping @MainActor @Sendable (LaunchAd) async throws -> AdWhy, chinese: Bool) {
        holdCountdown()
        // The countdown may have run out at this very moment (its tick not yet fired): the ad ends, no sheet.
        if case .ended(let reason) = session?.state {
            end(reason)
            return
        }
        whyThisAdUp = true
        (whyAnswer, whyChinese) = (nil, chinese)
        surface?.presentWhy(whySheet(ad)) { [weak self] in self?.whyDismissed() }
        // The surface could not present it (and said it was dismissed at once): nothing to fetch for.
        guard whyThisAdUp else { return }
        whyFetch = Task { @MainActor [weak self] in
            let answer: Result<AdWhy, any Error>
            do { answer = .success(try await why(ad)) } catch { answer = .failure(error) }
            guard !Task.isCancelled, let self, self.whyThisAdUp, self.phase == .showing else { return }
            self.whyFetch = nil
            self.whyAnswer = answer
            self.surface?.updateWhy(self.whySheet(ad))
        }
    }

    /// The sheet as it stands: the edge's answer (or the wait for it) and where the report action is.
    private func whySheet(_ ad: LaunchAd) -> WhyThisAdSheet {
        var report: AdReportAction.State?
        if reportAd != nil {
            report = reported.map { .reported($0) } ?? (reportMenuOpen ? .choosing : reportNotQueued ? .notQueued : .offered)
        }
        return WhyThisAdSheet(ad: ad, why: whyAnswer, chinese: whyChinese, report: report)
    }

    /// The user's step in the sheet's report action: the reasons listed or closed, or one chosen, which queues the
    /// `reported` event once (a later choice does nothing). The sheet says reported only once the report is queued;
    /// one that could not be is said to have failed, and the action is offered again. Only while the sheet is up on a
    /// showing ad; the countdown stays held by the sheet and skip goes through as ever.
    func reportStep(_ step: AdReportStep) {
        guard whyThisAdUp, phase == .showing, let reportAd, reported == nil, queuing == nil, let ad else { return }
        switch step {
        case .open:
            guard !reportMenuOpen else { return }
            (reportMenuOpen, reportNotQueued) = (true, false)
        case .cancel:
            guard reportMenuOpen else { return }
            reportMenuOpen = false
        case .choose(let reason):
            let queued = reportAd(ad, reason)
            queuing = Task { @MainActor [weak self] in
                let done = await queued.value
                self?.reportQueued(reason, done)
            }
            return
        }
        surface?.updateWhy(whySheet(ad))
    }

    /// The answer to the report chosen: reported, or failed and offered again; the sheet, if still up, redrawn.
    private func reportQueued(_ reason: AdReportReason, _ queued: Bool) {
        queuing = nil
        reportMenuOpen = false
        if queued { reported = reason } else { reportNotQueued = true }
        guard whyThisAdUp, phase == .showing, let ad else { return }
        surface?.updateWhy(whySheet(ad))
    }

    /// Waits until the report chosen is known queued or not (for tests).
    func reportSettled() async {
        await queuing?.value
    }

    /// The sheet is gone: the fetch, if still going, is no longer awaited, and the countdown goes on (unless the
    /// background or a landing page holds it).
    func whyDismissed() {
        guard whyThisAdUp else { return }
        closeWhy()
        guard phase == .showing else { return }
        resumeCountdown()
    }

    private func closeWhy() {
        whyThisAdUp = false
        reportMenuOpen = false
        whyAnswer = nil
        whyFetch?.cancel()
        whyFetch = nil
    }

    /// The app's own landing page closed: the ad ends, the app's screen under it.
    func landingClosed() {
        guard case .landing = phase else { return }
        end(.click)
    }

    // MARK: Background and foreground

    /// The app went to the background: the countdown, the animation and the video stop where they are.
    public func enterBackground() {
        inBackground = true
        switch phase {
        case .showing:
            holdCountdown()
        case .landing(inApp: false):
            leftForLanding = true
        default:
            break
        }
    }

    /// The app came back: the countdown goes on from where it stopped (unless a landing page is up), or, back from
    /// a landing page outside the app, the ad ends.
    public func enterForeground() {
        inBackground = false
        switch phase {
        case .showing:
            resumeCountdown()
        case .landing(inApp: false) where leftForLanding:
            end(.click)
        default:
            break
        }
    }

    /// A landing page the app opened by itself (not this ad's click: an earlier ad's, a push's, a link's) is up, or
    /// closed. While it is up the countdown never starts: an ad whose media appears meanwhile stays at its full
    /// count, and one counting down stops, until it closes.
    public func setLandingPageUp(_ up: Bool) {
        guard up != landingPageUp else { return }
        landingPageUp = up
        guard phase == .showing else { return }
        if up { holdCountdown() } else { resumeCountdown() }
    }

    private var countdownMayRun: Bool { !inBackground && !landingPageUp && !whyThisAdUp }

    /// The countdown, the animation and the video stop where they are.
    private func holdCountdown() {
        session?.enterBackground(at: clock.now())
        pause()
    }

    /// They go on, once nothing holds them.
    private func resumeCountdown() {
        guard countdownMayRun else { return }
        session?.enterForeground(at: clock.now())
        resume()
    }

    // MARK: Time

    private func resume() {
        cancelWakes()
        scheduleTick()
        guard let media else { return }
        switch media {
        case .animation(_, let delays):
            surface?.showAnimationFrame(frameIndex)
            scheduleFrame(delays)
        case .video:
            surface?.setVideoPlaying(true)
        case .image:
            break
        }
    }

    private func pause() {
        cancelWakes()
        if case .video = media { surface?.setVideoPlaying(false) }
    }

    private func scheduleTick() {
        guard let session else { return }
        let elapsed = session.elapsed(at: clock.now())
        let next = (elapsed + 1e-9).rounded(.down) + 1
        wakes.append(scheduler.after(next - elapsed) { [weak self] in self?.tick() })
    }

    private func tick() {
        guard phase == .showing, var session else { return }
        let state = session.update(at: clock.now())
        self.session = session
        if case .ended(let reason) = state {
            end(reason)
            return
        }
        redrawControls()
        scheduleTick()
    }

    private func scheduleFrame(_ delays: [Double]) {
        wakes.append(scheduler.after(delays[frameIndex % delays.count]) { [weak self] in
            guard let self, self.phase == .showing else { return }
            self.frameIndex = (self.frameIndex + 1) % delays.count
            self.surface?.showAnimationFrame(self.frameIndex)
            self.scheduleFrame(delays)
        })
    }

    /// The countdown, or skip once it is offered, as the session's state says; the delegate hears each change.
    private func redrawControls() {
        guard let session, let layout, let ad, case .showing(let left, let allowed) = session.state, session.state != shown else { return }
        let wasAllowed: Bool? = if case .showing(_, let before) = shown { before } else { nil }
        shown = session.state
        let texts = layout.texts(secondsLeft: left)
        if allowed {
            if wasAllowed == false { surface?.hideElement(.countdown) }
            surface?.showElement(.skip, text: texts.skip, frame: layout.frames.skip)
        } else {
            if wasAllowed == true { surface?.hideElement(.skip) }
            surface?.showElement(.countdown, text: texts.countdown, frame: layout.frames.countdown)
        }
        delegate?.launchAd(ad, didTick: left, skipAllowed: allowed)
    }

    // MARK: The end

    private func end(_ reason: EndReason) {
        switch phase {
        case .ending, .ended: return
        default: break
        }
        pause()
        // A "why this ad" sheet still up goes with the window; its fetch is no longer awaited.
        closeWhy()
        let alreadyFaded = phase == .landing(inApp: true)
        phase = .ending(reason)
        if !alreadyFaded { surface?.fadeOut(duration: options.fadeDuration) }
        wakes.append(scheduler.after(alreadyFaded ? 0 : options.fadeDuration) { [weak self] in self?.release(reason) })
    }

    private func release(_ reason: EndReason) {
        guard case .ending = phase else { return }
        cancelWakes()
        surface?.remove()
        surface = nil
        session = nil
        media = nil
        phase = .ended(reason)
        delegate?.launchAdDidEnd(ad, reason: reason)
        finished(reason)
    }

    private func cancelWakes() {
        for wake in wakes { wake.cancel() }
        wakes = []
    }
}
