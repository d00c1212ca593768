import JSONRPC

/// The rule for a region, wherever one comes in: a campaign's `targeting.regions`, a launch query's, prefetch's or
/// explanation's `region` (ZeroMQ, `/rpc` and `GET /launch-ad`), deliveryd's and relayd's `--region`, and the region an
/// acknowledgement or a report carries. They are one name space: campaigns target the regions that edges serve and
/// `campaign.stats` splits by, so one rule keeps a region that one of them takes from being refused by another.
///
/// A region is never empty: "no region" is said by leaving the field out (a query, a report), never by `""`.
/// Letters count in any case (`CN-East` is `cn-east`); a campaign keeps its regions in lower case (``lowercased(_:)``).
public enum Region: NameRule {
    public static let maxBytes = 32
    public static let rule = "1 to \(maxBytes) of A-Z, a-z, 0-9 and '-', starting with a letter or digit"
    public static let pattern = "^[A-Za-z0-9][A-Za-z0-9-]{0,\(maxBytes - 1)}$"

    /// Whether `region` keeps the rule. A byte loop with no allocation: every launch query with a region runs it.
    public static func isValid(_ region: String) -> Bool {
        // The bytes in place (a native string always has them): a third of the time of a copy made to call withUTF8.
        region.utf8.withContiguousStorageIfAvailable(isValid(bytes:)) ?? isValid(bytes: region.utf8)
    }

    private static func isValid(bytes: some Collection<UInt8>) -> Bool {
        guard let first = bytes.first, bytes.count <= maxBytes, isLetterOrDigit(first) else { return false }
        for byte in bytes where !isLetterOrDigit(byte) && byte != UInt8(ascii: "-") { return false }
        return true
    }

    /// `region` in lower case, as a campaign targets it (its ASCII letters only: the rule admits no others).
    public static func lowercased(_ region: String) -> String {
        // ASCII's capitals alone: Unicode's lower-casing would fold other letters (a Kelvin sign into `k`) into a region
        // the rule refuses as given.
        func isCapital(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") }
        guard region.utf8.contains(where: isCapital) else { return region }
        return String(decoding: region.utf8.map { isCapital($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    private static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        // ASCII letters of either case: setting bit 5 folds A-Z onto a-z.
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
    }
}

extension Targeting {
    /// The targeting with its regions in lower case: what a campaign keeps, so the decision engine compares a
    /// request's region, in any case, with lower-case names only.
    var regionsLowercased: Targeting {
        var targeting = self
        targeting.regions = regions?.map(Region.lowercased)
        return targeting
    }
}
