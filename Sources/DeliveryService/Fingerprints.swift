/// The key of the devices' fingerprints: random for an edge's first start, then kept with the devices on disk
/// (``DeviceFile``), so that a fingerprint means the same device after a restart while nobody outside can aim two
/// device ids at one.
struct DeviceKey: Sendable, Equatable {
    static let size = 16
    let k0: UInt64
    let k1: UInt64

    init(k0: UInt64, k1: UInt64) {
        self.k0 = k0
        self.k1 = k1
    }

    static func random() -> DeviceKey {
        var generator = SystemRandomNumberGenerator()
        return DeviceKey(k0: generator.next(), k1: generator.next())
    }

    /// A 64-bit fingerprint of a text: SipHash-1-3 (the rounds of Swift's own `Hasher`) under this key. Never 0. Two
    /// different texts share one by chance only, about once in 2⁶⁴ comparisons.
    func fingerprint(_ text: String) -> UInt64 {
        var text = text
        let value = text.withUTF8 { SipHash.hash(UnsafeRawBufferPointer($0), k0: k0, k1: k1, compressionRounds: 1, finalizationRounds: 3) }
        return value == 0 ? 1 : value
    }
}

/// SipHash (Aumasson and Bernstein), with its rounds as parameters: 1 and 3 for the devices' fingerprints, 2 and 4
/// for the published test vectors.
enum SipHash {
    @inline(__always)
    static func hash(_ bytes: UnsafeRawBufferPointer, k0: UInt64, k1: UInt64, compressionRounds: Int, finalizationRounds: Int) -> UInt64 {
        var v0: UInt64 = 0x736f_6d65_7073_6575 ^ k0
        var v1: UInt64 = 0x646f_7261_6e64_6f6d ^ k1
        var v2: UInt64 = 0x6c79_6765_6e65_7261 ^ k0
        var v3: UInt64 = 0x7465_6462_7974_6573 ^ k1
        @inline(__always) func round() {
            v0 = v0 &+ v1; v1 = v1.rotatedLeft(13); v1 ^= v0; v0 = v0.rotatedLeft(32)
            v2 = v2 &+ v3; v3 = v3.rotatedLeft(16); v3 ^= v2
            v0 = v0 &+ v3; v3 = v3.rotatedLeft(21); v3 ^= v0
            v2 = v2 &+ v1; v1 = v1.rotatedLeft(17); v1 ^= v2; v2 = v2.rotatedLeft(32)
        }
        let count = bytes.count
        var offset = 0
        while offset + 8 <= count {
            let m = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            v3 ^= m
            for _ in 0..<compressionRounds { round() }
            v0 ^= m
            offset += 8
        }
        // The last block: the remaining bytes, and the length's low byte on top.
        var last = UInt64(truncatingIfNeeded: count) << 56
        var shift: UInt64 = 0
        while offset < count {
            last |= UInt64(bytes[offset]) << shift
            shift += 8
            offset += 1
        }
        v3 ^= last
        for _ in 0..<compressionRounds { round() }
        v0 ^= last
        v2 ^= 0xff
        for _ in 0..<finalizationRounds { round() }
        return v0 ^ v1 ^ v2 ^ v3
    }
}

extension UInt64 {
    @inline(__always)
    fileprivate func rotatedLeft(_ bits: UInt64) -> UInt64 { (self << bits) | (self >> (64 - bits)) }
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
