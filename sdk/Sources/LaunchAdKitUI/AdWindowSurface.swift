#if canImport(UIKit)
import AVFoundation
import LaunchAdKit
import UIKit

/// The ``AdSurface`` on an iPhone: a window of the ad's own on the scene, above the app's, never made key. Each
/// method maps one call of the presenter to UIKit; the frames, times and meaning of taps are the presenter's.
@MainActor
final class AdWindowSurface: AdSurface {
    private let scene: UIWindowScene
    private let appearance: LaunchAdAppearance
    private var window: UIWindow?
    private var controller: AdViewController?
    /// The "why this ad" sheet presented last (updated when the edge's answer comes).
    private weak var why: WhyThisAdController?
    private var events: AdSurfaceEvents?
    private var launchScreen: UIView?
    private var clip: UIView?
    private var imageView: UIImageView?
    /// The GIF being shown: each frame is decoded when its turn comes, not all at once (a full-screen GIF's frames
    /// decoded together take hundreds of MB).
    private var animation: AnimatedImage?
    private var player: AVPlayer?
    private var playerLayer: AVPlayerLayer?
    private var observations: [NSKeyValueObservation] = []
    private var elements: [AdElement: UILabel] = [:]

    init(scene: UIWindowScene, appearance: LaunchAdAppearance) {
        self.scene = scene
        self.appearance = appearance
    }

    /// The window's safe-area insets once it is up (what ``AdScreen`` takes), else the scene's first window's.
    var safeAreaInsets: UIEdgeInsets { (window ?? scene.windows.first)?.safeAreaInsets ?? .zero }

    func showWindow(frame: AdRect, events: AdSurfaceEvents) {
        self.events = events
        let window = UIWindow(windowScene: scene)
        window.frame = frame.cgRect
        // Above the app's windows and its status bar (S3, XHLaunchAd); shown without becoming key (it only needs touches).
        window.windowLevel = .statusBar + 1
        let controller = AdViewController()
        controller.tapped = { [weak self] point in self?.events?.tapped(point.x, point.y) }
        window.rootViewController = controller
        window.isHidden = false
        self.window = window
        self.controller = controller
    }

    func setLaunchScreenVisible(_ visible: Bool) {
        guard let root = controller?.view else { return }
        if visible, launchScreen == nil {
            // An app with no launch storyboard (the UILaunchScreen dictionary instead) still gets an opaque cover, so its
            // own screen never shows through before the ad.
            let view = appearance.launchScreen?() ?? Self.storyboardLaunchScreen() ?? Self.plainLaunchScreen()
            view.frame = root.bounds
            view.autoresizingMask = [.flexibleWidth, .flexibleHeight]
            root.insertSubview(view, at: 0)
            launchScreen = view
        } else if !visible {
            launchScreen?.removeFromSuperview()
            launchScreen = nil
        }
    }

    /// An opaque view in the system's background colour.
    private static func plainLaunchScreen() -> UIView {
        let view = UIView()
        view.backgroundColor = .systemBackground
        return view
    }

    /// The initial view of the storyboard Info.plist names in `UILaunchStoryboardName`.
    private static func storyboardLaunchScreen() -> UIView? {
        guard let name = Bundle.main.object(forInfoDictionaryKey: "UILaunchStoryboardName") as? String else { return nil }
        return UIStoryboard(name: name, bundle: .main).instantiateInitialViewController()?.view
    }

    func loadMedia(_ media: AdMedia, frame: AdRect, clip clipFrame: AdRect) {
        guard let root = controller?.view else { return }
        let clip = UIView(frame: clipFrame.cgRect)
        clip.clipsToBounds = true
        clip.isUserInteractionEnabled = false
        if let launchScreen { root.insertSubview(clip, aboveSubview: launchScreen) } else { root.insertSubview(clip, at: 0) }
        self.clip = clip
        let local = CGRect(x: frame.x - clipFrame.x, y: frame.y - clipFrame.y, width: frame.width, height: frame.height)
        switch media {
        case .image(let url):
            guard let image = UIImage(contentsOfFile: url.path) else {
                events?.mediaFailed()
                return
            }
            addImageView(image, frame: local, in: clip)
            events?.mediaAppeared(nil)
        case .animation(let url, _):
            guard let animation = AnimatedImage(url: url), let first = animation.frame(0) else {
                events?.mediaFailed()
                return
            }
            self.animation = animation
            addImageView(first, frame: local, in: clip)
            events?.mediaAppeared(nil)
        case .video(let url, let muted):
            // The cache names a creative by its sha256 alone, and AVFoundation tells a local file's format by its
            // extension (naming the type otherwise needs iOS 17): it plays a link to the file named `.mp4`, the one
            // video type campaignd takes.
            let player = AVPlayer(url: Self.playable(url))
            player.isMuted = muted
            let layer = AVPlayerLayer(player: player)
            layer.videoGravity = .resizeAspectFill
            layer.frame = local
            clip.layer.addSublayer(layer)
            (self.player, playerLayer) = (player, layer)
            // KVO may call from any thread: each answer goes back to the main actor.
            observations.append(layer.observe(\.isReadyForDisplay, options: [.new]) { @Sendable [weak self] layer, _ in
                guard layer.isReadyForDisplay else { return }
                Task { @MainActor in
                    let seconds = self?.player?.currentItem?.duration.seconds
                    self?.events?.mediaAppeared(seconds.flatMap { $0.isFinite ? $0 : nil })
                }
            })
            if let item = player.currentItem {
                observations.append(item.observe(\.status, options: [.new]) { @Sendable [weak self] item, _ in
                    guard item.status == .failed else { return }
                    Task { @MainActor in self?.events?.mediaFailed() }
                })
            }
        }
    }

    /// A hard link to `url` named with `.mp4` beside the other temporary files (the same file when the link cannot
    /// be made: AVFoundation may still read it).
    private static func playable(_ url: URL) -> URL {
        let link = FileManager.default.temporaryDirectory.appendingPathComponent(url.lastPathComponent + ".mp4")
        if !FileManager.default.fileExists(atPath: link.path) {
            do { try FileManager.default.linkItem(at: url, to: link) } catch { return url }
        }
        return link
    }

    private func addImageView(_ image: UIImage, frame: CGRect, in clip: UIView) {
        let view = UIImageView(frame: frame)
        view.contentMode = .scaleToFill  // the frame already has the image's shape (aspect fill is the model's)
        view.image = image
        clip.addSubview(view)
        imageView = view
    }

    func showAnimationFrame(_ index: Int) {
        guard let frame = animation?.frame(index) else { return }
        imageView?.image = frame
    }

    func setVideoPlaying(_ playing: Bool) {
        if playing { player?.play() } else { player?.pause() }
    }

    func showElement(_ element: AdElement, text: String, frame: AdRect) {
        let label = elements[element] ?? makeLabel(for: element)
        label.text = text
        label.frame = frame.cgRect
        // Skip, the countdown and the button are pills; the label a tag.
        label.layer.cornerRadius = element == .label ? 4 : frame.height / 2
    }

    private func makeLabel(for element: AdElement) -> UILabel {
        let label = UILabel()
        label.textAlignment = .center
        label.isUserInteractionEnabled = false  // taps go to the window's root, which hands the point to the presenter
        label.clipsToBounds = true
        switch element {
        case .skip, .countdown:
            (label.backgroundColor, label.textColor, label.font) = (appearance.controlBackground, appearance.controlText, appearance.controlFont)
        case .label:
            (label.backgroundColor, label.textColor, label.font) = (appearance.labelBackground, appearance.labelText, appearance.labelFont)
        case .click:
            (label.backgroundColor, label.textColor, label.font) = (appearance.buttonBackground, appearance.buttonText, appearance.buttonFont)
        }
        controller?.view.addSubview(label)
        elements[element] = label
        return label
    }

    func hideElement(_ element: AdElement) {
        elements.removeValue(forKey: element)?.removeFromSuperview()
    }

    func showLogo(frame: AdRect) {
        guard let logo = appearance.logoView, let root = controller?.view else { return }
        logo.frame = frame.cgRect
        root.addSubview(logo)
    }

    func fadeOut(duration: Double) {
        // Alpha, not isHidden: hiding a window at once flickers (S2).
        UIView.animate(withDuration: duration) { self.window?.alpha = 0 }
    }

    func open(_ url: URL, completion: @escaping @MainActor @Sendable (Bool) -> Void) {
        Task { @MainActor in completion(await UIApplication.shared.open(url, options: [:])) }
    }

    func presentWhy(_ sheet: WhyThisAdSheet, dismissed: @escaping @MainActor @Sendable () -> Void) {
        // UIKit presents nothing (it only logs "Attempt to present …") from a controller already presenting, or
        // whose view is not in a window, and calls nothing back: the sheet is then as good as dismissed at once, so
        // the countdown is never left held by a sheet no one sees.
        guard let controller, controller.presentedViewController == nil, !controller.isBeingDismissed,
              controller.viewIfLoaded?.window != nil else {
            dismissed()
            return
        }
        let why = WhyThisAdController(sheet: sheet, dismissed: dismissed, report: { [weak self] step in self?.events?.report(step) })
        self.why = why
        controller.present(why, animated: true)
    }

    func updateWhy(_ sheet: WhyThisAdSheet) {
        why?.show(sheet)
    }

    func remove() {
        // A sheet still up goes with the window (its dismissal is no longer heard).
        controller?.presentedViewController?.dismiss(animated: false)
        for observation in observations { observation.invalidate() }
        observations = []
        player?.pause()
        player?.replaceCurrentItem(with: nil)
        playerLayer?.removeFromSuperlayer()
        (player, playerLayer, imageView, animation) = (nil, nil, nil, nil)
        for label in elements.values { label.removeFromSuperview() }
        elements = [:]
        appearance.logoView?.removeFromSuperview()
        clip?.removeFromSuperview()
        launchScreen?.removeFromSuperview()
        (clip, launchScreen) = (nil, nil)
        window?.isHidden = true
        window?.rootViewController = nil
        window?.windowScene = nil  // the scene holds its windows: let this one go
        (window, controller, events) = (nil, nil, nil)
    }
}

extension AdRect {
    var cgRect: CGRect { CGRect(x: x, y: y, width: width, height: height) }
}
#endif
