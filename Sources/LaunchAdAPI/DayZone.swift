import Foundation
import JSONRPC
import LaunchAdDomain

/// Where the days of a stats series begin: an app's time zone (`app.set`'s `timezone`), whose offset from UTC may
/// change within a span (summer time).
///
/// Counts are kept by UTC hour, so a day is made of the hours whose start falls in it: in a zone whose offset is not
/// a whole number of hours (Asia/Kolkata), a day's counts run from the first hour that starts after its midnight.
public struct DayZone: Sendable, Hashable {
    /// The zone's IANA name.
    public let identifier: String
    private let calendar: Calendar

    /// UTC, where days begin at 00:00Z.
    public static let utc = DayZone(identifier: "UTC", zone: TimeZone(secondsFromGMT: 0)!)

    /// The zone named `identifier`, or nil when this machine's time zone database does not know it.
    public init?(identifier: String) {
        guard let zone = TimeZone(identifier: identifier) else { return nil }
        self.init(identifier: identifier, zone: zone)
    }

    /// Named as the app names it (Foundation may call UTC "GMT").
    private init(identifier: String, zone: TimeZone) {
        self.identifier = identifier
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        self.calendar = calendar
    }

    /// The instant the local day holding `time` began.
    public func startOfDay(containing time: Timestamp) -> Timestamp {
        let start = calendar.startOfDay(for: Date(timeIntervalSince1970: Double(time.milliseconds) / 1000))
        return Timestamp(milliseconds: Int64((start.timeIntervalSince1970 * 1000).rounded()))
    }

    /// The instant the local day holding `time` ends: the next day's midnight (23 or 25 hours on a day summer time
    /// begins or ends).
    public func endOfDay(containing time: Timestamp) -> Timestamp {
        let start = calendar.startOfDay(for: Date(timeIntervalSince1970: Double(time.milliseconds) / 1000))
        let next = calendar.date(byAdding: .day, value: 1, to: start) ?? start.addingTimeInterval(86_400)
        return Timestamp(milliseconds: Int64((next.timeIntervalSince1970 * 1000).rounded()))
    }

    /// The offset from UTC at `milliseconds` since 1970, in milliseconds.
    func offset(at milliseconds: Int64) -> Int64 {
        Int64(calendar.timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(milliseconds) / 1000))) * 1000
    }

    /// A run of hours with one offset: from `start` (UTC milliseconds, `Int64.min` for the first) to the next one's.
    struct Segment: Hashable {
        var start: Int64
        var offset: Int64
    }

    /// The offsets in force over the hours from `from` to `to`, one segment per change, read hour by hour (a zone
    /// may change its offset for reasons other than summer time, so the database is asked rather than its rules).
    func offsetsSegments(from: Timestamp, to: Timestamp) -> [Segment] {
        let hour = HourlyCount.hourMilliseconds
        var at = HourlyCount.floorDiv(from.milliseconds, hour) * hour
        var segments = [Segment(start: .min, offset: offset(at: at))]
        while at < to.milliseconds {
            at += hour
            let next = offset(at: at)
            if next != segments[segments.count - 1].offset { segments.append(Segment(start: at, offset: next)) }
        }
        return segments
    }

    /// An SQL expression of the local day number (days since 1970-01-01 in this zone) of the hour in `column`, for
    /// the hours from `from` to `to`: integer literals only, computed here, never from a caller's text.
    package func dayNumberSQL(of column: String, from: Timestamp, to: Timestamp) -> String {
        let segments = offsetsSegments(from: from, to: to)
        let offset: String
        if segments.count == 1 {
            offset = "\(segments[0].offset)"
        } else {
            let cases = zip(segments, segments.dropFirst()).map { "WHEN \(column) < \($1.start) THEN \($0.offset)" }
            offset = "CASE \(cases.joined(separator: " ")) ELSE \(segments[segments.count - 1].offset) END"
        }
        return "((\(column) + \(offset)) / \(Self.dayMilliseconds))"
    }

    /// The instant the local day numbered `day` (as ``dayNumberSQL(of:from:to:)`` counts) began.
    package func startOfDay(number day: Int64) -> Timestamp {
        // Local noon of that day, taken to UTC with the offset there, is inside the day whatever its offset at midnight.
        let noon = day * Self.dayMilliseconds + Self.dayMilliseconds / 2
        return startOfDay(containing: Timestamp(milliseconds: noon - offset(at: noon)))
    }

    static let dayMilliseconds = 24 * HourlyCount.hourMilliseconds
}
