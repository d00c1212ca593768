import Foundation

/// A rectangle in points, origin at the screen's top left: what every frame of ``AdLayout`` is. JSON: `[x, y, w, h]`.
public struct AdRect: Sendable, Equatable, Codable, CustomStringConvertible {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public var maxX: Double { x + width }
    public var maxY: Double { y + height }

    /// Whether `point` lies inside (the left and top edges included, the right and bottom ones not).
    public func contains(x px: Double, y py: Double) -> Bool { px >= x && px < maxX && py >= y && py < maxY }

    /// Whether `other` lies wholly inside this one (within a hundredth of a point, for rounding).
    public func contains(_ other: AdRect) -> Bool {
        other.x >= x - 0.01 && other.y >= y - 0.01 && other.maxX <= maxX + 0.01 && other.maxY <= maxY + 0.01
    }

    /// Whether the two share some area (touching edges do not count).
    public func overlaps(_ other: AdRect) -> Bool {
        let shared = intersection(other)
        return shared.width > 0 && shared.height > 0
    }

    /// The part both share (zero-sized when they do not meet).
    public func intersection(_ other: AdRect) -> AdRect {
        let left = max(x, other.x), top = max(y, other.y)
        return AdRect(x: left, y: top, width: max(0, min(maxX, other.maxX) - left), height: max(0, min(maxY, other.maxY) - top))
    }

    public init(from decoder: any Decoder) throws {
        var values = try decoder.unkeyedContainer()
        self.init(x: try values.decode(Double.self), y: try values.decode(Double.self), width: try values.decode(Double.self),
                  height: try values.decode(Double.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var values = encoder.unkeyedContainer()
        for value in [x, y, width, height] { try values.encode(value) }
    }

    public var description: String { "[\(x), \(y), \(width), \(height)]" }
}

/// The screen an ad is laid out on: its size in points, its scale (pixels per point) and its safe-area insets
/// (the notch or status bar above, the home indicator below), portrait.
public struct AdScreen: Sendable, Equatable {
    public var width: Double
    public var height: Double
    public var scale: Double
    public var safeTop: Double
    public var safeBottom: Double
    public var safeLeft: Double
    public var safeRight: Double

    public init(width: Double, height: Double, scale: Double, safeTop: Double = 0, safeBottom: Double = 0,
                safeLeft: Double = 0, safeRight: Double = 0) {
        self.width = width
        self.height = height
        self.scale = scale
        self.safeTop = safeTop
        self.safeBottom = safeBottom
        self.safeLeft = safeLeft
        self.safeRight = safeRight
    }

    /// `390x844@3` (points and scale), as `adsim layout --screen` and the console's `?screen=` take it; nil when it
    /// is not that shape or out of range (each side 100...4096 pt, scale 1...4).
    public init?(parsing text: String, safeTop: Double = 0, safeBottom: Double = 0) {
        let sizeAndScale = text.lowercased().split(separator: "@", omittingEmptySubsequences: false)
        let size = sizeAndScale[0].split(separator: "x", omittingEmptySubsequences: false)
        guard sizeAndScale.count <= 2, size.count == 2, let width = Double(size[0]), let height = Double(size[1]),
              let scale = sizeAndScale.count == 2 ? Double(sizeAndScale[1]) : 1,
              (100...4096).contains(width), (100...4096).contains(height), (1...4).contains(scale),
              (0...(height / 4)).contains(safeTop), (0...(height / 4)).contains(safeBottom)
        else { return nil }
        self.init(width: width, height: height, scale: scale, safeTop: safeTop, safeBottom: safeBottom)
    }

    /// The whole screen.
    public var bounds: AdRect { AdRect(x: 0, y: 0, width: width, height: height) }
    /// What no notch, status bar or home indicator covers.
    public var safeArea: AdRect {
        AdRect(x: safeLeft, y: safeTop, width: width - safeLeft - safeRight, height: height - safeTop - safeBottom)
    }
}

/// How much of the screen the ad takes (the campaign's `display`).
public enum AdDisplay: String, Sendable, Codable, CaseIterable {
    /// The whole screen.
    case full
    /// The top of the screen, the app's logo strip below (the ad at least 75% of the height).
    case half
}

/// What a tap on the ad opens the jump from (the campaign's `clickArea`).
public enum AdClickArea: String, Sendable, Codable, CaseIterable {
    /// A button on the ad (what markets that forbid a whole-screen jump require).
    case button
    /// The whole ad.
    case full
}

/// One model of the screen while an ad shows: the frames in points of each thing drawn, and their texts. The phone
/// (LaunchAdKitUI) and the console's preview both draw from it, so neither holds geometry of its own.
public struct AdLayout: Sendable, Equatable {
    /// The frames, in points from the screen's top left.
    public struct Frames: Sendable, Equatable, Codable {
        /// The ad's area: the whole screen (`full`), or its top (`half`). The media is clipped to it.
        public var ad: AdRect
        /// The media, aspect-filled over `ad` and centred on it: as large as the media's shape needs to cover `ad`,
        /// so it may reach past `ad` (and the screen), where `ad` clips it.
        public var media: AdRect
        /// The app's logo strip below a `half` ad (nil for `full`).
        public var logo: AdRect?
        /// The skip button: its hit area, at least 44×44 pt, in the safe area's top right.
        public var skip: AdRect
        /// Where the seconds left show while skip is not offered: the same corner as skip (one control, as the
        /// splash SDKs draw it).
        public var countdown: AdRect
        /// The ad label ("Ad" / "广告"), in the safe area's top left, level with skip.
        public var label: AdRect
        /// What a tap opens the jump from: the button (`button`), or the visible ad (`full`).
        public var click: AdRect
    }

    /// The texts drawn, for a given second of the countdown.
    public struct Texts: Sendable, Equatable, Codable {
        /// On the skip button: "Skip 3" / "跳过 3".
        public var skip: String
        /// On the countdown while skip is not offered: "3s" / "3秒".
        public var countdown: String
        /// The ad label: "Ad" / "广告".
        public var label: String
        /// On the click button ("Tap to learn more" / "点击查看详情"); nil when the whole ad is the click area.
        public var click: String?

        public init(skip: String, countdown: String, label: String, click: String?) {
            self.skip = skip
            self.countdown = countdown
            self.label = label
            self.click = click
        }
    }

    public let screen: AdScreen
    public let display: AdDisplay
    public let clickArea: AdClickArea
    /// Whether the texts are Chinese (a `zh` locale) or English.
    public let chinese: Bool
    public let frames: Frames

    /// The share of a `half` display's height that the ad takes (XHLaunchAd's default; DESIGN asks at least 0.75).
    public static let halfShare = 0.8
    /// The smallest hit area Apple's Human Interface Guidelines allow.
    public static let minimumHit = 44.0
    /// The skip button's width: "跳过 5" and "Skip 5" fit at 14 pt.
    public static let skipWidth = 72.0
    /// The label's size.
    public static let labelSize = (width: 40.0, height: 22.0)
    /// The click button's height and its widest.
    public static let clickButton = (height: 52.0, maxWidth: 320.0)
    /// The margin from the safe area's edges.
    public static let margin = 16.0

    /// Lays out an ad of `mediaPixels` (its pixel size) on `screen`. `locale` (BCP 47, `zh-Hans-CN`, `en_US`)
    /// picks the texts' language: Chinese for `zh`, English otherwise.
    public init(screen: AdScreen, mediaPixels: (width: Int, height: Int), display: AdDisplay = .full,
                clickArea: AdClickArea = .button, locale: String? = nil) {
        self.screen = screen
        self.display = display
        self.clickArea = clickArea
        chinese = locale.map { $0.lowercased().hasPrefix("zh") } ?? false
        let scale = screen.scale
        // Every edge on the pixel grid, so the phone draws it sharp and the console places it where the phone does.
        func snap(_ value: Double) -> Double { (value * scale).rounded() / scale }
        func rect(_ x: Double, _ y: Double, _ width: Double, _ height: Double) -> AdRect {
            let left = snap(x), top = snap(y)
            return AdRect(x: left, y: top, width: snap(x + width) - left, height: snap(y + height) - top)
        }

        let adHeight = display == .full ? screen.height : snap(screen.height * Self.halfShare)
        let ad = rect(0, 0, screen.width, adHeight)
        let logo = display == .half ? rect(0, ad.maxY, screen.width, screen.height - ad.maxY) : nil

        // Aspect fill: the larger of the two scales covers the ad; what reaches past it is cropped evenly.
        let pixelWidth = Double(max(1, mediaPixels.width)), pixelHeight = Double(max(1, mediaPixels.height))
        let fill = max(ad.width / pixelWidth, ad.height / pixelHeight)
        let mediaWidth = pixelWidth * fill, mediaHeight = pixelHeight * fill
        let media = rect(ad.x + (ad.width - mediaWidth) / 2, ad.y + (ad.height - mediaHeight) / 2, mediaWidth, mediaHeight)

        // The part of the ad no notch, status bar or home indicator covers: the controls stay inside it.
        let safe = screen.safeArea.intersection(ad)
        let controlTop = safe.y + 8
        let skip = rect(safe.maxX - Self.margin - Self.skipWidth, controlTop, Self.skipWidth, Self.minimumHit)
        let label = rect(safe.x + Self.margin, controlTop + (Self.minimumHit - Self.labelSize.height) / 2,
                         Self.labelSize.width, Self.labelSize.height)
        let click: AdRect
        switch clickArea {
        case .full:
            click = ad.intersection(screen.bounds)
        case .button:
            let width = min(Self.clickButton.maxWidth, safe.width - 4 * Self.margin)
            click = rect(safe.x + (safe.width - width) / 2, safe.maxY - 3 * Self.margin - Self.clickButton.height, width,
                         Self.clickButton.height)
        }
        frames = Frames(ad: ad, media: media, logo: logo, skip: skip, countdown: skip, label: label, click: click)
    }

    /// The texts at `secondsLeft` of the countdown.
    public func texts(secondsLeft: Int) -> Texts {
        Texts(skip: chinese ? "跳过 \(secondsLeft)" : "Skip \(secondsLeft)",
              countdown: chinese ? "\(secondsLeft)秒" : "\(secondsLeft)s",
              label: chinese ? "广告" : "Ad",
              click: clickArea == .full ? nil : (chinese ? "点击查看详情" : "Tap to learn more"))
    }

    /// The frames by name, those a layout has (`logo` only for `half`): what `adsim layout` prints and the console's
    /// `data-frame` attributes name.
    public var namedFrames: [(name: String, frame: AdRect)] {
        var named: [(String, AdRect)] = [("ad", frames.ad), ("media", frames.media)]
        if let logo = frames.logo { named.append(("logo", logo)) }
        named += [("skip", frames.skip), ("countdown", frames.countdown), ("label", frames.label), ("click", frames.click)]
        return named
    }
}

extension AdLayout {
    /// A few common iPhones in portrait (points, scale, safe areas with the status bar shown): what the console's
    /// preview draws side by side when no screen is given, and what the tests lay out on.
    public static let commonScreens: [(name: String, screen: AdScreen)] = [
        ("iPhone SE", AdScreen(width: 375, height: 667, scale: 2, safeTop: 20, safeBottom: 0)),
        ("iPhone 13 mini", AdScreen(width: 375, height: 812, scale: 3, safeTop: 50, safeBottom: 34)),
        ("iPhone 15", AdScreen(width: 393, height: 852, scale: 3, safeTop: 59, safeBottom: 34)),
        ("iPhone 15 Pro Max", AdScreen(width: 430, height: 932, scale: 3, safeTop: 59, safeBottom: 34)),
    ]
}
