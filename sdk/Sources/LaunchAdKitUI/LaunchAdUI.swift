#if canImport(UIKit)
import LaunchAdKit
import UIKit

/// Launch ads on an iPhone in one call. `LaunchAdUI.start(configuration, delegate: self)` in
/// `application(_:didFinishLaunchingWithOptions:)` (or the scene delegate's `scene(_:willConnectTo:options:)`) covers
/// the screen with the app's launch screen in a window of its own, shows the ad the SDK decides on (or none), follows
/// the background and the foreground, and starts hot launches. The rest is the core's ``LaunchAdController``.
@MainActor
public final class LaunchAdUI {
    /// The app's one instance, once started.
    public private(set) static var shared: LaunchAdUI?
    /// The core: the client, the options, the delegate, the presentation on screen.
    public private(set) var controller: LaunchAdController!
    /// How the ad looks (the app's colours, fonts, logo view, launch screen).
    public var appearance: LaunchAdAppearance
    private weak var surface: AdWindowSurface?
    private var observers: [NSObjectProtocol] = []
    /// Waiting for the first scene (started from `didFinishLaunching` in an app with scenes).
    private var sceneObserver: NSObjectProtocol?

    /// Starts launch ads (once; later calls answer the running instance), the cold launch `openedBy` what opened
    /// the app (a notification, a link or a shortcut in `launchOptions` or the scene's `connectionOptions`; a tap on
    /// the icon otherwise). Nil when the SDK's state folder cannot be opened: the app goes on without ads.
    @discardableResult
    public static func start(_ configuration: LaunchAdConfiguration, delegate: (any LaunchAdDelegate)? = nil,
                             options: AdPresentationOptions = AdPresentationOptions(),
                             appearance: LaunchAdAppearance = LaunchAdAppearance(),
                             openedBy: LaunchOpening = .userTap) -> LaunchAdUI? {
        if let shared { return shared }
        var configuration = configuration
        // The edge picks the creative nearest the screen's shape: the screen in pixels, portrait.
        if configuration.screen == nil {
            let pixels = UIScreen.main.nativeBounds
            configuration.screen = (Int(pixels.width), Int(pixels.height))
        }
        guard let client = try? LaunchAdClient(configuration: configuration) else { return nil }
        let ui = LaunchAdUI(client: client, options: options, appearance: appearance)
        ui.controller.delegate = delegate
        shared = ui
        ui.observeTheApp()
        if ui.activeScene() != nil {
            ui.controller.launch(.cold, openedBy: openedBy)
        } else {
            ui.launchWhenASceneConnects(openedBy: openedBy)
        }
        return ui
    }

    /// How the app was opened, when iOS tells it after the launch began: call it from the scene's
    /// `scene(_:openURLContexts:)` and `windowScene(_:performActionFor:completionHandler:)` and from
    /// `userNotificationCenter(_:didReceive:withCompletionHandler:)` (`.url`, `.shortcut`, `.push`). A return from the
    /// background starts its hot launch as a tap on the icon before these arrive; an opening the configuration shows
    /// no ads for ends that launch before its ad appears (``LaunchAdController/opened(by:)``).
    public func opened(by opening: LaunchOpening) {
        controller.opened(by: opening)
    }

    private init(client: LaunchAdClient, options: AdPresentationOptions, appearance: LaunchAdAppearance) {
        self.appearance = appearance
        controller = LaunchAdController(client: client, options: options,
                                        screen: { [weak self] in self?.screen() },
                                        makeSurface: { [weak self] in self?.makeSurface() })
    }

    /// The scene to show on: the active one, else one coming to the foreground.
    private func activeScene() -> UIWindowScene? {
        let scenes = UIApplication.shared.connectedScenes.compactMap { $0 as? UIWindowScene }
        return scenes.first { $0.activationState == .foregroundActive }
            ?? scenes.first { $0.activationState == .foregroundInactive }
            ?? scenes.first { $0.activationState == .unattached }
    }

    /// The scene's size and scale, and the safe area of the ad's window (once up) or of the app's.
    private func screen() -> AdScreen? {
        guard let scene = activeScene() else { return nil }
        let bounds = scene.coordinateSpace.bounds
        let insets = surface?.safeAreaInsets ?? scene.windows.first?.safeAreaInsets ?? .zero
        return AdScreen(width: bounds.width, height: bounds.height, scale: scene.screen.scale, safeTop: insets.top,
                        safeBottom: insets.bottom, safeLeft: insets.left, safeRight: insets.right)
    }

    private func makeSurface() -> (any AdSurface)? {
        guard let scene = activeScene() else { return nil }
        let surface = AdWindowSurface(scene: scene, appearance: appearance)
        self.surface = surface
        return surface
    }

    /// Called from `didFinishLaunching` in an app with scenes: the first scene is not connected yet.
    private func launchWhenASceneConnects(openedBy: LaunchOpening) {
        sceneObserver = NotificationCenter.default.addObserver(forName: UIScene.willConnectNotification, object: nil, queue: .main) { [weak self] _ in
            Task { @MainActor in
                guard let self, let observer = self.sceneObserver else { return }
                NotificationCenter.default.removeObserver(observer)
                self.sceneObserver = nil
                self.controller.launch(.cold, openedBy: openedBy)
            }
        }
    }

    private func observeTheApp() {
        let center = NotificationCenter.default
        observers.append(center.addObserver(forName: UIApplication.didEnterBackgroundNotification, object: nil, queue: .main) { [weak self] _ in
            Task { @MainActor in self?.controller.didEnterBackground() }
        })
        observers.append(center.addObserver(forName: UIApplication.willEnterForegroundNotification, object: nil, queue: .main) { [weak self] _ in
            Task { @MainActor in self?.controller.willEnterForeground() }
        })
    }
}
#endif
