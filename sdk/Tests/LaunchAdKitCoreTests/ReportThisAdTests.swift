import Foundation
@testable import LaunchAdKit
import LaunchAdKitTesting
import Testing

@Suite("the why-this-ad sheet's \"Report this ad\": four reasons, one report, the countdown held by the sheet, skip always through", .timeLimit(.minutes(1)))
@MainActor
struct ReportThisAdTests {
    /// An ad of `countdown` seconds up on a stage whose label opens the sheet, `shownFor` seconds counted.
    func showing(_ ad: LaunchAd, shownFor: Double = 0, reporting: Bool = true, locale: String = "en_US") -> (Stage, WhyBox) {
        let box = WhyBox()
        let stage = Stage(options: Stage.options {
            $0.whyThisAdOnLabel = true
            $0.locale = locale
        }, why: box.why, reporting: reporting)
        stage.presenter.cover()
        stage.presenter.present(ad)
        stage.appear()
        stage.scheduler.advance(by: shownFor)
        return (stage, box)
    }

    /// Opens the sheet from the label and waits for the edge's answer in it.
    func openSheet(_ stage: Stage) async throws -> RecordingSurface {
        stage.tap(stage.layout.frames.label)
        let surface = try #require(stage.surface)
        for _ in 0..<1_000 where surface.sheet?.loading != false { await Task.yield() }
        try #require(surface.sheet?.loading == false)
        return surface
    }

    /// The skip button's texts with their times: a tick of the countdown each.
    func skipTexts(_ stage: Stage) -> [String] {
        stage.snapshot().compactMap { entry in
            if case .element(.skip, let text, _) = entry.call { "\(entry.at) \(text)" } else { nil }
        }
    }

    func updates(_ stage: Stage) -> Int {
        stage.snapshot().filter { if case .whyUpdated = $0.call { true } else { false } }.count
    }

    @Test("the sheet offers the action; opened, it lists the four reasons; one chosen is queued once with the ad, the sheet says reported (the edge's lines kept), a second choice does nothing; the countdown held throughout, then on from where it stopped")
    func reportOnce() async throws {
        let (stage, _) = showing(sampleAd(countdown: 5), shownFor: 1.2)
        let surface = try await openSheet(stage)
        let offered = try #require(surface.sheet?.report)
        #expect(offered.state == .offered && offered.button == "Report this ad" && offered.cancel == "Cancel")
        #expect(surface.report(.open) && stage.presenter.reportMenuOpen)
        let menu = try #require(surface.sheet?.report)
        #expect(menu.state == .choosing)
        #expect(menu.choices.map(\.reason) == [.inappropriate, .misleading, .repetitive, .other])
        #expect(menu.choices.map(\.title) == ["Inappropriate", "Misleading", "Shown too often", "Other"])
        stage.scheduler.advance(by: 30)  // the menu open: nothing counted, nothing ended
        #expect(stage.presenter.phase == .showing && stage.userReports.isEmpty)

        surface.report(.choose(.misleading))
        await stage.presenter.reportSettled()
        #expect(stage.userReports.map(\.campaignId) == [7] && stage.userReports.map(\.reason) == [.misleading])
        let done = try #require(surface.sheet)
        #expect(done.report?.state == .reported(.misleading) && done.report?.done == "Reported. Thank you")
        #expect(done.lines == ["Advertiser: Shop", "Paid for by: Brands Ltd", "Platform: ios", "Region: cn-east"])
        #expect(!stage.presenter.reportMenuOpen && stage.presenter.reported == .misleading)
        let redrawn = updates(stage)
        surface.report(.choose(.other))
        surface.report(.open)
        surface.report(.cancel)
        #expect(stage.userReports.count == 1 && updates(stage) == redrawn, "a second choice reports and redraws nothing")
        stage.scheduler.advance(by: 30)
        #expect(surface.dismissWhy())
        // Opened again, the sheet says the ad was reported: there is nothing more to report.
        stage.scheduler.advance(by: 1)
        let again = try await openSheet(stage)
        #expect(again.sheet?.report?.state == .reported(.misleading))
        #expect(again.dismissWhy())
        stage.scheduler.advance(by: 10)
        // 1.2 s counted before the first sheet (up from 1.2 to 61.2), 1 s between the two (the second up and
        // dismissed at 62.2), the last 2.8 s from 62.2: each second's tick on time after the pauses, the end at 65.
        #expect(skipTexts(stage) == ["0.0 Skip 5", "1.0 Skip 4", "62.0 Skip 3", "63.0 Skip 2", "64.0 Skip 1"])
        #expect(stage.snapshot().first { $0.call == .fadeOut(0.5) }?.at == 65.0)
        #expect(stage.ended == [.countdown] && stage.reported == [.impression] && stage.userReports.count == 1)
    }

    @Test("with the reasons listed, one tap on skip ends the ad (a one-tap close); a reason chosen as it fades, or after, reports nothing")
    func skipWithTheMenuOpen() async throws {
        let (stage, _) = showing(sampleAd(countdown: 5), shownFor: 0.5)
        let surface = try await openSheet(stage)
        surface.report(.open)
        stage.scheduler.advance(by: 10)
        #expect(stage.presenter.reportMenuOpen && stage.presenter.phase == .showing)
        stage.tap(stage.layout.frames.skip)
        #expect(stage.presenter.phase == .ending(.skip) && !stage.presenter.reportMenuOpen && !stage.presenter.whyThisAdUp)
        surface.report(.choose(.inappropriate))
        stage.scheduler.advance(by: 0.5)
        #expect(stage.ended == [.skip] && stage.reported == [.impression, .skip])
        #expect(stage.snapshot().last?.call == .remove, "the window released")
        #expect(!surface.report(.choose(.other)), "a removed window takes no tap")
        #expect(stage.userReports.isEmpty && stage.presenter.reported == nil)
    }

    @Test("an ad skippable after 2 s: the sheet and its menu neither offer skip sooner nor count the seconds; reported, cancelled and chosen, skip comes at 2 s of showing")
    func skipAfterKept() async throws {
        let (stage, _) = showing(sampleAd(countdown: 5, skipAfter: 2), shownFor: 0.5)
        let surface = try await openSheet(stage)
        surface.report(.open)
        surface.report(.cancel)
        #expect(surface.sheet?.report?.state == .offered && !stage.presenter.reportMenuOpen)
        stage.tap(stage.layout.frames.skip)
        #expect(stage.presenter.phase == .showing, "skip is not offered yet")
        surface.report(.choose(.repetitive))  // straight from the button, as a menu on it does
        await stage.presenter.reportSettled()
        #expect(stage.userReports.map(\.reason) == [.repetitive])
        stage.scheduler.advance(by: 20)
        surface.dismissWhy()  // at 20.5 s: 0.5 s shown, skip from 22.0
        stage.scheduler.advance(by: 1)
        stage.tap(stage.layout.frames.skip)
        #expect(stage.presenter.phase == .showing)
        stage.scheduler.advance(by: 0.6)
        stage.tap(stage.layout.frames.skip)
        #expect(stage.presenter.phase == .ending(.skip) && stage.reported == [.impression, .skip])
    }

    @Test("in Chinese for a zh locale; a presenter with nowhere to send reports offers no action and takes none")
    func wordsAndNoReporting() async throws {
        let (chinese, _) = showing(sampleAd(), locale: "zh-Hans-CN")
        let sheet = try await openSheet(chinese)
        sheet.report(.choose(.other))
        await chinese.presenter.reportSettled()
        let action = try #require(sheet.sheet?.report)
        #expect(action.button == "举报此广告" && action.cancel == "取消" && action.done == "已举报，感谢反馈" && action.failed == "举报未能提交，请重试")
        #expect(action.choices.map(\.title) == ["内容不当", "虚假或误导", "重复出现", "其他原因"] && action.state == .reported(.other))

        let (silent, _) = showing(sampleAd(), reporting: false)
        let surface = try await openSheet(silent)
        #expect(surface.sheet?.report == nil)
        let redrawn = updates(silent)
        surface.report(.open)
        surface.report(.choose(.misleading))
        #expect(silent.userReports.isEmpty && updates(silent) == redrawn && !silent.presenter.reportMenuOpen)
    }

    @Test("through the controller: the reason chosen is queued once as the launch's `reported` event, with its time, beside its impression, and sent the way the session's events are")
    func controllerQueuesTheReport() async throws {
        let seeded = try await Seeded(before: { $0.options.whyThisAdOnLabel = true })
        defer { seeded.device.remove() }
        let (device, client, controller) = (seeded.device, seeded.client, seeded.controller)
        let surface = try #require(seeded.made)
        try #require(surface.events).mediaAppeared(nil)
        seeded.scheduler.advance(by: 0.4)
        let label = try #require(controller.presenter?.layout?.frames.label)
        surface.events?.tapped(label.x + label.width / 2, label.y + label.height / 2)
        #expect(controller.presenter?.whyThisAdUp == true)
        device.clock.advance(by: 0.85)
        let chosenAt = RFC3339.text(device.clock.now())
        #expect(surface.report(.open) && surface.report(.choose(.repetitive)))
        surface.report(.choose(.inappropriate))
        await controller.presenter?.reportSettled()
        #expect(surface.sheet?.report?.state == .reported(.repetitive))
        let flushes = await controller.settleReports()
        // The edge is out of reach: the events wait on disk, as the session's do.
        let sent = flushes.compactMap { $0 }
        #expect(!sent.isEmpty && sent.allSatisfy { $0.pending > 0 && $0.rejected == 0 }, "\(flushes)")
        let events = try device.queued()
        let reported = events.filter { $0.type == "reported" }
        try #require(reported.count == 1, "\(events.map(\.type))")
        let impression = try #require(events.first { $0.type == "impression" })
        #expect(reported[0].reason == "repetitive" && reported[0].campaignId == 7 && reported[0].app == "shop")
        #expect(reported[0].at == chosenAt && reported[0].sha256 == impression.sha256)
        #expect(reported[0].eventId == impression.eventId.replacingOccurrences(of: "-impression", with: "-reported"), "the launch's id")
        surface.dismissWhy()
        seeded.scheduler.advance(by: 10)
        #expect(seeded.delegate.heard.last == "end countdown")
        _ = await controller.settleReports()
        await client.settle()
    }

    @Test("a report that could not be queued: the sheet does not say reported but that it failed, and offers the action again; chosen again once it can be queued, it is reported")
    func notQueued() async throws {
        let (stage, _) = showing(sampleAd(countdown: 5), shownFor: 0.5)
        let surface = try await openSheet(stage)
        stage.reportsQueue = false
        surface.report(.open)
        surface.report(.choose(.misleading))
        surface.report(.choose(.other))  // while the first is being queued: ignored
        await stage.presenter.reportSettled()
        let failed = try #require(surface.sheet?.report)
        #expect(failed.state == .notQueued && failed.failed == "The report could not be sent. Try again", "\(failed.state)")
        #expect(stage.presenter.reported == nil && !stage.presenter.reportMenuOpen && stage.userReports.count == 1)
        stage.reportsQueue = true
        #expect(surface.report(.open) && surface.sheet?.report?.state == .choosing)
        surface.report(.choose(.other))
        await stage.presenter.reportSettled()
        #expect(surface.sheet?.report?.state == .reported(.other) && stage.presenter.reported == .other)
        #expect(stage.userReports.map(\.reason) == [.misleading, .other] && stage.presenter.phase == .showing)
    }

    @Test("through the controller, a report the client could not queue (its state folder not writable) leaves the sheet saying so, the action offered again; once writable, it is queued and reported")
    func controllerNotQueued() async throws {
        let seeded = try await Seeded(before: { $0.options.whyThisAdOnLabel = true })
        defer { seeded.device.remove() }
        let (device, controller) = (seeded.device, seeded.controller)
        let surface = try #require(seeded.made)
        try #require(surface.events).mediaAppeared(nil)
        _ = await controller.settleReports()
        // A folder where the queue's file goes: its atomic write (a rename over it) fails, as on a full disk.
        let file = device.folder.appendingPathComponent("reports.json")
        try? FileManager.default.removeItem(at: file)
        try FileManager.default.createDirectory(at: file.appendingPathComponent("in-the-way"), withIntermediateDirectories: true)
        let label = try #require(controller.presenter?.layout?.frames.label)
        surface.events?.tapped(label.x + label.width / 2, label.y + label.height / 2)
        #expect(surface.report(.open) && surface.report(.choose(.misleading)))
        await controller.presenter?.reportSettled()
        #expect(surface.sheet?.report?.state == .notQueued && controller.presenter?.reported == nil)
        #expect(await controller.settleReports().allSatisfy { $0 == nil }, "nothing queued, nothing sent")

        try FileManager.default.removeItem(at: file)
        #expect(surface.report(.open) && surface.report(.choose(.misleading)))
        await controller.presenter?.reportSettled()
        #expect(surface.sheet?.report?.state == .reported(.misleading))
        _ = await controller.settleReports()
        #expect(try device.queued().filter { $0.type == "reported" }.map(\.reason) == ["misleading"])
        surface.dismissWhy()
        seeded.scheduler.advance(by: 10)
        _ = await controller.settleReports()
        await seeded.client.settle()
    }
}
