/// A small, fast, seeded random number generator (SplitMix64): the same seed gives the same sequence, so a load
/// run, a fuzzing input or a failing test can be repeated from its seed.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// An index in `0..<count`, without the bias of a plain modulo worth caring about for load generation.
    @inline(__always)
    public mutating func index(_ count: Int) -> Int {
        Int(truncatingIfNeeded: next().multipliedFullWidth(by: UInt64(count)).high)
    }

    /// True with probability `share` (0...1).
    @inline(__always)
    public mutating func chance(_ share: Double) -> Bool {
        Double(next() >> 11) * 0x1.0p-53 < share
    }
}
