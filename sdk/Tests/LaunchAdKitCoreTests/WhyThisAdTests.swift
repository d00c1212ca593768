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

/// An edge that never answers: the fetch waits until it is cancelled, and says so.
@MainActor
final class SilentEdge {
    var asked = 0
    var cancelled = 0

    var why: @MainActor @Sendable (LaunchAd) async throws -> AdWhy {
        { [self] _ in
            asked += 1
            do {
                try await Task.sleep(for: .seconds(3_600))
            } catch {
                cancelled += 1
                throw error
            }
            throw EdgeDown()
        }
    }
}

struct EdgeDown: Error, CustomStringConvertible {
    var description: String { "the edge did not answer in time" }
}

@Suite("The ad label opens \"why this ad\": countdown held, the sheet up at once and updated with the edge's answer, skip always through, resumed on dismiss", .timeLimit(.minutes(1)))
@MainActor
struct WhyThisAdLabelTests {
    /// The sheets the surface was asked to present, then to show in their place, once there are `count` of them
    /// (the presenter's fetch runs as a task).
    func sheets(_ stage: Stage, count: Int = 2) async -> [WhyThisAdSheet] {
        func found() -> [WhyThisAdSheet] {
            stage.snapshot().compactMap { entry in
                switch entry.call {
                case .why(let sheet), .whyUpdated(let sheet): sheet
                default: nil
                }
            }
        }
        for _ in 0..<1_000 where found().count < count { await Task.yield() }
        return found()
    }

    func showing(_ options: AdPresentationOptions, _ why: @escaping @MainActor @Sendable (LaunchAd) async throws -> AdWhy,
                 clickArea: AdClickArea = .full, countdown: Int = 5, ad: LaunchAd? = nil) -> Stage {
        let stage = Stage(options: options, why: why)
        stage.presenter.cover()
        stage.presenter.present(ad ?? sampleAd(countdown: countdown, clickArea: clickArea))
        stage.appear()
        return stage
    }

    @Test("turned on: a label tap (over a full-screen click area) pauses the countdown, presents the sheet at once (loading), updates it with the edge's reasons, and the countdown goes on from where it stopped once dismissed")
    func labelTap() async throws {
        let box = WhyBox()
        let stage = showing(Stage.options { $0.whyThisAdOnLabel = true }, box.why)
        stage.scheduler.advance(by: 1.2)
        // A corner of the 44 pt hit area around the 40×22 label: still the label.
        let label = stage.layout.frames.label
        stage.surface?.events?.tapped(label.x - 1, label.y - 10)
        #expect(stage.presenter.whyThisAdUp)
        // Up before the edge is heard: the ad carries no advertiser, so only the loading line.
        let loading = try #require(stage.snapshot().last.flatMap { entry in if case .why(let sheet) = entry.call { sheet } else { nil } })
        #expect(loading.loading && loading.why == nil && loading.failure == nil && loading.lines == ["Fetching the reasons…"])
        let sheets = await sheets(stage)
        try #require(sheets.count == 2)
        let sheet = sheets[1]
        #expect(box.asked == [7])
        #expect(sheet.campaignId == 7 && sheet.title == "Why you see this ad" && sheet.close == "Close" && sheet.failure == nil && !sheet.loading)
        #expect(sheet.lines == ["Advertiser: Shop", "Paid for by: Brands Ltd", "Platform: ios", "Region: cn-east"])
        // Held while the sheet is up: no tick, no end, and a click is not taken (skip is: see skipWhilePending).
        let before = stage.snapshot().count
        stage.scheduler.advance(by: 30)
        stage.tap(stage.layout.frames.click)
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
        let stage = showing(Stage.options(), box.why)
        stage.tap(stage.layout.frames.label)
        #expect(await sheets(stage, count: 1).isEmpty)
        #expect(box.asked.isEmpty && stage.reported == [.impression, .click] && !stage.presenter.whyThisAdUp)
    }

    @Test("the edge cannot say: the sheet says what the ad carries (its advertiser and payer), in Chinese for a zh locale; the background while it is up does not restart the countdown")
    func failedFetch() async throws {
        let box = WhyBox()
        box.answer = .failure(EdgeDown())
        var ad = sampleAd(countdown: 5)
        (ad.advertiser, ad.paidBy) = ("示例商城", "品牌有限公司")
        let stage = showing(Stage.options {
            $0.whyThisAdOnLabel = true
            $0.locale = "zh-Hans-CN"
        }, box.why, ad: ad)
        stage.tap(stage.layout.frames.label)
        let sheets = await sheets(stage)
        try #require(sheets.count == 2)
        #expect(sheets[0].loading && sheets[0].lines == ["广告主：示例商城", "付费方：品牌有限公司", "正在获取展示原因…"])
        let sheet = sheets[1]
        #expect(sheet.title == "为什么看到这个广告" && sheet.why == nil && !sheet.loading && sheet.failure == "the edge did not answer in time")
        #expect(sheet.lines == ["广告主：示例商城", "付费方：品牌有限公司", "暂时无法获取展示原因"])
        stage.presenter.enterBackground()
        stage.scheduler.advance(by: 10)
        stage.presenter.enterForeground()
        stage.scheduler.advance(by: 10)
        #expect(stage.presenter.phase == .showing && stage.ended.isEmpty)
        stage.surface?.dismissWhy()
        stage.scheduler.advance(by: 5.5)
        #expect(stage.ended == [.countdown])
    }

    @Test("an edge that never answers: one tap on skip ends the ad at once (the fetch cancelled); the background and back while it is pending changes nothing")
    func skipWhilePending() async throws {
        let edge = SilentEdge()
        let stage = showing(Stage.options { $0.whyThisAdOnLabel = true }, edge.why, clickArea: .button)
        stage.scheduler.advance(by: 0.5)
        stage.tap(stage.layout.frames.label)
        for _ in 0..<1_000 where edge.asked == 0 { await Task.yield() }
        #expect(edge.asked == 1 && stage.presenter.whyThisAdUp && stage.presenter.phase == .showing)
        stage.presenter.enterBackground()
        stage.scheduler.advance(by: 60)
        stage.presenter.enterForeground()
        stage.scheduler.advance(by: 60)
        // Still held by the sheet (the 5 s countdown would have ended long ago), and still one fetch.
        #expect(stage.presenter.phase == .showing && stage.presenter.whyThisAdUp && stage.ended.isEmpty && edge.asked == 1)
        stage.tap(stage.layout.frames.skip)
        #expect(stage.presenter.phase == .ending(.skip) && !stage.presenter.whyThisAdUp && stage.reported == [.impression, .skip])
        stage.scheduler.advance(by: 0.5)
        #expect(stage.ended == [.skip])
        for _ in 0..<1_000 where edge.cancelled == 0 { await Task.yield() }
        #expect(edge.cancelled == 1)
        // The cancelled fetch updates nothing: one sheet presented, none shown in its place.
        #expect(await sheets(stage, count: 2).count == 1)
    }

    @Test("the countdown ran out the moment the label was tapped (its tick not yet fired): the ad ends by its countdown, no sheet, the edge not asked")
    func countdownAlreadyOver() async {
        let box = WhyBox()
        let stage = showing(Stage.options { $0.whyThisAdOnLabel = true }, box.why, clickArea: .button, countdown: 3)
        stage.clock.advance(by: 3.5)
        stage.tap(stage.layout.frames.label)
        #expect(stage.presenter.phase == .ending(.countdown) && !stage.presenter.whyThisAdUp)
        stage.scheduler.advance(by: 1)
        #expect(stage.ended == [.countdown] && box.asked.isEmpty)
        #expect(await sheets(stage, count: 1).isEmpty)
    }

    @Test("the edge no longer answers the ad (NotAnswered): the sheet says the ad is no longer shown to this device")
    func notAnswered() async throws {
        let box = WhyBox()
        let refusal = #"{"code":-32011,"message":"campaign 7 is not answered to this device"}"#
        box.answer = .failure(EdgeError.rpc(try JSONDecoder().decode(EdgeError.RPCError.self, from: Data(refusal.utf8))))
        let stage = showing(Stage.options { $0.whyThisAdOnLabel = true }, box.why, clickArea: .button)
        stage.tap(stage.layout.frames.label)
        let sheets = await sheets(stage)
        try #require(sheets.count == 2)
        #expect(sheets[1].lines == ["This ad is no longer shown to this device"])
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
