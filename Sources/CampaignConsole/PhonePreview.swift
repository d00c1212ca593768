import Foundation
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdKit

/// The phone preview of a campaign: for each screen shape its creatives come in, what an edge would answer a phone
/// of that shape now (`launch.explain`: the edge's own decision engine on campaignd's state), and each variant on
/// phones as LaunchAdKitUI draws it, from the same ``AdLayout``: one screen when the page is asked for one
/// (`?screen=390x844@3&safeTop=47&safeBottom=34`), a few common iPhones side by side otherwise. Each frame of the
/// model is an SVG element with `data-frame="NAME"` at the model's place, in points (the SVG's viewBox is the screen
/// in points, scaled to the page). The countdown runs, skip appears from `skipAfter`, a tap on the click area shows
/// the jump (the script in ``ConsoleAssets`` plays it); a GIF animates, a video shows its first frame.
enum PhonePreview {
    /// The height the phones are drawn at, in CSS pixels: several side by side, or the one screen asked for.
    static let phoneHeight = 360.0
    static let singleHeight = 560.0

    /// A screen shape and the variants of that shape, with the verdict for it, and the phones to draw them on.
    struct Shape {
        var width: Int
        var height: Int
        var variants: [CreativeFacts]
        /// The explanation for a phone of this shape, or why none could be had.
        var verdict: Result<LaunchExplainResult, any Error>
        /// The screens each variant is drawn on.
        var screens: Screens
    }

    /// Named screens to draw on.
    typealias Screens = [(name: String, screen: AdScreen)]
    /// What the page draws when its query names no screen.
    static let defaultScreens: Screens = AdLayout.commonScreens

    /// The screens the page's query asks for: the one of `screen=WxH@S`, `safeTop`, `safeBottom` (points), or a few
    /// common iPhones when it names none; or a message naming the field that is wrong.
    static func screens(query: (String) -> String?) -> Result<Screens, PreviewQueryError> {
        guard let text = query("screen") else {
            if query("safeTop") != nil || query("safeBottom") != nil { return .failure(PreviewQueryError(message: "safeTop and safeBottom go with screen=WxH@S.")) }
            return .success(defaultScreens)
        }
        var insets: [Double] = []
        for field in ["safeTop", "safeBottom"] {
            guard let value = query(field) else { insets.append(0); continue }
            guard let number = Double(value), number.isFinite, number >= 0 else {
                return .failure(PreviewQueryError(message: "\(field) is a number of points, 0 or more."))
            }
            insets.append(number)
        }
        guard text.contains("@"), let screen = AdScreen(parsing: text, safeTop: insets[0], safeBottom: insets[1]) else {
            return .failure(PreviewQueryError(message: "screen is WxH@S in points (390x844@3: each side 100 to 4096, the scale 1 to 4), "
                                              + "and safeTop, safeBottom each at most a quarter of the height."))
        }
        return .success([(text, screen)])
    }

    /// Why the preview's query was refused.
    struct PreviewQueryError: Error {
        var message: String
    }

    /// The launch query of a phone of `shape` that the campaign targets: its first platform, region and locale, a
    /// version in its range, a test device when its audience is test devices.
    static func query(for campaign: Campaign, width: Int, height: Int) -> LaunchQueryParams {
        let versions = campaign.targeting.appVersions
        let version = versions?.min ?? (versions?.max != nil ? "0.0.1" : "99.0")
        return LaunchQueryParams(app: campaign.app, platform: campaign.targeting.platforms?.first ?? "ios", appVersion: version,
                                 region: campaign.targeting.regions?.first, locale: campaign.targeting.locales?.first,
                                 deviceId: campaign.testDevices?.first ?? "console-preview",
                                 screen: LaunchQueryParams.Screen(width: width, height: height))
    }

    /// The variants grouped by aspect ratio (within 2 %), in the order the campaign lists them.
    static func shapes(_ variants: [CreativeFacts]) -> [(width: Int, height: Int, variants: [CreativeFacts])] {
        var shapes: [(width: Int, height: Int, variants: [CreativeFacts])] = []
        for variant in variants where variant.width > 0 && variant.height > 0 {
            let ratio = Double(variant.width) / Double(variant.height)
            if let index = shapes.firstIndex(where: { abs(Double($0.width) / Double($0.height) / ratio - 1) < 0.02 }) {
                shapes[index].variants.append(variant)
            } else {
                shapes.append((variant.width, variant.height, [variant]))
            }
        }
        return shapes
    }

    static func section(_ campaign: Campaign, shapes: [Shape]) -> String {
        guard !shapes.isEmpty else { return "<p>No creative of this campaign is stored.</p>" }
        var html = "<div class=\"previews\">"
        var drawn = 0
        for shape in shapes {
            let verdict: String
            switch shape.verdict {
            case .success(let explained):
                let mine = explained.campaigns.first { $0.id == campaign.id }
                if explained.id == campaign.id, let sha256 = explained.sha256 {
                    verdict = "An edge answers this campaign now, with variant \(sha256.prefix(12))."
                } else if let mine {
                    verdict = "An edge does not answer this campaign now: \(mine.outcome.rawValue)\(mine.field.map { " (\($0.rawValue))" } ?? "")"
                        + (explained.id.map { "; it answers campaign \($0)." } ?? ".")
                } else {
                    verdict = "An edge does not answer this campaign now."
                }
            case .failure(let error):
                verdict = "No answer to compare with: \(error)"
            }
            for variant in shape.variants {
                html += figure(campaign, variant: variant, screens: shape.screens, verdict: verdict, first: drawn)
                drawn += shape.screens.count
            }
        }
        return html + "</div>"
    }

    /// One variant on each screen, with what a tap does and the edge's verdict.
    static func figure(_ campaign: Campaign, variant: CreativeFacts, screens: Screens, verdict: String,
                       first: Int) -> String {
        let jump: String
        switch campaign.jump.type {
        case .none: jump = "no jump"
        case .url: jump = "opens \(campaign.jump.value)"
        case .deeplink: jump = "opens deep link \(campaign.jump.value)"
        }
        let skip = campaign.skippable ? "skip after \(campaign.skipAfter ?? 0) s" : "not skippable"
        let height = screens.count == 1 ? singleHeight : phoneHeight
        var phones = ""
        for (index, named) in screens.enumerated() {
            phones += "<div class=\"phone-box\"><div class=\"bezel\">" + phone(campaign, variant: variant, screen: named.screen, height: height,
                                                                         id: "phone-\(first + index)")
            phones += "</div><span class=\"screen-name\">\(HTML.escape(named.name)) · \(number(named.screen.width))×\(number(named.screen.height)) pt</span></div>"
        }
        return """
            <figure class="preview" data-sha256="\(HTML.escape(variant.sha256))">
            <h3>\(variant.width)×\(variant.height) · \(HTML.escape(media(variant))) · variant \(HTML.escape(String(variant.sha256.prefix(12))))</h3>
            <div class="phones">\(phones)</div>
            <figcaption>\(campaign.countdown) s countdown, \(skip); tap the ad's button for its jump <span class="jump-target" hidden>\(HTML.escape(jump))</span>
            <br>\(HTML.escape(verdict))</figcaption></figure>
            """
    }

    /// The variant's type and, for an animation or a video, how long it plays once (its `durationMs`): next to the
    /// countdown, it tells whether the ad ends before its media does.
    static func media(_ variant: CreativeFacts) -> String {
        variant.durationMs > 0 ? "\(variant.contentType), plays \(number(Double(variant.durationMs) / 1000)) s" : variant.contentType
    }

    /// A number of points as SVG takes it: to a thousandth (frames lie on thirds of a point at scale 3), no trailing
    /// zeros.
    static func number(_ value: Double) -> String {
        var text = String(format: "%.3f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text == "-0" ? "0" : text
    }

    /// One phone: the SVG's viewBox is the screen in points, so each frame of the layout is drawn at the model's own
    /// numbers; `height` CSS pixels tall.
    static func phone(_ campaign: Campaign, variant: CreativeFacts, screen: AdScreen, height: Double, id: String) -> String {
        let layout = AdLayout(screen: screen, mediaPixels: (variant.width, variant.height),
                              display: campaign.display.flatMap { AdDisplay(rawValue: $0.rawValue) } ?? .full,
                              clickArea: campaign.clickArea.flatMap { AdClickArea(rawValue: $0.rawValue) } ?? .button,
                              locale: campaign.targeting.locales?.first)
        let frames = layout.frames
        let texts = layout.texts(secondsLeft: campaign.countdown)
        // The script writes each second's texts from these patterns ({n}: the seconds left).
        let pattern = layout.texts(secondsLeft: 987_654)
        func format(_ text: String) -> String { HTML.escape(text.replacingOccurrences(of: "987654", with: "{n}")) }
        let f = number
        func box(_ rect: AdRect) -> String { "x=\"\(f(rect.x))\" y=\"\(f(rect.y))\" width=\"\(f(rect.width))\" height=\"\(f(rect.height))\"" }
        func label(_ text: String, in rect: AdRect, size: Double, cssClass: String) -> String {
            "<text class=\"\(cssClass)\" x=\"\(f(rect.x + rect.width / 2))\" y=\"\(f(rect.y + rect.height / 2 + size * 0.35))\" font-size=\"\(f(size))\" text-anchor=\"middle\">\(HTML.escape(text))</text>"
        }
        let source = "/creatives/\(HTML.escape(variant.sha256))"
        let media = variant.contentType.hasPrefix("video/")
            // A video shows its first frame (the poster), muted, as the phone does before it plays.
            ? "<foreignObject data-frame=\"media\" class=\"creative\" \(box(frames.media))><video src=\"\(source)\" muted playsinline preload=\"auto\"></video></foreignObject>"
            // An image element animates a GIF as the phone does.
            : "<image data-frame=\"media\" class=\"creative\" href=\"\(source)\" \(box(frames.media)) preserveAspectRatio=\"none\"/>"
        var svg = """
            <svg class="phone" width="\(f(height * screen.width / screen.height))" height="\(f(height))" viewBox="0 0 \(f(screen.width)) \(f(screen.height))" \
            data-screen="\(f(screen.width))x\(f(screen.height))@\(f(screen.scale))" data-safe-top="\(f(screen.safeTop))" data-safe-bottom="\(f(screen.safeBottom))" \
            data-countdown="\(campaign.countdown)" data-skippable="\(campaign.skippable)" data-skip-after="\(campaign.skipAfter ?? 0)" \
            data-countdown-format="\(format(pattern.countdown))" data-skip-format="\(format(pattern.skip))" \
            role="img" aria-label="the launch ad on a \(f(screen.width)) by \(f(screen.height)) point screen">\
            <defs><clipPath id="\(id)-clip"><rect \(box(frames.ad))/></clipPath></defs>\
            <rect class="launch-screen" x="0" y="0" width="\(f(screen.width))" height="\(f(screen.height))"/>\
            <rect data-frame="ad" class="ad" \(box(frames.ad))/>\
            <g clip-path="url(#\(id)-clip)">\(media)</g>
            """
        if let logo = frames.logo {
            svg += "<rect data-frame=\"logo\" class=\"logo\" \(box(logo))/>" + label("app logo", in: logo, size: 14, cssClass: "logo-text")
        }
        svg += "<rect data-frame=\"label\" class=\"badge\" \(box(frames.label)) rx=\"4\"/>" + label(texts.label, in: frames.label, size: 11, cssClass: "badge-text")
        if let click = texts.click {
            svg += "<rect data-frame=\"click\" class=\"click-area button\" \(box(frames.click)) rx=\"\(f(frames.click.height / 2))\"/>"
                + label(click, in: frames.click, size: 16, cssClass: "badge-text")
        } else {
            svg += "<rect data-frame=\"click\" class=\"click-area\" \(box(frames.click))/>"
        }
        let pill = f(frames.skip.height / 2)
        svg += "<g class=\"countdown\"><rect data-frame=\"countdown\" class=\"badge\" \(box(frames.countdown)) rx=\"\(pill)\"/>"
            + label(texts.countdown, in: frames.countdown, size: 14, cssClass: "badge-text countdown-text") + "</g>"
        svg += "<g class=\"skip\" visibility=\"hidden\"><rect data-frame=\"skip\" class=\"badge\" \(box(frames.skip)) rx=\"\(pill)\"/>"
            + label(texts.skip, in: frames.skip, size: 14, cssClass: "badge-text skip-text") + "</g>"
        return svg + "</svg>"
    }
}
