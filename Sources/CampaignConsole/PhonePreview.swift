import LaunchAdAPI
import LaunchAdDomain

/// The phone-frame preview of a campaign: for each screen shape its creatives come in, what an edge would answer a
/// phone of that shape now (`launch.explain`: the edge's own decision engine on campaignd's state), and each variant
/// of that shape in a phone frame, as LaunchAdKit shows it: the countdown running, the skip button from `skipAfter`,
/// the jump target on a tap (the script in ``ConsoleAssets`` plays it).
enum PhonePreview {
    /// The height the phones are drawn at, in CSS pixels.
    static let phoneHeight = 360.0

    /// A screen shape and the variants of that shape, with the verdict for it.
    struct Shape {
        var width: Int
        var height: Int
        var variants: [CreativeFacts]
        /// The explanation for a phone of this shape, or why none could be had.
        var verdict: Result<LaunchExplainResult, any Error>
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
                html += frame(campaign, variant: variant, screen: (shape.width, shape.height), verdict: verdict)
            }
        }
        return html + "</div>"
    }

    /// One variant in a phone of its screen shape: the creative fills the screen, the countdown badge at the top
    /// right, the skip button under it.
    static func frame(_ campaign: Campaign, variant: CreativeFacts, screen: (width: Int, height: Int), verdict: String) -> String {
        let w = Double(variant.width), h = Double(variant.height)
        let bezel = w * 0.05
        let viewWidth = w + 2 * bezel, viewHeight = h + 2 * bezel
        let cssWidth = phoneHeight * viewWidth / viewHeight
        let badgeW = w * 0.2, badgeH = h * 0.045, badgeX = w - badgeW - w * 0.04, badgeY = h * 0.03
        let font = badgeH * 0.55
        let jump: String
        switch campaign.jump.type {
        case .none: jump = "no jump"
        case .url: jump = "opens \(campaign.jump.value)"
        case .deeplink: jump = "opens deep link \(campaign.jump.value)"
        }
        let f = TimelineChart.format
        let skip = campaign.skippable ? "skip after \(campaign.skipAfter ?? 0) s" : "not skippable"
        return """
            <figure class="preview" data-sha256="\(HTML.escape(variant.sha256))">
            <h3>\(variant.width)×\(variant.height) · variant \(HTML.escape(String(variant.sha256.prefix(12))))</h3>
            <svg class="phone" width="\(f(cssWidth))" height="\(f(phoneHeight))" viewBox="\(f(-bezel)) \(f(-bezel)) \(f(viewWidth)) \(f(viewHeight))" \
            data-countdown="\(campaign.countdown)" data-skippable="\(campaign.skippable)" data-skip-after="\(campaign.skipAfter ?? 0)" \
            role="img" aria-label="the launch ad on a \(variant.width) by \(variant.height) screen">\
            <rect class="bezel" x="\(f(-bezel))" y="\(f(-bezel))" width="\(f(viewWidth))" height="\(f(viewHeight))" rx="\(f(bezel * 1.6))"/>\
            <image class="creative" href="/creatives/\(HTML.escape(variant.sha256))" x="0" y="0" width="\(f(w))" height="\(f(h))" preserveAspectRatio="xMidYMid slice"/>\
            <g class="countdown"><rect class="badge" x="\(f(badgeX))" y="\(f(badgeY))" width="\(f(badgeW))" height="\(f(badgeH))" rx="\(f(badgeH / 2))"/>\
            <text class="badge-text countdown-text" x="\(f(badgeX + badgeW / 2))" y="\(f(badgeY + badgeH * 0.7))" font-size="\(f(font))" text-anchor="middle">\(campaign.countdown)s</text></g>\
            <g class="skip" visibility="hidden"><rect class="badge" x="\(f(badgeX))" y="\(f(badgeY + badgeH * 1.3))" width="\(f(badgeW))" height="\(f(badgeH))" rx="\(f(badgeH / 2))"/>\
            <text class="badge-text" x="\(f(badgeX + badgeW / 2))" y="\(f(badgeY + badgeH * 2.0))" font-size="\(f(font))" text-anchor="middle">Skip</text></g></svg>
            <figcaption>\(campaign.countdown) s countdown, \(skip); tap the ad for its jump <span class="jump-target" hidden>\(HTML.escape(jump))</span>
            <br>\(HTML.escape(verdict))</figcaption></figure>
            """
    }
}
