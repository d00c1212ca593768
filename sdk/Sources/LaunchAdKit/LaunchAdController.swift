import Foundation

/// The app's launch ads from start to exit: at a launch it covers the screen, asks the ``LaunchAdClient``, and shows
/// the ad through an ``AdPresenter`` on a new surface (or takes the cover away); it follows the background and the
/// foreground, pausing a showing ad, and starts a hot launch measured by the time away. Reports go to the client's
/// queue and are sent at once. LaunchAdKitUI's `LaunchAdUI` is this with a UIKit surface.
@MainActor
public final class LaunchAdController {
    public let client: LaunchAdClient
    public weak var delegate: (any LaunchAdDelegate)?
    public var options: AdPresentationOptions
    /// Whether a return from the background may show an ad (the edge's `minBackgroundSeconds` says after how long).
    public var hotStarts = true
    /// The launch under way, or the last one.
    public private(set) var lastLaunch: LaunchKind?
    /// The presentation on screen, if any.
    public private(set) var presenter: AdPresenter?
    private let scheduler: any AdScheduler
    private let screen: @MainActor () -> AdScreen?
    private let makeSurface: @MainActor () -> (any AdSurface)?
    private var backgroundSince: Date?
    /// Whether a landing page the app opened by itself is up (``landingPageOpened()``).
    public private(set) var landingPageUp = false
    /// The reports under way: each queued, then sent.
    private var reporting: [Task<ReportFlush?, Never>] = []

    /// `screen` and `makeSurface` are asked at each launch: nil (no active scene yet, say) and the launch goes on
    /// without an ad.
    public init(client: LaunchAdClient, scheduler: (any AdScheduler)? = nil, options: AdPresentationOptions = AdPresentationOptions(),
                screen: @escaping @MainActor () -> AdScreen?, makeSurface: @escaping @MainActor () -> (any AdSurface)?) {
        self.client = client
        self.scheduler = scheduler ?? ClockScheduler(clock: client.clock)
        self.options = options
        self.screen = screen
        self.makeSurface = makeSurface
    }

    /// A launch opened `openedBy`: the cover goes up now, the ad (or nothing) once the client decides.
    /// A launch the app's rules exclude (``LaunchAdConfiguration/showOn``, ``LaunchAdClient/suppress(for:)``) puts
    /// up no cover at all: the delegate hears at once that no ad came, and the app goes where it was opened for.
    public func launch(_ kind: LaunchKind = .cold, openedBy: LaunchOpening = .userTap) {
        guard presenter == nil else { return }
        if let reason = client.excluded(openedBy: openedBy) {
            lastLaunch = kind
            delegate?.launchAdDidEnd(nil, reason: reason)
            return
        }
        guard let screen = screen(), let surface = makeSurface() else { return }
        lastLaunch = kind
        let client = client
        // One id per launch: its impression, click and skip share it, and the edge counts each once.
        let launchId = UUID().uuidString.lowercased()
        let presenter = AdPresenter(screen: screen, surface: surface, clock: client.clock, scheduler: scheduler, options: options,
                                    report: { [weak self] kind, ad in self?.send((kind, ad), launch: launchId) },
                                    finished: { [weak self] _ in self?.presenter = nil },
                                    why: { ad in try await client.whyThisAd(ad) },
                                    reportAd: { [weak self] ad, reason in
                                        self?.sendReport(of: ad, reason, launch: launchId) ?? Task { false }
                                    })
        presenter.delegate = delegate
        presenter.setLandingPageUp(landingPageUp)
        self.presenter = presenter
        presenter.cover()
        Task { @MainActor [weak self, weak presenter] in
            let decision = await client.decide(kind, openedBy: openedBy, launchId: launchId)
            self?.send(nil, launch: launchId)
            guard let presenter else { return }
            switch decision {
            case .show(let ad): presenter.present(ad, on: self?.screen())
            case .noAd(let reason): presenter.dismiss(reason)
            }
        }
    }

    /// The app went to the background.
    public func didEnterBackground() {
        backgroundSince = client.clock.now()
        presenter?.enterBackground()
    }

    /// The app came back (`openedBy` a tap on its icon, a notification, a link, a shortcut): a showing ad goes on
    /// (or ends, back from its landing page); with none, a hot launch.
    public func willEnterForeground(openedBy: LaunchOpening = .userTap) {
        let away = backgroundSince.map { client.clock.now().timeIntervalSince($0) }
        backgroundSince = nil
        if let presenter {
            presenter.enterForeground()
        } else if hotStarts, let away {
            launch(.hot(backgroundSeconds: max(0, Int(away.rounded(.down)))), openedBy: openedBy)
        }
    }

    /// How the app was opened, learnt after its launch began: iOS hands the app a link, a notification's response or
    /// a shortcut after it comes to the foreground, when a hot launch (started as `userTap`, the default) already has
    /// its cover up. When the configuration shows no ads for `opening` (``LaunchAdConfiguration/showOn``), a launch
    /// still deciding, or an ad whose media has not appeared yet, ends at once (`notForOpening`) and the app goes
    /// where it was opened for; an ad already on the screen plays on.
    public func opened(by opening: LaunchOpening) {
        guard let presenter, !client.configuration.showOn.contains(opening) else { return }
        presenter.dismiss(.notForOpening)
    }

    /// The app opened a landing page by itself (an earlier ad's jump it handles, a push's, a link's): until
    /// ``landingPageClosed()`` no ad's countdown starts or runs; an ad whose media appears meanwhile waits at its
    /// full count, so the user reading the page loses none of its seconds.
    public func landingPageOpened() {
        landingPageUp = true
        presenter?.setLandingPageUp(true)
    }

    /// The app's landing page closed: a waiting countdown starts.
    public func landingPageClosed() {
        landingPageUp = false
        presenter?.setLandingPageUp(false)
    }

    /// Queues a session's event (on disk, so it survives a kill) and sends what the queue holds: the launch's
    /// funnel (queued by the client as it decided) with it, or alone when `event` is nil.
    private func send(_ event: (ReportKind, LaunchAd)?, launch: String) {
        _ = queueAndFlush { client in
            if let (kind, ad) = event { try await client.record(kind, of: ad, launch: launch) }
        }
    }

    /// Queues the user's report of `ad` from the "why this ad" sheet as `launch`'s (`<launch>-reported`: the edge
    /// counts it once), then sends what the queue holds; the task answers whether it was queued (the sheet says
    /// reported only then).
    private func sendReport(of ad: LaunchAd, _ reason: AdReportReason, launch: String) -> Task<Bool, Never> {
        queueAndFlush { client in try await client.report(ad, reason: reason, launch: launch) }
    }

    /// Runs `queue` on the client, then sends what the queue holds; nothing is sent when the event could not be
    /// queued (its failure is the answer, nil). The task returned answers whether it was queued.
    private func queueAndFlush(_ queue: @escaping @Sendable (LaunchAdClient) async throws -> Void) -> Task<Bool, Never> {
        let client = client
        let queued = Task {
            do { try await queue(client) } catch { return false }
            return true
        }
        reporting.append(Task {
            guard await queued.value else { return nil }
            return await client.flushReports()
        })
        return queued
    }

    /// Waits for the reports queued so far to be sent (or to fail, and wait in the queue for the next try); what
    /// each sending did. For the app's shutdown and for tests.
    public func settleReports() async -> [ReportFlush?] {
        let tasks = reporting
        reporting = []
        var flushes: [ReportFlush?] = []
        for task in tasks { flushes.append(await task.value) }
        return flushes
    }
}
