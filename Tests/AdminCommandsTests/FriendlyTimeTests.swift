@testable import AdminCommands
import ArgumentParser
import Foundation
import LaunchAdDomain
import Testing

@Suite("adctl reads times as operators write them", .timeLimit(.minutes(1)))
struct FriendlyTimeTests {
    /// 2027-01-15T08:00:00Z: every relative time below counts from here.
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let nowMilliseconds: Int64 = 1_800_000_000_000

    static func parse(_ text: String) throws -> Timestamp { try FriendlyTime.parse(text, now: now) }

    /// The reason a text is refused, or nil when it is read.
    static func refusal(_ text: String) -> String? {
        do {
            _ = try parse(text)
            return nil
        } catch let error as ValidationError {
            return error.message
        } catch {
            return "unexpected \(error)"
        }
    }

    @Test("now is the given instant, to the millisecond, with spaces around it ignored")
    func now() throws {
        #expect(try Self.parse("now").milliseconds == Self.nowMilliseconds)
        #expect(try Self.parse("  now ").milliseconds == Self.nowMilliseconds)
        let fraction = Date(timeIntervalSince1970: 1_800_000_000.1234)
        #expect(try FriendlyTime.parse("now", now: fraction).milliseconds == 1_800_000_000_123)
    }

    @Test("offsets from now in seconds, minutes, hours and days, forwards and back", arguments: [
        ("+90s", 90_000), ("+2h", 7_200_000), ("-30m", -1_800_000), ("+1d", 86_400_000), ("-1d", -86_400_000),
        ("+1.5h", 5_400_000), ("+0s", 0), ("-0.5s", -500),
    ] as [(String, Int64)])
    func offsets(_ text: String, _ milliseconds: Int64) throws {
        #expect(try Self.parse(text).milliseconds == Self.nowMilliseconds + milliseconds)
    }

    @Test("RFC 3339 with an offset, Z, a fraction, or a space for the T", arguments: [
        ("2026-12-12T00:00:00+08:00", "2026-12-11T16:00:00Z"),
        ("2026-12-12T00:00:00Z", "2026-12-12T00:00:00Z"),
        ("2026-12-12t00:00:00z", "2026-12-12T00:00:00Z"),
        ("2026-12-12T00:00:00.250Z", "2026-12-12T00:00:00.250Z"),
        ("2026-12-12 09:30:15-02:00", "2026-12-12T11:30:15Z"),
    ])
    func rfc3339(_ text: String, _ utc: String) throws {
        #expect(try Self.parse(text).rfc3339 == utc)
    }

    @Test("RFC 3339 with the seconds left out", arguments: [
        ("2026-12-12T00:00+08:00", "2026-12-11T16:00:00Z"),
        ("2026-12-13T00:00Z", "2026-12-13T00:00:00Z"),
        ("2026-12-12 09:30-02:00", "2026-12-12T11:30:00Z"),
    ])
    func withoutSeconds(_ text: String, _ utc: String) throws {
        #expect(try Self.parse(text).rfc3339 == utc)
    }

    @Test("an offset with an unknown unit is refused, naming the units")
    func unknownUnit() {
        #expect(Self.refusal("+2w") == "+2w: use s, m, h or d after the number, as in +2h")
        #expect(Self.refusal("-3y") == "-3y: use s, m, h or d after the number, as in +2h")
    }

    @Test("what is not a time is refused with the forms that are", arguments: [
        "tomorrow", "", "2026-12-12", "2026-12-12T00Z", "2026-13-40T00:00:00Z", "+h", "+-2h", "2h", "12/12/2026 00:00",
    ])
    func notATime(_ text: String) {
        #expect(Self.refusal(text) == "\(text) is not a time: use RFC 3339 (2026-12-12T00:00:00+08:00), now, or +2h / -30m / +1d")
    }
}
