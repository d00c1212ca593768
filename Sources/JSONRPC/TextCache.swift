/// Short strings read from requests: the values clients repeat from call to call (an app's name, a region, a
/// locale) cost no new string each time.
///
/// A text of plain ASCII of at most 15 bytes (all that a compact reader reads, at that length) is made in place,
/// which costs less than any lookup (see ``inlineASCII(_:)``). Other texts of at most 15 bytes go through a
/// direct-mapped table of the strings of 256 texts, keyed by their bytes: a new text takes the place of the one in
/// its slot. Longer texts are made afresh every time. It belongs to one thread (one per
/// ``JSONRPCDispatcher/Scratch``).
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

    /// The string of `bytes` decoded as UTF-8 (invalid sequences replaced): what `String(decoding:as:)` makes. A
    /// text of plain ASCII is made in place (``inlineASCII(_:)``), without the table.
    public func string(_ bytes: UnsafeRawBufferPointer) -> String {
        let count = bytes.count
        guard count <= Self.longest, let base = bytes.baseAddress else { return String(decoding: bytes, as: UTF8.self) }
        let (low, rest) = Self.pack(base, count: count)
        if let inline = Self.inline(low, rest, count: count) { return inline }
        let high = rest | UInt64(count) << 56
        let slot = Int(truncatingIfNeeded: ((low ^ (high &* 0xC2B2_AE3D_27D4_EB4F)) &* 0x9E37_79B9_7F4A_7C15) >> 56)
        let key = keys[slot]
        if key.low == low && key.high == high { return values[slot] }
        let text = String(decoding: bytes, as: UTF8.self)
        keys[slot] = (low, high)
        values[slot] = text
        return text
    }

    /// The string of a text of plain ASCII of at most ``longest`` bytes (what `String(decoding:as:)` makes of it),
    /// made straight in the form the standard library keeps such a string in: its bytes and its count in the
    /// string's own two words, with no storage and nothing to count. `nil` for any other text, or where strings
    /// are not two words. Much cheaper than decoding, which validates the bytes and copies them one call deeper,
    /// and than the table, which hashes and compares them: the members a launch query repeats (its app, region,
    /// locale, often its device) are such texts. Inlinable, with what it uses: a call and a lazy constant's check
    /// cost as much as the making.
    @inlinable @inline(__always)
    public static func inlineASCII(_ bytes: UnsafeRawBufferPointer) -> String? {
        let count = bytes.count
        guard inlineForm, count <= 15, let base = bytes.baseAddress else { return count == 0 ? "" : nil }
        let (low, rest) = pack(base, count: count)
        let made = inline(low, rest, count: count)
        assert(made.map { Array($0.utf8) == Array(bytes) } ?? true, "an inline string that is not its text")
        return made
    }

    /// A packed text (``pack(_:count:)``) as an inline string, if it is plain ASCII.
    @inlinable @inline(__always)
    static func inline(_ low: UInt64, _ rest: UInt64, count: Int) -> String? {
        guard inlineForm, (low | rest) & 0x8080_8080_8080_8080 == 0 else { return nil }
        return unsafeBitCast((low, rest | inlineMark(count: count)), to: String.self)
    }

    /// The top byte of an inline ASCII string's second word: immortal, ASCII and inline (0xE), then the count.
    @inlinable @inline(__always)
    static func inlineMark(count: Int) -> UInt64 { (0xE0 | UInt64(count)) << 56 }

    /// Whether strings are made here in their inline form: where a string is two words (64-bit platforms, whose
    /// layout of a short string is part of the standard library's ABI). A constant the compiler folds; the tests
    /// check the form against strings the library makes, of every length (and debug builds check each one made).
    @inlinable
    static var inlineForm: Bool { MemoryLayout<String>.size == 16 && MemoryLayout<(UInt64, UInt64)>.size == 16 }

    /// The bytes of a text of at most 15 bytes as two little-endian words, the first eight in `low` and the rest in
    /// `high` (zeros above them), loaded a word or half a word at a time: overlapping loads read only the text's own
    /// bytes, and where they overlap they hold the same bytes.
    @inlinable @inline(__always)
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
