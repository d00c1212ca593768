import Foundation

/// The why-this-ad sheet's "Report this ad" action: a button, then the four reasons (and a cancel) once it is
/// opened, then a line saying the ad was reported (or, when the report could not be queued, the button again with a
/// line saying so). The presenter moves it from state to state (``AdReportStep``); a
/// surface only draws the state it is given, and tells the presenter what the user tapped.
public struct AdReportAction: Sendable, Equatable {
    /// Where the action is.
    public enum State: Sendable, Equatable {
        /// The button is offered.
        case offered
        /// The reasons are listed, with a cancel (the menu is open).
        case choosing
        /// The report chosen could not be queued (the app's state folder not writable, say): nothing was reported,
        /// the sheet says so (``AdReportAction/failed``) and offers the button again.
        case notQueued
        /// The user reported the ad for this reason: the sheet says so and offers nothing more.
        case reported(AdReportReason)
    }

    /// One reason the user may give, with its words.
    public struct Choice: Sendable, Equatable {
        public var reason: AdReportReason
        public var title: String
    }

    public var state: State
    /// The button's title.
    public var button: String
    /// The reasons in the order they are listed: each of ``AdReportReason``'s, once.
    public var choices: [Choice]
    /// The title of the button that closes the list without a report.
    public var cancel: String
    /// What the sheet says once the ad is reported.
    public var done: String
    /// What the sheet says above the button when a report could not be queued.
    public var failed: String

    /// The action in `state`, in Chinese or English (as ``AdLayout/chinese``).
    public init(state: State, chinese: Bool) {
        self.state = state
        button = chinese ? "举报此广告" : "Report this ad"
        cancel = chinese ? "取消" : "Cancel"
        done = chinese ? "已举报，感谢反馈" : "Reported. Thank you"
        failed = chinese ? "举报未能提交，请重试" : "The report could not be sent. Try again"
        choices = AdReportReason.allCases.map { Choice(reason: $0, title: Self.title($0, chinese: chinese)) }
    }

    static func title(_ reason: AdReportReason, chinese: Bool) -> String {
        switch reason {
        case .inappropriate: chinese ? "内容不当" : "Inappropriate"
        case .misleading: chinese ? "虚假或误导" : "Misleading"
        case .repetitive: chinese ? "重复出现" : "Shown too often"
        case .other: chinese ? "其他原因" : "Other"
        }
    }
}

/// What the user did with the sheet's report action, as the surface tells it (``AdSurfaceEvents/report``).
public enum AdReportStep: Sendable, Equatable {
    /// Tapped "Report this ad": the reasons are to be listed.
    case open
    /// Closed the list without choosing.
    case cancel
    /// Chose a reason (from the list, or straight from a menu the surface shows on the button).
    case choose(AdReportReason)
}
