/// The 64-bit FNV-1a hash: cheap, unseeded and the same in every process, for the choices that must be stable
/// across edges and restarts (a device's seed, a variant's key) and for the edge's table of apps. Inlined into its
/// callers, as the loops it replaced were: two of them run on every launch query.
public enum FNV1a {
    public static let offsetBasis: UInt64 = 0xCBF2_9CE4_8422_2325
    public static let prime: UInt64 = 0x0000_0100_0000_01B3

    /// The hash of `bytes`, continued from `hash`.
    @inlinable @inline(__always)
    public static func hash(_ bytes: UnsafeBufferPointer<UInt8>, from hash: UInt64 = offsetBasis) -> UInt64 {
        var hash = hash
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* prime }
        return hash
    }

    /// The hash of a string's UTF-8, over its contiguous bytes (a short string's are copied out once) rather than
    /// through the string's byte view, which costs several times as much per byte.
    @inlinable @inline(__always)
    public static func hash(_ text: consuming String) -> UInt64 {
        // Consumed, so the caller's string (often a temporary) is not copied a second time to reach its bytes.
        text.withUTF8 { hash($0) }
    }
}
