/// Percentiles of a set of delays, in milliseconds.
public struct DelayStatistics: Codable, Sendable, Equatable {
    public var samples: Int
    public var p50Milliseconds: Double
    public var p90Milliseconds: Double
    public var p99Milliseconds: Double
    public var maxMilliseconds: Double
    public var meanMilliseconds: Double

    /// Nearest-rank percentiles of `delays` (seconds).
    public init(_ delays: [Double]) {
        let sorted = delays.sorted()
        samples = sorted.count
        func rank(_ percent: Double) -> Double {
            guard !sorted.isEmpty else { return 0 }
            let index = min(sorted.count, max(1, Int((percent / 100 * Double(sorted.count)).rounded(.up)))) - 1
            return round3(sorted[index] * 1000)
        }
        p50Milliseconds = rank(50)
        p90Milliseconds = rank(90)
        p99Milliseconds = rank(99)
        maxMilliseconds = round3((sorted.last ?? 0) * 1000)
        meanMilliseconds = sorted.isEmpty ? 0 : round3(sorted.reduce(0, +) / Double(sorted.count) * 1000)
    }
}

/// `value` rounded to three decimals.
func round3(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }
