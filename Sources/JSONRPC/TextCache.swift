/// Short strings read from requests, made once and then reused: the values clients repeat from call to call (an
/// app's name, a region, a locale) cost a table lookup instead of a new string each time.
///
/// A direct-mapped table of the strings of 256 texts of at most 15 bytes, keyed by their bytes: a new text takes the
/// place of the one in its slot. Longer texts are made afresh every time. (Such a short text of plain ASCII, which
/// is all a compact reader reads, makes a string held inline, so a hit copies no storage and counts no reference.)
/// It belongs to one thread (one per ``JSONRPCDispatcher/Scratch``).
public final class TextCache {
    /// Slots in the table (a power of two).
    public static let capacity = 256
    /// The longest text kept.
    public static let longest = 15

    // A key packs a text's bytes (the first eight in `low`, the rest in `high`) and its length (the top byte of
    // `high`), so two keys are equal exactly when their texts are. Every slot starts as the empty text.
    private let keys: UnsafeMutablePointer<(low: UInt64, high: UInt64)>
    private let values: UnsafeMutablePointer<String>

    public init() {
        keys = .allocate(capacity: Self.capacity)
        keys.initialize(repeating: (0, 0), count: Self.capacity)
        values = .allocate(capacity: Self.capacity)
        values.initialize(repeating: "", count: Self.capacity)
    }

    deinit {
        keys.deinitialize(count: Self.capacity)
        keys.deallocate()
        values.deinitialize(count: Self.capacity)
        values.deallocate()
    }

    /// The string of `bytes` decoded as UTF-8 (invalid sequences replaced): what `String(decoding:as:)` makes.
    public func string(_ bytes: UnsafeRawBufferPointer) -> String {
        let count = bytes.count
        guard count <= Self.longest, let base = bytes.baseAddress else { return String(decoding: bytes, as: UTF8.self) }
        let (low, rest) = Self.pack(base, count: count)
        let high = rest | UInt64(count) << 56
        let slot = Int(truncatingIfNeeded: ((low ^ (high &* 0xC2B2_AE3D_27D4_EB4F)) &* 0x9E37_79B9_7F4A_7C15) >> 56)
        let key = keys[slot]
        if key.low == low && key.high == high { return values[slot] }
        let text = String(decoding: bytes, as: UTF8.self)
        keys[slot] = (low, high)
        values[slot] = text
        return text
    }

    /// The bytes of a text of at most 15 bytes as two little-endian words, the first eight in `low` and the rest in
    /// `high` (zeros above them), loaded a word or half a word at a time: overlapping loads read only the text's own
    /// bytes, and where they overlap they hold the same bytes.
    @inline(__always)
    static func pack(_ base: UnsafeRawPointer, count: Int) -> (low: UInt64, high: UInt64) {
        func byte(_ offset: Int) -> UInt64 { UInt64(base.load(fromByteOffset: offset, as: UInt8.self)) }
        switch count {
        case 9...:
            // Bytes count-8 ..< count, shifted so that byte 8 is the lowest.
            let last = base.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self)
            return (base.loadUnaligned(as: UInt64.self), last >> (8 &* UInt64(16 &- count)))
        case 8:
            return (base.loadUnaligned(as: UInt64.self), 0)
        case 4...7:
            let first = UInt64(base.loadUnaligned(as: UInt32.self))
            let last = UInt64(base.loadUnaligned(fromByteOffset: count &- 4, as: UInt32.self))
            return (first | last << (8 &* UInt64(count &- 4)), 0)
        case 1...3:
            let middle = count >> 1
            return (byte(0) | byte(middle) << (8 &* UInt64(middle)) | byte(count &- 1) << (8 &* UInt64(count &- 1)), 0)
        default:
            return (0, 0)
        }
    }
}
