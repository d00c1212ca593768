import LaunchAdAPI
import LaunchAdDomain
import Testing

@Suite("days in an app's time zone", .timeLimit(.minutes(1)))
struct DayZoneTests {
    static func utc(_ text: String) -> Timestamp { Timestamp(rfc3339: text)! }

    @Test("a day starts at local midnight, summer time and half-hour offsets included; the SQL of a day number has a case only where the offset changes")
    func days() throws {
        let newYork = try #require(DayZone(identifier: "America/New_York"))
        #expect(newYork.startOfDay(containing: Self.utc("2026-03-08T12:00:00Z")) == Self.utc("2026-03-08T05:00:00Z"))
        #expect(newYork.startOfDay(containing: Self.utc("2026-03-09T03:59:00Z")) == Self.utc("2026-03-08T05:00:00Z"))
        #expect(newYork.startOfDay(containing: Self.utc("2026-03-09T04:00:00Z")) == Self.utc("2026-03-09T04:00:00Z"))
        let kolkata = try #require(DayZone(identifier: "Asia/Kolkata"))
        #expect(kolkata.startOfDay(containing: Self.utc("2026-12-06T18:30:00Z")) == Self.utc("2026-12-06T18:30:00Z"))
        #expect(DayZone.utc.startOfDay(containing: Self.utc("2026-12-06T23:59:59Z")) == Self.utc("2026-12-06T00:00:00Z"))
        #expect(StatsBucket.day.start(of: Self.utc("2026-12-06T20:00:00Z"), zone: try #require(DayZone(identifier: "Asia/Shanghai")))
                == Self.utc("2026-12-06T16:00:00Z"))
        #expect(DayZone(identifier: "Mars/Olympus") == nil)

        let march = newYork.dayNumberSQL(of: "hour", from: Self.utc("2026-03-01T00:00:00Z"), to: Self.utc("2026-03-31T00:00:00Z"))
        #expect(march == "((hour + CASE WHEN hour < \(Self.utc("2026-03-08T07:00:00Z").milliseconds) THEN -18000000 ELSE -14400000 END) / 86400000)")
        #expect(newYork.dayNumberSQL(of: "hour", from: Self.utc("2026-01-01T00:00:00Z"), to: Self.utc("2026-02-01T00:00:00Z"))
                == "((hour + -18000000) / 86400000)")
        // A day number back to its start, in and out of summer time.
        let day = (Self.utc("2026-03-08T12:00:00Z").milliseconds - 14_400_000) / 86_400_000
        #expect(newYork.startOfDay(number: day) == Self.utc("2026-03-08T05:00:00Z"))
        #expect(newYork.startOfDay(number: day + 1) == Self.utc("2026-03-09T04:00:00Z"))
    }
}
