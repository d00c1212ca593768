import JSONRPC

/// The rule for an app's id, wherever one comes in: a campaign's `app`, the `app` of a launch query, prefetch,
/// explanation and report event, `app.stats` and `campaign.list`, and the per-app counts an edge's report carries.
///
/// Lower-case only, with no rule on the first byte: launch queries and reports have always taken any of these bytes
/// first, and campaignd keeps per-app counts of such ids, so a stricter rule would refuse ids the system holds.
public enum AppID: NameRule {
    public static let maxBytes = 64
    public static let rule = "1 to \(maxBytes) of a-z, 0-9, '.', '_' and '-'"
    public static let pattern = "^[a-z0-9._-]{1,\(maxBytes)}$"

    /// Whether `app` keeps the rule. A byte loop with no allocation: every launch query runs it.
    public static func isValid(_ app: String) -> Bool {
        // The bytes in place, as ``Region/isValid(_:)`` reads them.
        app.utf8.withContiguousStorageIfAvailable(isValid(bytes:)) ?? isValid(bytes: app.utf8)
    }

    private static func isValid(bytes: some Collection<UInt8>) -> Bool {
        guard !bytes.isEmpty, bytes.count <= maxBytes else { return false }
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                continue
            default:
                return false
            }
        }
        return true
    }
}
