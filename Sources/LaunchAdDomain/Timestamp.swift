#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An instant, to the millisecond, written in JSON as RFC 3339 text (`2026-12-12T00:00:00Z`).
///
/// Parsing is strict RFC 3339 (a date, `T`, a time with seconds, optional fraction, and `Z` or a numeric offset);
/// writing is always UTC with milliseconds when there are any.
public struct Timestamp: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// Milliseconds since 1970-01-01T00:00:00Z.
    public var milliseconds: Int64

    public init(milliseconds: Int64) {
        self.milliseconds = milliseconds
    }

    public init(seconds: Double) {
        milliseconds = Int64((seconds * 1000).rounded())
    }

    /// The system's wall clock now, to the nearest millisecond, moved by `offset` seconds (read without going
    /// through `Date` and floating point: the launch query reads it on every query).
    public static func now(offset: Double = 0) -> Timestamp {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        let now = Timestamp(milliseconds: Int64(time.tv_sec) * 1000 + (Int64(time.tv_nsec) + 500_000) / 1_000_000)
        return offset == 0 ? now : now.adding(seconds: offset)
    }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool { lhs.milliseconds < rhs.milliseconds }

    /// This instant moved by `seconds`.
    public func adding(seconds: Double) -> Timestamp {
        Timestamp(milliseconds: milliseconds + Int64((seconds * 1000).rounded()))
    }

    /// Seconds from this instant to `other`.
    public func seconds(until other: Timestamp) -> Double { Double(other.milliseconds - milliseconds) / 1000 }

    // MARK: RFC 3339

    /// Parses RFC 3339 text; `nil` when it is not one.
    public init?(rfc3339 text: String) {
        let bytes = Array(text.utf8)
        var index = 0
        func digits(_ count: Int) -> Int? {
            guard index + count <= bytes.count else { return nil }
            var value = 0
            for _ in 0..<count {
                let digit = Int(bytes[index]) - 48
                guard digit >= 0 && digit <= 9 else { return nil }
                value = value * 10 + digit
                index += 1
            }
            return value
        }
        func expect(_ characters: String) -> Bool {
            guard index < bytes.count, characters.utf8.contains(bytes[index]) else { return false }
            index += 1
            return true
        }
        guard let year = digits(4), expect("-"), let month = digits(2), expect("-"), let day = digits(2),
              expect("Tt "), let hour = digits(2), expect(":"), let minute = digits(2), expect(":"), let second = digits(2)
        else { return nil }
        var millis = 0
        if index < bytes.count && bytes[index] == UInt8(ascii: ".") {
            index += 1
            var scale = 100
            var any = false
            while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
                millis += Int(bytes[index] - 48) * scale
                scale /= 10
                index += 1
                any = true
            }
            guard any else { return nil }
        }
        var offsetMinutes = 0
        if expect("Zz") {
            offsetMinutes = 0
        } else if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            let negative = bytes[index] == UInt8(ascii: "-")
            index += 1
            guard let hours = digits(2), expect(":"), let minutes = digits(2), hours <= 23, minutes <= 59 else { return nil }
            offsetMinutes = (hours * 60 + minutes) * (negative ? -1 : 1)
        } else {
            return nil
        }
        guard index == bytes.count, (1...12).contains(month), day >= 1, day <= Self.daysIn(month: month, year: year),
              hour <= 23, minute <= 59, second <= 60 else { return nil }
        let days = Self.daysFromCivil(year: year, month: month, day: day)
        let seconds = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + min(second, 59)) - Int64(offsetMinutes * 60)
        milliseconds = seconds * 1000 + Int64(millis)
    }

    /// The instant as RFC 3339 text in UTC.
    public var rfc3339: String {
        let totalSeconds = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
        let millis = Int(milliseconds - totalSeconds * 1000)
        var days = Int(totalSeconds >= 0 ? totalSeconds / 86_400 : (totalSeconds - 86_399) / 86_400)
        var secondOfDay = Int(totalSeconds - Int64(days) * 86_400)
        if secondOfDay < 0 { secondOfDay += 86_400; days -= 1 }
        let (year, month, day) = Self.civilFromDays(days)
        let (hour, minute, second) = (secondOfDay / 3600, secondOfDay / 60 % 60, secondOfDay % 60)
        guard (0...9999).contains(year) else {
            // A year of another width, which no campaign has: its digits as they are, the other fields padded.
            func pad(_ value: Int, _ width: Int) -> String {
                let text = String(value)
                return String(repeating: "0", count: max(0, width - text.count)) + text
            }
            var text = "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2))"
            if millis != 0 { text += ".\(pad(millis, 3))" }
            return text + "Z"
        }
        // Every campaign, change and answer writes several of these: digits into one buffer, not a string a field.
        return String(unsafeUninitializedCapacity: 24) { buffer in
            var end = 0
            func digits(_ value: Int, _ width: Int) {
                var rest = value
                for place in stride(from: end + width - 1, through: end, by: -1) {
                    buffer[place] = UInt8(ascii: "0") + UInt8(rest % 10)
                    rest /= 10
                }
                end += width
            }
            func byte(_ character: Unicode.Scalar) {
                buffer[end] = UInt8(ascii: character)
                end += 1
            }
            digits(year, 4); byte("-"); digits(month, 2); byte("-"); digits(day, 2); byte("T")
            digits(hour, 2); byte(":"); digits(minute, 2); byte(":"); digits(second, 2)
            if millis != 0 { byte("."); digits(millis, 3) }
            byte("Z")
            return end
        }
    }

    public var description: String { rfc3339 }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let parsed = Timestamp(rfc3339: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                                    debugDescription: "\"\(text)\" is not an RFC 3339 time such as 2026-12-12T00:00:00Z"))
        }
        self = parsed
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rfc3339)
    }

    // Howard Hinnant's days-from-civil algorithms.
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The year, month (1 to 12) and day of the month of `days` since 1970-01-01 (the proleptic Gregorian calendar).
    public static func civilFromDays(_ days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}

/// Where a service reads the time: the system's wall clock in production, a controlled one in tests. Named so that
/// it does not shadow the standard library's `Clock` protocol.
public typealias WallClock = @Sendable () -> Timestamp

extension Timestamp {
    /// The system's wall clock.
    public static let systemClock: WallClock = { Timestamp.now() }
}
