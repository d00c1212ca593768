import Foundation

/// The fields of an `application/x-www-form-urlencoded` body; a field sent twice keeps its first value.
struct FormBody {
    private(set) var fields: [String: String] = [:]

    /// `nil` when the body is not form encoding (a bad percent escape).
    init?(_ text: String) {
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = Self.decode(parts[0]), let value = Self.decode(parts.count > 1 ? parts[1] : "") else { return nil }
            if fields[name] == nil { fields[name] = value }
        }
    }

    subscript(_ name: String) -> String? { fields[name] }

    private static func decode(_ part: Substring) -> String? {
        part.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
