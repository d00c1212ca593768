import Foundation
import LaunchAdKit
import LaunchAdKitTesting
import Testing

/// The edge's answers the presenter is handed, and how often it asked.
@MainActor
final class WhyBox {
    var asked: [Int64] = []
    var answer: Result<AdWhy, any Error> = .success(AdWhy(campaignId: 7, advertiser: "Shop", paidBy: "Brands Ltd", reasons: [
        .init(field: .platform, value: "ios"), .init(field: .region, value: "cn-east"),
    ]))

    var why: @MainActor @Sendable (LaunchAd) async throws -> AdWhy {
        { [self] ad in
            asked.append(ad.campaignId)
            return try answer.get()
        }
    }
}

struct EdgeDown: Error, CustomStringConvertible {
    var description: String { "the edge did not answer in time" }
}

@Suite("The ad label opens \"why this ad\": countdown held, the edge asked, the sheet presented, resumed on dismiss", .timeLimit(.minutes(1)))
@MainActor
struct WhyThisAdLabelTests {
    /// The sheets the surface was asked to present, once the presenter's fetch is done (it runs as a task).
    func sheets(_ stage: Stage, count: Int = 1) async -> [WhyThisAdSheet] {
        func found() -> [WhyThisAdSheet] {
            stage.snapshot().compactMap { entry in if case .why(let sheet) = entry.call { sheet } else { nil } }
        }
        for _ in 0..<1_000 where found().count < count { await Task.yield() }
        return found()
    }

    func showing(_ options: AdPresentationOptions, _ box: WhyBox, clickArea: AdClickArea = .full, countdown: Int = 5) -> Stage {
        let stage = Stage(options: options, why: box.why)
        stage.presenter.cover()
        stage.presenter.present(sampleAd(countdown: countdown, clickArea: clickArea))
        stage.appear()
        return stage
    }

    @Test("turned on: a label tap (over a full-screen click area) pauses the countdown, presents the edge's reasons, and the countdown goes on from where it stopped once dismissed")
    func labelTap() async throws {
        let box = WhyBox()
        let stage = showing(Stage.options { $0.whyThisAdOnLabel = true }, box)
        stage.scheduler.advance(by: 1.2)
        // A corner of the 44 pt hit area around the 40×22 label: still the label.
        let label = stage.layout.frames.label
        stage.surface?.events?.tapped(label.x - 1, label.y - 10)
        #expect(stage.presenter.whyThisAdUp)
        let sheet = try #require(await sheets(stage).first)
        #expect(box.asked == [7])
        #expect(sheet.campaignId == 7 && sheet.title == "Why you see this ad" && sheet.close == "Close" && sheet.failure == nil)
        #expect(sheet.lines == ["Advertiser: Shop", "Paid for by: Brands Ltd", "Platform: ios", "Region: cn-east"])
        // Held while the sheet is up: no tick, no end, and the ad takes no tap (not a click, not a skip).
        let before = stage.snapshot().count
        stage.scheduler.advance(by: 30)
        stage.tap(stage.layout.frames.click)
        stage.tap(stage.layout.frames.skip)
        #expect(stage.snapshot().count == before && stage.presenter.phase == .showing && stage.reported == [.impression])
        #expect(stage.surface?.dismissWhy() == true)
        #expect(!stage.presenter.whyThisAdUp)
        stage.scheduler.advance(by: 10)
        // 1.2 s shown before the tap, 3.8 s after the dismissal at 31.2: the countdown ends at 35.
        let ticks = stage.snapshot().compactMap { entry -> String? in
            if case .element(.skip, let text, _) = entry.call { return "\(entry.at) \(text)" }
            return nil
        }
        #expect(ticks == ["0.0 Skip 5", "1.0 Skip 4", "32.0 Skip 3", "33.0 Skip 2", "34.0 Skip 1"])
        #expect(stage.ended == [.countdown] && stage.reported == [.impression])
        #expect(stage.snapshot().map(\.call).contains(.whyDismissed))
    }

    @Test("off by default: a label tap on a full-screen click area is a click, and the edge is not asked")
    func offByDefault() async {
        let box = WhyBox()
        let stage = showing(Stage.options(), box)
        stage.tap(stage.layout.frames.label)
        #expect(await sheets(stage, count: 1).isEmpty)
        #expect(box.asked.isEmpty && stage.reported == [.impression, .click] && !stage.presenter.whyThisAdUp)
    }

    @Test("the edge cannot say: the sheet says what the ad carries, in Chinese for a zh locale; the background while it is up does not restart the countdown")
    func failedFetch() async throws {
        let box = WhyBox()
        box.answer = .failure(EdgeDown())
        let stage = showing(Stage.options {
            $0.whyThisAdOnLabel = true
            $0.locale = "zh-Hans-CN"
        }, box, clickArea: .button)
        stage.tap(stage.layout.frames.label)
        let sheet = try #require(await sheets(stage).first)
        #expect(sheet.title == "为什么看到这个广告" && sheet.why == nil && sheet.failure == "the edge did not answer in time")
        #expect(sheet.lines == ["暂时无法获取展示原因"])
        stage.presenter.enterBackground()
        stage.scheduler.advance(by: 10)
        stage.presenter.enterForeground()
        stage.scheduler.advance(by: 10)
        #expect(stage.presenter.phase == .showing && stage.ended.isEmpty)
        stage.surface?.dismissWhy()
        stage.scheduler.advance(by: 5.5)
        #expect(stage.ended == [.countdown])
    }

    @Test("launch.why's answer decodes, a field a newer edge adds kept as it came; each reason reads as a line")
    func decoding() throws {
        let text = #"{"id":42,"advertiser":"Example Shop","reasons":[{"field":"appVersion","value":">=6.0 <7.0"},{"field":"launchType","value":"hot"},{"field":"audience","value":"test"},{"field":"forced","value":"true"},{"field":"weather","value":"sunny"}]}"#
        let why = try JSONDecoder().decode(AdWhy.self, from: Data(text.utf8))
        #expect(why.campaignId == 42 && why.advertiser == "Example Shop" && why.paidBy == nil)
        #expect(why.reasons.map(\.field) == [.appVersion, .launchType, .audience, .forced, AdWhy.Field(rawValue: "weather")])
        let ad = sampleAd()
        let sheet = WhyThisAdSheet(ad: ad, why: .success(why), chinese: false)
        #expect(sheet.lines == ["Advertiser: Example Shop", "App version: >=6.0 <7.0", "Shown when you come back to the app",
                                "This device is one of the ad's test devices", "Shown ahead of other ads", "weather: sunny"])
        let everyone = WhyThisAdSheet(ad: ad, why: .success(AdWhy(campaignId: 7, reasons: [])), chinese: true)
        #expect(everyone.lines == ["向本应用的所有用户展示"])
    }
}
