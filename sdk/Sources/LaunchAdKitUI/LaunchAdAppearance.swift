#if canImport(UIKit)
import UIKit

/// What the app may change of how the ad looks. Where things go is the model's (``AdLayout``): the app styles them.
@MainActor
public struct LaunchAdAppearance {
    /// The skip and countdown control: its fill, its text, its font, and its corners (a pill by default).
    public var controlBackground = UIColor.black.withAlphaComponent(0.45)
    public var controlText = UIColor.white
    public var controlFont = UIFont.systemFont(ofSize: 14, weight: .medium)
    /// The ad label.
    public var labelBackground = UIColor.black.withAlphaComponent(0.35)
    public var labelText = UIColor.white
    public var labelFont = UIFont.systemFont(ofSize: 11, weight: .regular)
    /// The click button.
    public var buttonBackground = UIColor.black.withAlphaComponent(0.55)
    public var buttonText = UIColor.white
    public var buttonFont = UIFont.systemFont(ofSize: 16, weight: .semibold)
    /// The app's logo, drawn in a `half` display's strip below the ad (nil: the launch screen shows there).
    public var logoView: UIView?
    /// The launch screen under the ad; nil: the storyboard named by `UILaunchStoryboardName` in Info.plist.
    public var launchScreen: (() -> UIView?)?

    public init() {}
}
#endif
