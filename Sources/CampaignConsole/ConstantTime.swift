/// Comparison of secrets whose time depends on their lengths only, never on where they differ.
enum ConstantTime {
    /// Whether `a` and `b` hold the same bytes, looking at every byte of `a` whatever `b` holds.
    static func equals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(truncatingIfNeeded: a.count ^ b.count)
        if a.count != b.count { difference |= 1 }
        for index in a.indices {
            difference |= a[index] ^ (index < b.count ? b[index] : 0)
        }
        return difference == 0
    }

    static func equals(_ a: String, _ b: String) -> Bool { equals(Array(a.utf8), Array(b.utf8)) }

    /// `count` random bytes as lowercase hex, from the system's secure generator.
    static func randomHex(bytes count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        var text = ""
        text.reserveCapacity(count * 2)
        for _ in 0..<count {
            let byte = UInt8.random(in: .min ... .max, using: &generator)
            text += String(byte >> 4, radix: 16) + String(byte & 0xf, radix: 16)
        }
        return text
    }
}
