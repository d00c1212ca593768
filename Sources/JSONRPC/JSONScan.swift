/// Finds the bytes that end a plain run inside a JSON string, eight at a time.
@usableFromInline
enum JSONScan {
    @usableFromInline static let ones: UInt64 = 0x0101_0101_0101_0101
    @usableFromInline static let highs: UInt64 = 0x8080_8080_8080_8080

    /// Flags (in their high bits) the bytes of `word` that are a quote, a backslash, a control character, or
    /// 0x80 and above. Only the lowest flag is exact, which is all a scan needs.
    @inlinable @inline(__always)
    static func specialMask(_ word: UInt64) -> UInt64 {
        let quote = word ^ (0x22 &* ones)
        let backslash = word ^ (0x5C &* ones)
        let control = (word &- 0x20 &* ones) & ~word
        let isQuote = (quote &- ones) & ~quote
        let isBackslash = (backslash &- ones) & ~backslash
        return (control | isQuote | isBackslash | word) & highs
    }

    /// The offset of the first byte in `start..<end` of `base` that is a quote, a backslash, a control character
    /// or non-ASCII; `end` if there is none.
    @inlinable @inline(__always)
    static func firstSpecial(_ base: UnsafeRawPointer, from start: Int, to end: Int) -> Int {
        var index = start
        while index + 8 <= end {
            let mask = specialMask(base.loadUnaligned(fromByteOffset: index, as: UInt64.self).littleEndian)
            if mask != 0 { return index + mask.trailingZeroBitCount / 8 }
            index += 8
        }
        while index < end {
            let byte = base.load(fromByteOffset: index, as: UInt8.self)
            if byte < 0x20 || byte >= 0x80 || byte == 0x22 || byte == 0x5C { return index }
            index += 1
        }
        return end
    }
}
