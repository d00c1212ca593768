import Foundation

/// A span of time as an operator writes it on a command line: a number and a unit, `90s`, `30m`, `24h`, `7d` (a plain
/// number is seconds).
public enum DurationText {
    /// The seconds `text` names, or `nil` when it is not a non-negative number with one of the units s, m, h, d.
    public static func seconds(_ text: String) -> Double? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let last = trimmed.last else { return nil }
        let unit: Double
        var number = Substring(trimmed)
        switch last {
        case "s": unit = 1
        case "m": unit = 60
        case "h": unit = 3600
        case "d": unit = 86_400
        default: unit = 1
        }
        if last.isLetter { number = number.dropLast() }
        guard !number.isEmpty, number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), let amount = Double(number),
              amount.isFinite else { return nil }
        return amount * unit
    }
}
