import JSONRPC
import LaunchAdDomain

/// The bounds on the numbers an edge or a relay sends on the sync socket (report ids, counts, hours, applied seqs,
/// epochs), checked where they enter, by campaignd and by each relay before it passes them on: a peer holding a
/// valid key must not be able to make a receiver's arithmetic overflow, its sums leave 64 bits, or its tables keep
/// what no pruning reaches. Each check throws an invalid-params error naming the field.
public enum PeerNumbers {
    /// The most one count of a report may be: a campaign's impressions, clicks or skips in `counts`, those of one
    /// campaign, hour and creative in `hourly`, or one of an app's counts of an hour in `apps`. 2^40 (about 1.1 × 10^12) is more than any edge counts between two
    /// reports, even after weeks away from campaignd; with ``EdgeReport/maxHourly`` items, one report adds at most
    /// 2^40 × 50 000 ≈ 5.5 × 10^16 to a sum, so a stored sum (below 2^63 ≈ 9.2 × 10^18) needs over 160 of the
    /// largest reports to reach the end of 64 bits, and the stores saturate there rather than overflow.
    public static let maxCount: Int64 = 1 << 40

    /// How far a report id may be ahead of the receiver's clock, in milliseconds: a day. An edge makes its ids from
    /// its clock in milliseconds (one more than its last when the clock went back), so an honest id is near the
    /// receiver's clock; a day covers any clock an edge serves with. The bound keeps ids, and the last id campaignd
    /// answers an edge, some 2^62 below `Int64.max`, so an edge's `lastReportId + 1` cannot overflow, and a key that
    /// sends an id ahead (to make the edge's own reports look resent) can push that edge's ids a day ahead at most.
    public static let reportIdLead: Int64 = 86_400_000

    /// How far ahead of the receiver's clock an hour of counts may start, in milliseconds: 10 minutes of clock
    /// skew, so an edge whose clock is a little ahead may file counts under the hour its clock is in.
    public static let hourLead: Int64 = 600_000

    /// The longest stats retention campaignd takes (`--stats-retention`): a relay, which does not know
    /// campaignd's, refuses hours older than this; campaignd refuses those older than its own.
    public static let maxStatsRetention: Double = 3660 * 86_400

    /// The longest epoch an acknowledgement may carry: stores make epochs of 32 hexadecimal digits.
    public static let maxEpochBytes = 64

    /// The largest seq an edge or a relay takes from upstream in a snapshot: 2^62, which no store reaches (a change a
    /// microsecond for 146 000 years). Changes then follow on one by one, so no `seq + 1` downstream can pass
    /// `Int64.max`.
    public static let maxSeq: Int64 = 1 << 62

    /// Throws unless `seq`, from upstream, is within `0...maxSeq`.
    public static func checkUpstream(seq: Int64) throws {
        guard (0...maxSeq).contains(seq) else { throw UpstreamNumberError(description: "upstream answered seq \(seq), outside 0...\(maxSeq)") }
    }

    /// An upstream's answer with a number outside the bounds: the answer is not taken.
    public struct UpstreamNumberError: Error, CustomStringConvertible {
        public let description: String
    }

    /// The largest report id a receiver whose clock reads `now` takes.
    public static func maxReportId(now: Timestamp) -> Int64 {
        let (sum, overflow) = now.milliseconds.addingReportingOverflow(reportIdLead)
        return overflow ? Int64.max : sum
    }

    /// Checks the numbers of a report: its id, its counts, and its hours against `now` (the receiver's clock) and
    /// `retention` (seconds of hourly counts kept: campaignd's, or ``maxStatsRetention`` at a relay).
    public static func check(_ report: EdgeReport, now: Timestamp, retention: Double) throws(JSONRPCError) {
        guard report.reportId >= 1 else { throw .invalidParams(field: "reportId", "must be positive") }
        let maxId = maxReportId(now: now)
        guard report.reportId <= maxId else {
            throw .invalidParams(field: "reportId", "must be at most \(maxId) (the receiver's clock in milliseconds plus a day)")
        }
        guard report.counts.count <= 10_000 else { throw .invalidParams(field: "counts", "must list at most 10000 campaigns") }
        for (index, item) in report.counts.enumerated() {
            try check(counts: [item.impressions, item.clicks, item.skips] + (item.reasons?.numbers ?? []), field: "counts[\(index)]")
            // An edge leaves the total out (its reasons say it); one given is bounded like the rest.
            if let reports = item.reports { try check(counts: [reports], field: "counts[\(index)].reports") }
        }
        if let hourly = report.hourly {
            guard hourly.count <= EdgeReport.maxHourly else {
                throw .invalidParams(field: "hourly", "must list at most \(EdgeReport.maxHourly) counts")
            }
            for (index, item) in hourly.enumerated() {
                try check(counts: [item.impressions, item.clicks, item.skips] + (item.reasons?.numbers ?? []), field: "hourly[\(index)]")
                try check(hour: item.hour, field: "hourly[\(index)].hour", now: now, retention: retention)
                if let sha256 = item.sha256, !CampaignRules.isSHA256(sha256) {
                    throw .invalidParams(field: "hourly[\(index)].sha256", "must be 64 lowercase hex characters")
                }
            }
        }
        if let hourly = report.hourly { try checkReasons(report.counts, hourly: hourly) }
        if let apps = report.apps {
            guard apps.count <= EdgeReport.maxAppHours else {
                throw .invalidParams(field: "apps", "must list at most \(EdgeReport.maxAppHours) counts")
            }
            var keys = Set<AppHourlyCount.Key>()
            for (index, item) in apps.enumerated() {
                try check(counts: item.numbers, field: "apps[\(index)]")
                try check(hour: item.hour, field: "apps[\(index)].hour", now: now, retention: retention)
                try AppID.validate(item.app, field: "apps[\(index)].app")
                // One count per app and hour, as an edge merges them: the receiver adds each as it comes.
                guard keys.insert(item.key).inserted else { throw .invalidParams(field: "apps[\(index)]", "names its app and hour twice") }
            }
        }
    }

    /// Checks that the reports by reason of each campaign's totals are those of its hours, as an edge makes them
    /// (``HourlyCount/totals(_:)``): campaignd counts the totals' and the hours' apart, so an edge inflating only the
    /// hours (what the threshold reads) is refused, naming the campaign's totals.
    static func checkReasons(_ counts: [CampaignStats], hourly: [HourlyCount]) throws(JSONRPCError) {
        let zero = ReportReasons().numbers
        var byHours: [Int64: [Int64]] = [:]
        for item in HourlyCount.totals(hourly) { byHours[item.id] = item.reasons?.numbers ?? zero }
        var byTotals: [Int64: ReportReasons?] = [:]
        for item in counts { byTotals[item.id] = ReportReasons.merged(byTotals[item.id] ?? nil, item.reasons) }
        for (index, item) in counts.enumerated() where (byTotals[item.id]??.numbers ?? zero) != (byHours[item.id] ?? zero) {
            throw .invalidParams(field: "counts[\(index)].reasons", "must be the sum of campaign \(item.id)'s reasons in hourly")
        }
        for (index, item) in hourly.enumerated() where byTotals[item.id] == nil && (byHours[item.id] ?? zero) != zero {
            throw .invalidParams(field: "hourly[\(index)].reasons", "campaign \(item.id) has reasons by hour and none in counts")
        }
    }

    /// Checks an hour of counts: the start of an hour, not ahead of `now` (but for ``hourLead``), within `retention`.
    static func check(hour time: Timestamp, field: String, now: Timestamp, retention: Double) throws(JSONRPCError) {
        let hour = time.milliseconds
        let earliest = HourlyCount.hour(of: now.adding(seconds: -retention)).milliseconds
        if time != HourlyCount.hour(of: time) { throw .invalidParams(field: field, "must be the start of an hour") }
        if hour > now.milliseconds + hourLead { throw .invalidParams(field: field, "must not be ahead of the receiver's clock") }
        if hour < earliest { throw .invalidParams(field: field, "must be within the stats retention (from \(Timestamp(milliseconds: earliest)))") }
    }

    /// Checks the counts of one item (an impressions, clicks and skips triple, or an app's five counts): each within
    /// 0...``maxCount``.
    static func check(counts: [Int64], field: String) throws(JSONRPCError) {
        for count in counts where count < 0 || count > maxCount {
            throw .invalidParams(field: field, "counts must be between 0 and \(maxCount)")
        }
    }

    /// Checks an acknowledgement's numbers: its seq within `0...seq` (the receiver's own: campaignd's store, a
    /// relay's followed state; nothing below it can have applied more), its epoch short and of letters, digits, `-`
    /// and `_` (empty from an edge that holds no state yet). `field` prefixes the names in errors.
    public static func check(_ ack: EdgeAck, field: String, seq: Int64) throws(JSONRPCError) {
        guard ack.appliedSeq >= 0 else { throw .invalidParams(field: field + "appliedSeq", "must not be negative") }
        guard ack.appliedSeq <= seq else {
            throw .invalidParams(field: field + "appliedSeq", "must be at most \(seq), the receiver's seq")
        }
        guard ack.epoch.utf8.count <= maxEpochBytes else {
            throw .invalidParams(field: field + "epoch", "must be at most \(maxEpochBytes) bytes")
        }
        guard ack.epoch.utf8.allSatisfy(isEpochByte) else {
            throw .invalidParams(field: field + "epoch", "must be letters, digits, '-' and '_'")
        }
    }

    private static func isEpochByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "-"), UInt8(ascii: "_"): true
        default: false
        }
    }
}
