import ArgumentParser
import Foundation
import LaunchAdKit

/// `adsim ... layout --screen 390x844@3 --safe-top 47 --safe-bottom 34`: the frames and texts LaunchAdKitUI would draw
/// for the ad the edge answers now, as JSON (the same `AdLayout` the console's preview draws from).
struct LayoutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "layout", abstract: "Print the frames and texts of the ad the edge answers, for a screen.",
        discussion: "--screen is in points with the scale (390x844@3); the edge is asked for that screen in pixels.")

    @OptionGroup var options: SimulatorOptions
    @Option(name: .customLong("safe-top"), help: "The safe area's top inset in points (the notch or status bar).")
    var safeTop: Double = 0
    @Option(name: .customLong("safe-bottom"), help: "The safe area's bottom inset in points (the home indicator).")
    var safeBottom: Double = 0

    /// What the command prints.
    struct Model: Encodable {
        var campaignId: Int64?
        var reason: String?
        var display: String?
        var clickArea: String?
        var screen: String
        var frames: [String: AdRect]?
        var texts: AdLayout.Texts?
    }

    func validate() throws {
        guard let screen = options.screen, screen.contains("@") else {
            throw ValidationError("layout needs --screen in points with the scale, WxH@S (390x844@3)")
        }
        guard AdScreen(parsing: screen, safeTop: safeTop, safeBottom: safeBottom) != nil else {
            throw ValidationError("--screen must be WxH@S (each side 100 to 4096 pt, scale 1 to 4) and --safe-top, --safe-bottom 0 to a quarter of the height")
        }
    }

    func run() async throws {
        guard let text = options.screen, let screen = AdScreen(parsing: text, safeTop: safeTop, safeBottom: safeBottom) else { return }
        var configuration = options.configuration()
        // The ad the edge answers now, its creative fetched within the wait budget: the cache's choice is not asked.
        configuration.policy = .fresh
        let deadline = LaunchDeadline(configuration)
        let client = try options.client(configuration)
        let decision = await client.launch(.cold)
        await deadline.drain { await client.settle() }
        var model = Model(screen: "\(text) safeTop=\(safeTop) safeBottom=\(safeBottom)")
        switch decision {
        case .show(let ad):
            let layout = AdLayout(screen: screen, mediaPixels: (ad.pixelWidth, ad.pixelHeight), display: ad.display,
                                  clickArea: ad.clickArea, locale: options.locale)
            model.campaignId = ad.campaignId
            model.display = ad.display.rawValue
            model.clickArea = ad.clickArea.rawValue
            model.frames = Dictionary(uniqueKeysWithValues: layout.namedFrames.map { ($0.name, $0.frame) })
            model.texts = layout.texts(secondsLeft: ad.countdown)
        case .noAd(let reason):
            model.reason = reason.rawValue
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        print(String(decoding: try encoder.encode(model), as: UTF8.self))
    }
}
