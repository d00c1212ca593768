import Foundation
import LaunchAdKit
import Testing

@Suite("a launch ad's session follows its clock", .timeLimit(.minutes(1)))
struct AdSessionTests {
    static func ad(countdown: Int = 5, skippable: Bool = true, skipAfter: Int = 2) -> LaunchAd {
        LaunchAd(campaignId: 7, version: 1, sha256: String(repeating: "a", count: 64), file: URL(fileURLWithPath: "/dev/null"),
                 contentType: "image/png", countdown: countdown, skippable: skippable, skipAfter: skipAfter,
                 jump: .init(type: "url", value: "https://shop.example.com/1212"), forced: false,
                 expiresAt: Date().addingTimeInterval(3600), source: .cache)
    }

    @Test("waiting, then a countdown second by second, skip offered only after skipAfter, ended by the countdown")
    func countdown() {
        let start = Date()
        var session = AdSession(ad: Self.ad())
        #expect(session.state == .waiting)
        #expect(session.update(at: start) == .waiting)
        session.show(at: start)
        #expect(session.state == .showing(secondsLeft: 5, skipAllowed: false))
        #expect(session.update(at: start.addingTimeInterval(0.5)) == .showing(secondsLeft: 5, skipAllowed: false))
        #expect(session.update(at: start.addingTimeInterval(1)) == .showing(secondsLeft: 4, skipAllowed: false))
        #expect(session.update(at: start.addingTimeInterval(2)) == .showing(secondsLeft: 3, skipAllowed: true))
        #expect(session.update(at: start.addingTimeInterval(4.9)) == .showing(secondsLeft: 1, skipAllowed: true))
        #expect(session.update(at: start.addingTimeInterval(5)) == .ended(.countdown))
        #expect(session.update(at: start.addingTimeInterval(9)) == .ended(.countdown))
    }

    @Test("a skip before skipAfter is refused and the ad stays; after it, the session ends by skip")
    func skipOnlyAfterSkipAfter() {
        let start = Date()
        var session = AdSession(ad: Self.ad(skipAfter: 2))
        session.show(at: start)
        #expect(session.skip(at: start.addingTimeInterval(1.9)) == false)
        #expect(session.state == .showing(secondsLeft: 4, skipAllowed: false))
        #expect(session.skip(at: start.addingTimeInterval(2.1)) == true)
        #expect(session.state == .ended(.skip))
        #expect(session.click(at: start.addingTimeInterval(2.2)) == nil)
    }

    @Test("an ad that is not skippable never offers skip")
    func notSkippable() {
        let start = Date()
        var session = AdSession(ad: Self.ad(skippable: false, skipAfter: 0))
        session.show(at: start)
        for second in 0..<5 {
            #expect(session.update(at: start.addingTimeInterval(Double(second))) == .showing(secondsLeft: 5 - second, skipAllowed: false))
            #expect(session.skip(at: start.addingTimeInterval(Double(second))) == false)
        }
        #expect(session.update(at: start.addingTimeInterval(5)) == .ended(.countdown))
    }

    @Test("a click ends the session and hands the campaign's jump to the app")
    func click() {
        let start = Date()
        var session = AdSession(ad: Self.ad())
        #expect(session.click(at: start) == nil)  // not shown yet
        session.show(at: start)
        #expect(session.click(at: start.addingTimeInterval(1)) == LaunchAd.Jump(type: "url", value: "https://shop.example.com/1212"))
        #expect(session.state == .ended(.click))
    }

    @Test("the countdown resumes where it stopped when the app returns from the background, rather than restarting")
    func backgroundResumes() {
        let start = Date()
        var session = AdSession(ad: Self.ad(countdown: 5, skipAfter: 3))
        session.show(at: start)
        #expect(session.update(at: start.addingTimeInterval(2)) == .showing(secondsLeft: 3, skipAllowed: false))
        session.enterBackground(at: start.addingTimeInterval(2))
        // Ten minutes away: the countdown did not run meanwhile, and did not end.
        #expect(session.update(at: start.addingTimeInterval(600)) == .showing(secondsLeft: 3, skipAllowed: false))
        session.enterForeground(at: start.addingTimeInterval(600))
        #expect(session.state == .showing(secondsLeft: 3, skipAllowed: false))
        #expect(session.update(at: start.addingTimeInterval(601)) == .showing(secondsLeft: 2, skipAllowed: true))
        #expect(session.update(at: start.addingTimeInterval(602.5)) == .showing(secondsLeft: 1, skipAllowed: true))
        #expect(session.update(at: start.addingTimeInterval(603)) == .ended(.countdown))
        #expect(session.elapsed(at: start.addingTimeInterval(700)) == 5)
    }
}
