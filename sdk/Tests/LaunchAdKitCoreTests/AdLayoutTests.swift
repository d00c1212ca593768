import Foundation
import LaunchAdKit
import Testing

@Suite("AdLayout on real screens: every frame on screen, skip reachable, media aspect-filled", .timeLimit(.minutes(1)))
struct AdLayoutTests {
    /// Real screens in portrait: points, scale and the safe area with the status bar shown.
    static let screens: [(String, AdScreen)] = [
        ("iPhone SE (1st)", AdScreen(width: 320, height: 568, scale: 2, safeTop: 20)),
        ("iPhone 8 / SE", AdScreen(width: 375, height: 667, scale: 2, safeTop: 20)),
        ("iPhone 13 mini", AdScreen(width: 375, height: 812, scale: 3, safeTop: 50, safeBottom: 34)),
        ("iPhone 15", AdScreen(width: 393, height: 852, scale: 3, safeTop: 59, safeBottom: 34)),
        ("iPhone 15 Pro Max", AdScreen(width: 430, height: 932, scale: 3, safeTop: 59, safeBottom: 34)),
        ("iPad (10th)", AdScreen(width: 820, height: 1180, scale: 2, safeTop: 24, safeBottom: 20)),
    ]
    /// The three creative shapes: a tall phone image, a square one, a wide video frame.
    static let shapes: [(String, (width: Int, height: Int))] = [("tall", (1242, 2688)), ("square", (1080, 1080)), ("wide", (1920, 1080))]

    @Test("for each screen, display, click area and shape", arguments: screens.indices)
    func everyScreen(_ index: Int) {
        let (name, screen) = Self.screens[index]
        for display in AdDisplay.allCases {
            for clickArea in AdClickArea.allCases {
                for (shape, pixels) in Self.shapes {
                    let layout = AdLayout(screen: screen, mediaPixels: pixels, display: display, clickArea: clickArea, locale: "en_US")
                    let frames = layout.frames
                    let what = "\(name) \(display) \(clickArea) \(shape)"
                    // No frame off screen: every one but the media (which the ad clips) lies inside it.
                    for (frame, rect) in layout.namedFrames where frame != "media" {
                        #expect(screen.bounds.contains(rect), "\(what): \(frame) \(rect) off the screen")
                        #expect(rect.width > 0 && rect.height > 0, "\(what): \(frame) is empty")
                    }
                    // Skip: a 44×44 pt hit area at least, in the safe area and in the ad.
                    #expect(frames.skip.width >= 44 && frames.skip.height >= 44, "\(what): skip \(frames.skip)")
                    #expect(screen.safeArea.contains(frames.skip), "\(what): skip \(frames.skip) outside the safe area")
                    #expect(frames.ad.contains(frames.skip))
                    #expect(frames.countdown == frames.skip)
                    // The label is visible: in the safe area and the ad, clear of skip.
                    #expect(screen.safeArea.contains(frames.label) && frames.ad.contains(frames.label), "\(what): label \(frames.label)")
                    #expect(!frames.label.overlaps(frames.skip))
                    // Media: the media's own shape, covering the ad, centred, and no larger than covering needs.
                    let aspect = Double(pixels.width) / Double(pixels.height)
                    #expect(abs(frames.media.width / frames.media.height - aspect) / aspect < 0.01, "\(what): media \(frames.media)")
                    #expect(frames.media.contains(frames.ad), "\(what): media \(frames.media) does not cover the ad \(frames.ad)")
                    #expect(abs(frames.media.width - frames.ad.width) < 0.5 || abs(frames.media.height - frames.ad.height) < 0.5)
                    #expect(abs((frames.media.x + frames.media.maxX) / 2 - (frames.ad.x + frames.ad.maxX) / 2) < 0.5)
                    #expect(abs((frames.media.y + frames.media.maxY) / 2 - (frames.ad.y + frames.ad.maxY) / 2) < 0.5)
                    switch display {
                    case .full:
                        #expect(frames.ad == screen.bounds)
                        #expect(frames.logo == nil)
                    case .half:
                        // At least 75% of the height, the logo strip below it to the screen's bottom.
                        #expect(frames.ad.height >= 0.75 * screen.height, "\(what): ad \(frames.ad)")
                        let logo = try! #require(frames.logo)
                        #expect(logo.y == frames.ad.maxY && logo.maxY == screen.height && logo.width == screen.width)
                    }
                    switch clickArea {
                    case .full:
                        #expect(frames.click == frames.ad)
                    case .button:
                        #expect(frames.click.height >= 44 && screen.safeArea.contains(frames.click) && frames.ad.contains(frames.click))
                        #expect(!frames.click.overlaps(frames.skip) && !frames.click.overlaps(frames.label))
                    }
                    // On the pixel grid.
                    for (frame, rect) in layout.namedFrames {
                        for value in [rect.x, rect.y, rect.width, rect.height] {
                            #expect(abs((value * screen.scale).rounded() - value * screen.scale) < 1e-6, "\(what): \(frame) off the pixel grid")
                        }
                    }
                }
            }
        }
    }

    @Test("iPhone 15, full: the figures, skip right under the Dynamic Island and the button above the home indicator")
    func figures() {
        let layout = AdLayout(screen: AdScreen(width: 393, height: 852, scale: 3, safeTop: 59, safeBottom: 34),
                              mediaPixels: (1242, 2688), locale: "en")
        #expect(layout.frames.ad == AdRect(x: 0, y: 0, width: 393, height: 852))
        #expect(layout.frames.skip == AdRect(x: 305, y: 67, width: 72, height: 44))
        #expect(layout.frames.label == AdRect(x: 16, y: 78, width: 40, height: 22))
        // The button: 320 pt wide, centred to the pixel, 48 pt above the home indicator.
        let click = layout.frames.click
        #expect(click.y == 718 && click.height == 52 && abs(click.width - 320) < 0.01 && abs(click.x - 110.0 / 3) < 0.01)
        // 1242×2688 is a little less tall than 393×852: the height fills, the width overflows by 2/3 pt, cropped evenly.
        #expect(layout.frames.media.y == 0 && layout.frames.media.height == 852)
        #expect(abs(layout.frames.media.width - 1242.0 * 852 / 2688) < 1.0 / 3)
        #expect(layout.frames.media.x == -1.0 / 3)
    }

    @Test("texts by locale: Chinese for zh, English otherwise; no click text for a whole-screen click area")
    func texts() {
        let screen = AdScreen(width: 390, height: 844, scale: 3, safeTop: 47, safeBottom: 34)
        let chinese = AdLayout(screen: screen, mediaPixels: (1, 2), locale: "zh-Hans-CN").texts(secondsLeft: 3)
        #expect(chinese == AdLayout.Texts(skip: "跳过 3", countdown: "3秒", label: "广告", click: "点击查看详情"))
        let english = AdLayout(screen: screen, mediaPixels: (1, 2), clickArea: .full, locale: "en_GB").texts(secondsLeft: 5)
        #expect(english == AdLayout.Texts(skip: "Skip 5", countdown: "5s", label: "Ad", click: nil))
    }

    @Test("a screen parses from WxH@S and out-of-range ones are refused; frames encode as [x, y, w, h]")
    func parsing() throws {
        #expect(AdScreen(parsing: "390x844@3", safeTop: 47, safeBottom: 34)
                == AdScreen(width: 390, height: 844, scale: 3, safeTop: 47, safeBottom: 34))
        #expect(AdScreen(parsing: "390x844")?.scale == 1)
        for bad in ["390", "390x", "x844@3", "390x844@0", "390x844@9", "50x844@2", "390x844@2@2", "390x99999@3", "axb@2"] {
            #expect(AdScreen(parsing: bad) == nil, "\(bad)")
        }
        #expect(AdScreen(parsing: "390x844@3", safeTop: 400) == nil)
        let data = try JSONEncoder().encode(AdRect(x: 1, y: 2.5, width: 3, height: 4))
        #expect(String(decoding: data, as: UTF8.self) == "[1,2.5,3,4]")
        #expect(try JSONDecoder().decode(AdRect.self, from: data) == AdRect(x: 1, y: 2.5, width: 3, height: 4))
    }
}
