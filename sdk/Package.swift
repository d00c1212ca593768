// swift-tools-version: 6.0
// LaunchAdKit, the launch-ad SDK an app adds: a package of its own with no dependency, so that adding it resolves
// nothing of the servers. The root package depends on it by path (adsim and the integration tests).
//
//   LaunchAdKit (Foundation only; builds on Linux): the decision, cache, reports, session, AdLayout (the frames of
//   the screen) and AdPresenter (what is shown when, driving a surface)
//   LaunchAdKitUI (UIKit; Apple toolchains only): the surface as a window of its own, and the one call at launch
import PackageDescription

let package = Package(
    name: "LaunchAdKit",
    platforms: [.iOS(.v15), .macOS(.v12)],
    products: [
        .library(name: "LaunchAdKit", targets: ["LaunchAdKit"]),
        .library(name: "LaunchAdKitUI", targets: ["LaunchAdKitUI"]),
        // A recording surface and virtual-time timers: an app's tests (and these) drive the presentation with them.
        .library(name: "LaunchAdKitTesting", targets: ["LaunchAdKitTesting"]),
    ],
    targets: [
        .target(name: "LaunchAdKit", resources: [.copy("PrivacyInfo.xcprivacy")]),
        // Every file under `#if canImport(UIKit)`: on Linux and macOS it builds as an empty module.
        .target(name: "LaunchAdKitUI", dependencies: ["LaunchAdKit"]),
        .target(name: "LaunchAdKitTesting", dependencies: ["LaunchAdKit"]),
        // The pure core (layout, presentation through a recording surface, GIF timing): `swift test` in sdk/.
        .testTarget(name: "LaunchAdKitCoreTests", dependencies: ["LaunchAdKit", "LaunchAdKitTesting"]),
    ]
)
