import Foundation
import LaunchAdAPI
import LaunchAdDomain
import Testing

@testable import DeliveryService

/// What an edge sends again after campaignd refused part of a report's counts by app: only the refused part goes.
@Suite("Counts by app campaignd refuses: only those are dropped", .timeLimit(.minutes(1)))
struct RefusedAppCountsTests {
    static let now = Timestamp(milliseconds: 1_800_000_000_000)
    static func hour(_ offset: Int64) -> Timestamp {
        Timestamp(milliseconds: HourlyCount.hour(of: now).milliseconds + offset * HourlyCount.hourMilliseconds)
    }
    /// Oldest first, as the edge drains them: two hours beyond a short retention, then three recent ones.
    static let apps = [-50, -40, -3, -2, 0].enumerated().map { index, offset in
        AppHourlyCount(app: "app\(index)", hour: hour(Int64(offset)), requests: Int64(index + 1))
    }

    @Test("an hour older than campaignd keeps: it and the older ones go, the newer ones are sent again")
    func tooOld() {
        let kept = ReportShipper.keptApps(Self.apps, refusedField: "apps[1].hour", now: Self.now)
        #expect(kept?.map(\.app) == ["app2", "app3", "app4"])
    }

    @Test("an hour ahead of campaignd's clock: it and the later ones go")
    func ahead() {
        var apps = Self.apps
        apps.append(AppHourlyCount(app: "late", hour: Self.hour(3), requests: 1))
        let kept = ReportShipper.keptApps(apps, refusedField: "apps[5].hour", now: Self.now)
        #expect(kept?.map(\.app) == ["app0", "app1", "app2", "app3", "app4"])
    }

    @Test("another member of one item: that item alone goes")
    func oneItem() {
        #expect(ReportShipper.keptApps(Self.apps, refusedField: "apps[2].app", now: Self.now)?.map(\.app) == ["app0", "app1", "app3", "app4"])
        #expect(ReportShipper.keptApps(Self.apps, refusedField: "apps[4]", now: Self.now)?.map(\.app) == ["app0", "app1", "app2", "app3"])
    }

    @Test("a refusal of the whole list, or naming no item it holds, drops them all")
    func whole() {
        #expect(ReportShipper.keptApps(Self.apps, refusedField: "apps", now: Self.now) == nil)
        #expect(ReportShipper.keptApps(Self.apps, refusedField: "apps[9].hour", now: Self.now) == nil)
        #expect(ReportShipper.keptApps(Self.apps, refusedField: "apps[x]", now: Self.now) == nil)
        #expect(ReportShipper.keptApps([Self.apps[0]], refusedField: "apps[0].hour", now: Self.now) == nil)
    }
}
