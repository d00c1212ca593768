import JSONRPC
import LaunchAdDomain

/// Reports of a campaign's ad (`launch.report` kind `reported`) counted by reason: what an edge ships with its counts
/// (``HourlyCount/reasons``, ``CampaignStats/reasons``) and what campaignd answers.
public struct ReportReasons: Sendable, Codable, Hashable {
    public var inappropriate: Int64
    public var misleading: Int64
    public var repetitive: Int64
    public var other: Int64

    public init(inappropriate: Int64 = 0, misleading: Int64 = 0, repetitive: Int64 = 0, other: Int64 = 0) {
        self.inappropriate = inappropriate
        self.misleading = misleading
        self.repetitive = repetitive
        self.other = other
    }

    /// One report of `reason`.
    public init(one reason: ReportReason) {
        self.init()
        self[reason] = 1
    }

    /// The count of one reason.
    public subscript(reason: ReportReason) -> Int64 {
        get {
            switch reason {
            case .inappropriate: inappropriate
            case .misleading: misleading
            case .repetitive: repetitive
            case .other: other
            }
        }
        set {
            switch reason {
            case .inappropriate: inappropriate = newValue
            case .misleading: misleading = newValue
            case .repetitive: repetitive = newValue
            case .other: other = newValue
            }
        }
    }

    /// The counts in the order of ``ReportReason/allCases``.
    public var numbers: [Int64] { ReportReason.allCases.map { self[$0] } }

    /// Every reason's count together, stopping at `Int64.max` (as the stores' sums do).
    public var total: Int64 { numbers.reduce(0) { $0.addingSaturated($1) } }

    /// Adds `other`'s counts, each stopping at `Int64.max`.
    public mutating func add(_ other: ReportReasons?) {
        guard let other else { return }
        for reason in ReportReason.allCases { self[reason] = self[reason].addingSaturated(other[reason]) }
    }

    /// `base` with `other` added, `nil` when both are (no report: the member stays out of the JSON).
    public static func merged(_ base: ReportReasons?, _ other: ReportReasons?) -> ReportReasons? {
        guard let other else { return base }
        var sum = base ?? ReportReasons()
        sum.add(other)
        return sum
    }
}

extension ReportReasons: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema { jsonSchema(maxCount: nil) }

    /// The schema with each count at most `maxCount` (an edge's report: ``PeerNumbers/maxCount``).
    static func jsonSchema(maxCount: Int64?) -> JSONSchema {
        .object(properties: ReportReason.allCases.map { ($0.rawValue, .integer(minimum: 0, maximum: maxCount)) },
                required: ReportReason.allCases.map(\.rawValue), description: "Reports of the ad (launch.report kind reported) by reason.")
    }
}
