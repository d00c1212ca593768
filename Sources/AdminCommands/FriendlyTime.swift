import ArgumentParser
import Foundation
import LaunchAdDomain

/// Times as operators write them: RFC 3339 (seconds optional), `now`, or an offset from now such as `+2h`.
enum FriendlyTime {
    static func parse(_ text: String, now: Date = Date()) throws -> Timestamp {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let nowStamp = Timestamp(seconds: now.timeIntervalSince1970)
        if trimmed == "now" { return nowStamp }
        if let sign = trimmed.first, sign == "+" || sign == "-", let unit = trimmed.last,
           let amount = Double(trimmed.dropFirst().dropLast()), amount >= 0 {
            let seconds: Double
            switch unit {
            case "s": seconds = amount
            case "m": seconds = amount * 60
            case "h": seconds = amount * 3600
            case "d": seconds = amount * 86_400
            default: throw ValidationError("\(text): use s, m, h or d after the number, as in +2h")
            }
            return nowStamp.adding(seconds: sign == "+" ? seconds : -seconds)
        }
        if let stamp = Timestamp(rfc3339: trimmed) { return stamp }
        // 2026-12-12T00:00+08:00: seconds left out.
        if let t = trimmed.firstIndex(of: "T") ?? trimmed.firstIndex(of: " "),
           trimmed[trimmed.index(after: t)...].prefix(while: { $0 != "Z" && $0 != "+" && $0 != "-" && $0 != "z" }).count == 5 {
            let time = trimmed.index(t, offsetBy: 6)
            if let stamp = Timestamp(rfc3339: String(trimmed[..<time]) + ":00" + String(trimmed[time...])) { return stamp }
        }
        throw ValidationError("\(text) is not a time: use RFC 3339 (2026-12-12T00:00:00+08:00), now, or +2h / -30m / +1d")
    }
}
