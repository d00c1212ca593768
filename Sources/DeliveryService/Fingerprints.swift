/// A 64-bit fingerprint of a text: SipHash under this process's random seed, so nobody outside can aim two texts
/// at one fingerprint. Never 0. Two different texts share one by chance only, about once in 2⁶⁴ comparisons.
/// (64 bits where `Int` has them, as on every platform the edge is built for; and the seed is random unless the
/// process runs with `SWIFT_DETERMINISTIC_HASHING` set, which nobody should do to an edge.)
func fingerprint(_ text: String) -> UInt64 {
    var text = text
    var hasher = Hasher()
    text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    let value = UInt64(UInt(bitPattern: hasher.finalize()))
    return value == 0 ? 1 : value
}

/// The slots of a generation of `generation` keys in a fingerprint table: the power of two at least twice that, so a
/// generation is never more than half full and a probe always ends at an empty slot.
func fingerprintSlots(_ generation: Int) -> Int { powerOfTwo(atLeast: 2 * generation) }

/// The least power of two, from 2 up, that is at least `count`.
func powerOfTwo(atLeast count: Int) -> Int {
    var value = 2
    while value < count { value <<= 1 }
    return value
}
