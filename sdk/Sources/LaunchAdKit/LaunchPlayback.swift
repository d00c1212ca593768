import Foundation

/// One step of a launch's timeline, as `adsim` prints it and an app's launch screen follows it.
public enum PlaybackEvent: Sendable, Equatable {
    /// Deciding.
    case waiting
    /// The ad appears.
    case show(campaignId: Int64, version: Int, sha256: String, source: LaunchAd.Source)
    /// A second of the countdown (and at the start): what the countdown button shows.
    case tick(secondsLeft: Int, skipAllowed: Bool)
    /// The launch ends; with a click, the jump the app opens.
    case end(EndReason, jump: LaunchAd.Jump?)
    /// An event of the session was queued (and sent, when `sent`).
    case report(ReportKind, eventId: String, sent: Bool)
}

/// What the user does during the ad, in seconds of the session's clock after it appears (a simulated user).
public struct UserScript: Sendable, Equatable {
    /// Taps skip then (ignored while skip is not yet allowed).
    public var skipAt: Double?
    /// Taps the ad then.
    public var clickAt: Double?

    public init(skipAt: Double? = nil, clickAt: Double? = nil) {
        self.skipAt = skipAt
        self.clickAt = clickAt
    }
}

extension LaunchAdClient {
    /// Plays one launch on the SDK's clock: decides, shows the ad with a tick each second, ends it by countdown, or
    /// by the scripted skip or click, queues impression, skip and click, then, within the wait budget at most (a
    /// process that ends with the launch is not held longer), waits for the cache's update and sends the reports,
    /// the launch's funnel with them. Returns how the launch ended. (An app drives ``AdSession`` from its own UI instead.)
    public func play(_ kind: LaunchKind = .cold, openedBy: LaunchOpening = .userTap, user: UserScript = UserScript(),
                     onEvent: @Sendable (PlaybackEvent) -> Void) async -> EndReason {
        onEvent(.waiting)
        let launchId = UUID().uuidString.lowercased()
        let decision = await decide(kind, openedBy: openedBy, launchId: launchId)
        guard case .show(let ad) = decision else {
            let reason: EndReason
            if case .noAd(let why) = decision { reason = why } else { reason = .none }
            onEvent(.end(reason, jump: nil))
            await finish(within: configuration.waitBudget)
            return reason
        }
        var recorded: [(ReportKind, String)] = []
        var session = AdSession(ad: ad)
        session.show(at: clock.now())
        onEvent(.show(campaignId: ad.campaignId, version: ad.version, sha256: ad.sha256, source: ad.source))
        if let id = try? await record(.impression, of: ad, launch: launchId) { recorded.append((.impression, id)) }
        var shown = session.state
        if case .showing(let left, let allowed) = shown { onEvent(.tick(secondsLeft: left, skipAllowed: allowed)) }
        var reason = EndReason.countdown
        var jump: LaunchAd.Jump?
        var skipAt = user.skipAt
        while true {
            let elapsed = session.elapsed(at: clock.now())
            let nextTick = (elapsed + 1e-9).rounded(.down) + 1
            let wake = [nextTick, skipAt, user.clickAt].compactMap { $0 }.filter { $0 > elapsed }.min() ?? nextTick
            try? await clock.sleep(seconds: wake - elapsed)
            let now = clock.now()
            let at = session.elapsed(at: now)
            if let click = user.clickAt, at >= click {
                jump = session.click(at: now)
                if case .ended(let why) = session.state {
                    reason = why
                    if why == .click { if let id = try? await record(.click, of: ad, launch: launchId) { recorded.append((.click, id)) } }
                    break
                }
            }
            if let skip = skipAt, at >= skip {
                skipAt = nil
                if session.skip(at: now) {
                    reason = .skip
                    if let id = try? await record(.skip, of: ad, launch: launchId) { recorded.append((.skip, id)) }
                    break
                }
            }
            switch session.update(at: now) {
            case .showing(let left, let allowed):
                // A tick when what the countdown button shows changes (not at a scripted tap's wake-up).
                if session.state != shown { onEvent(.tick(secondsLeft: left, skipAllowed: allowed)) }
                shown = session.state
            case .ended(let why):
                reason = why
            case .waiting:
                break
            }
            if case .ended = session.state { break }
        }
        onEvent(.end(reason, jump: reason == .click ? jump : nil))
        await finish(within: configuration.waitBudget)
        let pending = Set(await pendingReports())
        for (kind, id) in recorded { onEvent(.report(kind, eventId: id, sent: !pending.contains(id))) }
        return reason
    }
}
