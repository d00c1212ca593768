import LaunchAdAPI
import LaunchAdDomain

/// What a campaignd from before the bounds on peers' numbers (``PeerNumbers``) may have stored, put back within them
/// when a store opens, in either engine: statements cheap enough for every start (the tables of edges are one row an
/// edge; far-future hours are found by the hour's index; `stats` is one row a campaign).
enum PeerNumberRepair {
    /// The statements, for a store whose clock reads `now`.
    static func statements(now: Timestamp) -> [String] {
        [
            // A last report id beyond what campaignd takes now would refuse the edge's every report (and, answered
            // to an edge from before the bound, made it overflow): ids go on from the clock.
            "UPDATE edge_reports SET last_report_id = \(now.milliseconds) WHERE last_report_id > \(PeerNumbers.maxReportId(now: now))",
            // An acknowledgement with a negative seq (which the edges' lag, the store's seq minus it, cannot take) or
            // a long epoch is forgotten: the edge's next one (within a heartbeat) is saved. One ahead of the seq is
            // left to the edge's next acknowledgement, which replaces it: a store's acknowledgements may be ahead of
            // its seq (a database restored from a backup).
            "DELETE FROM edge_acks WHERE applied_seq < 0 OR length(epoch) > \(PeerNumbers.maxEpochBytes)",
            // Hours ahead of the clock: the pruning of old hours would never reach them.
            "DELETE FROM stats_hourly WHERE hour > \(now.milliseconds + PeerNumbers.hourLead)",
        ]
    }

    /// SQLite's alone: a sum that overflowed became a floating-point value, which no 64-bit read takes (PostgreSQL
    /// refused such a sum instead). Counts are never negative, so such a value was past `Int64.max`, where sums now
    /// stop. (Hourly rows are read through ``SaturatingSum``, which takes such a value as `Int64.max`.)
    static let sqliteStats: [String] = ["impressions", "clicks", "skips"].map { column in
        "UPDATE stats SET \(column) = \(Int64.max) WHERE typeof(\(column)) <> 'integer'"
    }
}
