@testable import CampaignService
import LaunchAdDomain
import Testing

@Suite("campaignd observes how often the edges report", .timeLimit(.minutes(1)))
struct ReportCadenceTests {
    static let start = Timestamp(rfc3339: "2026-12-07T00:00:00Z")!

    @Test("the slowest interval among edges heard lately: each edge's least gap (idle spells and quick resends passed over); an edge silent for 10 minutes no longer counts")
    func slowest() {
        let cadence = ReportCadence()
        #expect(cadence.slowestInterval(now: Self.start) == nil)
        // A fast edge every second, with a resend 0.2 s after one and an idle spell of a minute.
        for second in [0.0, 1, 2, 2.2, 3.2, 63.2, 64.2] { cadence.observe("fast", at: Self.start.adding(seconds: second)) }
        #expect(cadence.slowestInterval(now: Self.start.adding(seconds: 64.2)) == 1)
        // A slow edge every 10 s (one report late by 2 s): it sets the lag.
        for second in [0.0, 10, 22, 32] { cadence.observe("slow", at: Self.start.adding(seconds: second)) }
        #expect(cadence.slowestInterval(now: Self.start.adding(seconds: 64.2)) == 10)
        // Silent for more than 10 minutes: the fast one's interval again.
        cadence.observe("fast", at: Self.start.adding(seconds: 700))
        #expect(cadence.slowestInterval(now: Self.start.adding(seconds: 700)) == 1)
    }

    @Test("pacing's lag follows the observed interval: 1.5 times it, DESIGN's 10 s report interval assumed until one is observed")
    func lag() {
        #expect(PacingService.lagSeconds(reportSeconds: PacingService.defaultReportSeconds) == 15)
        #expect(PacingService.lagSeconds(reportSeconds: 1) == 1.5)
    }
}
