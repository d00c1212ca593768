extension Int64 {
    /// `self + other`, stopping at `Int64.max` (or `Int64.min`) instead of trapping: for sums of counts that edges
    /// report, which campaignd's stores keep saturated at `Int64.max` rather than let overflow.
    public func addingSaturated(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other < 0 ? .min : .max) : sum
    }
}
