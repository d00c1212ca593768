import Foundation

/// How a launch ended.
public enum EndReason: String, Sendable, Codable, CaseIterable {
    /// The countdown ran out.
    case countdown
    /// The user skipped (only possible once `skipAfter` seconds were shown).
    case skip
    /// The user tapped the ad: the app opens its jump.
    case click
    /// No ad within the launch's budget (`fresh`'s wait budget, or `revalidate`'s with nothing cached to fall back
    /// on): the launch went on without an ad.
    case timeout
    /// No ad to show.
    case none
    /// The media could not be shown (unreadable, or no first frame in time): the launch went on without the ad.
    case failed
    /// The app held ads back for a while (``LaunchAdClient/suppress(for:)``): nothing asked, nothing reported.
    case suppressed
    /// The app was opened in a way its configuration shows no ad for (``LaunchAdConfiguration/showOn``): nothing
    /// asked, nothing reported.
    case notForOpening
}

/// What the launch screen shows: what a UIKit or SwiftUI view binds to.
public enum SessionState: Sendable, Equatable {
    /// Deciding: the app keeps its launch screen (never its root screen, never a blank one).
    case waiting
    /// The ad is up: the countdown button reads `secondsLeft`, and offers skip when `skipAllowed`.
    case showing(secondsLeft: Int, skipAllowed: Bool)
    /// The ad is gone (or never came); the app shows its root screen.
    case ended(EndReason)
}

/// One launch ad's session, a state machine on the times it is given (from the SDK's clock): `waiting`, then
/// `showing` while the countdown runs (only time in the foreground counts, so a countdown interrupted by the
/// background resumes where it stopped rather than restarting), then `ended`.
public struct AdSession: Sendable {
    public let ad: LaunchAd
    public private(set) var state: SessionState = .waiting
    /// Seconds shown in earlier foreground stretches.
    private var shownBefore: Double = 0
    /// When the present foreground stretch began (nil while waiting, in the background or ended).
    private var visibleSince: Date?

    public init(ad: LaunchAd) { self.ad = ad }

    /// The ad appears.
    public mutating func show(at now: Date) {
        guard state == .waiting else { return }
        visibleSince = now
        state = showing(elapsed: 0)
    }

    /// Seconds shown so far, at `now`, to the microsecond: the stretches' sum otherwise lands a hair below the
    /// second a timer woke for (1.9999999999999971 after a pause at 1.2), and that second's tick shows nothing new,
    /// the countdown then ending a second late.
    public func elapsed(at now: Date) -> Double {
        let seconds = shownBefore + (visibleSince.map { max(0, now.timeIntervalSince($0)) } ?? 0)
        return (seconds * 1e6).rounded() / 1e6
    }

    /// The state at `now`: the countdown ends the session once it has run out.
    @discardableResult
    public mutating func update(at now: Date) -> SessionState {
        guard case .showing = state else { return state }
        let elapsed = elapsed(at: now)
        if elapsed >= Double(ad.countdown) {
            end(.countdown, at: now)
        } else if visibleSince != nil {
            state = showing(elapsed: elapsed)
        }
        return state
    }

    /// The user taps skip: it ends the session only once skip is allowed.
    @discardableResult
    public mutating func skip(at now: Date) -> Bool {
        guard case .showing(_, let allowed) = update(at: now), allowed else { return false }
        end(.skip, at: now)
        return true
    }

    /// The user taps the ad: the session ends and the jump (if the campaign has one) goes to the app.
    public mutating func click(at now: Date) -> LaunchAd.Jump? {
        guard case .showing = update(at: now) else { return nil }
        end(.click, at: now)
        return ad.jump
    }

    /// The app went to the background mid-ad: the countdown stops.
    public mutating func enterBackground(at now: Date) {
        guard case .showing = update(at: now), let since = visibleSince else { return }
        shownBefore += max(0, now.timeIntervalSince(since))
        visibleSince = nil
    }

    /// The app came back: the countdown goes on from where it stopped.
    public mutating func enterForeground(at now: Date) {
        guard case .showing = state, visibleSince == nil else { return }
        visibleSince = now
        state = showing(elapsed: shownBefore)
    }

    private mutating func end(_ reason: EndReason, at now: Date) {
        shownBefore = elapsed(at: now)
        visibleSince = nil
        state = .ended(reason)
    }

    private func showing(elapsed: Double) -> SessionState {
        let left = max(0, Int((Double(ad.countdown) - elapsed).rounded(.up)))
        return .showing(secondsLeft: left, skipAllowed: ad.skippable && elapsed >= Double(ad.skipAfter))
    }
}
