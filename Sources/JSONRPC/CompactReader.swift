/// A forward reader of compact JSON, the shape client libraries send: no whitespace, strings of plain ASCII (no
/// escapes, nothing below a space), integers without a fraction or an exponent. A method's compact reader (see
/// ``MethodTable/register(_:reading:checking:compact:writing:)``) reads its params with it straight from the
/// request's bytes, with no tape.
///
/// Every read either takes a value of exactly that shape or returns `nil` (or `false`), and a caller that gets one
/// gives up on the message: the dispatcher then handles it the general way, from the start. So the compact way
/// answers only messages that the general way would answer the same, and anything else (whitespace, an escape,
/// a duplicate or unknown member, an error to report) is the general way's to answer, with its exact errors.
public struct CompactReader {
    /// The deepest nesting a compact call may have: the call, its params, an object or array inside them, and
    /// objects in such an array (a method's compact reader reads nothing deeper).
    public static let maxDepth = 4

    // Inlinable, with what it reads: methods' compact readers live in other modules, and a call per byte or per
    // member would cost more than the reading.
    @usableFromInline let base: UnsafeRawPointer
    @usableFromInline let end: Int
    @usableFromInline var position: Int
    /// Where ``text(_:)`` finds the strings it made before, if anywhere. Unmanaged: the cache outlives the reader (the
    /// dispatcher's scratch holds it), and held strongly it was retained and released by every copy of the reader
    /// (a member source holds one) and every string read through it.
    @usableFromInline let texts: Unmanaged<TextCache>?

    /// The offset of the next byte.
    @inlinable public var offset: Int { position }

    /// A reader of `bytes`.
    public init(_ bytes: UnsafeRawBufferPointer) {
        self.init(bytes, texts: nil)
    }

    /// A reader of `bytes`; `texts` keeps the strings that ``text(_:)`` makes, for the next calls read on this thread,
    /// and must outlive the reader (held unretained; so not public: the dispatcher's scratch is the one owner).
    package init(_ bytes: UnsafeRawBufferPointer, texts: TextCache?) {
        // An empty buffer may have no address; any address will do, since nothing is read past `end`.
        base = bytes.baseAddress.map { UnsafeRawPointer($0) } ?? UnsafeRawPointer(bitPattern: 1)!
        end = bytes.count
        position = 0
        self.texts = texts.map(Unmanaged.passUnretained)
    }

    /// The string of bytes read (``string()``'s): taken from the reader's ``TextCache`` when it holds it, for
    /// values that calls repeat.
    @inlinable
    public func text(_ bytes: UnsafeRawBufferPointer) -> String {
        texts?._withUnsafeGuaranteedRef { $0.string(bytes) } ?? String(decoding: bytes, as: UTF8.self)
    }

    /// Whether every byte has been read.
    @inlinable public var isAtEnd: Bool { position == end }

    /// Takes `byte` if it comes next.
    @inlinable @inline(__always)
    public mutating func take(_ byte: UInt8) -> Bool {
        guard position < end, base.load(fromByteOffset: position, as: UInt8.self) == byte else { return false }
        position += 1
        return true
    }

    /// The next byte, without taking it.
    @inlinable @inline(__always)
    public var next: UInt8? {
        position < end ? base.load(fromByteOffset: position, as: UInt8.self) : nil
    }

    /// A string of plain ASCII (no escapes, nothing below a space): its bytes, without the quotes. The bytes live as
    /// long as the message's.
    @inlinable @inline(__always)
    public mutating func string() -> UnsafeRawBufferPointer? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        let start = position
        // The first byte that is a quote, a backslash, a control character or not ASCII must be the closing quote.
        let stop = JSONScan.firstSpecial(base, from: start, to: end)
        guard stop < end, base.load(fromByteOffset: stop, as: UInt8.self) == UInt8(ascii: "\"") else { return nil }
        position = stop + 1
        return UnsafeRawBufferPointer(start: base + start, count: stop - start)
    }

    /// A member's name (a string as ``string()`` takes it) and the colon after it.
    @inlinable @inline(__always)
    public mutating func key() -> UnsafeRawBufferPointer? {
        guard let name = string(), take(UInt8(ascii: ":")) else { return nil }
        return name
    }

    /// The next member's key among `fields`, marked in `seen`; or `nil` for anything but a name of `fields` not seen
    /// before (the caller gives up on the message). The slot after the last one seen is tried first, as the bytes of
    /// its whole key (`"name":`, which a name of plain ASCII makes exactly what ``key()`` would read); any other
    /// name is read and looked up.
    @inlinable @inline(__always)
    public mutating func member<Key>(_ seen: inout UInt64, in fields: JSONFields<Key>) -> Key? {
        let expected = UInt64.bitWidth &- seen.leadingZeroBitCount
        if expected < fields.count {
            let key = fields.compactKey(expected)
            // A key of at most 16 bytes (most are) by its two words, a longer one byte by byte.
            if end &- position >= key.count,
               key.count <= 16 ? fields.keyWords[expected] == JSONFields<Key>.words(base + position, count: key.count)
                               : Self.equals(UnsafeRawBufferPointer(start: base + position, count: key.count), key.bytes, count: key.count) {
                position &+= key.count
                seen |= 1 << expected
                return Key(rawValue: expected)
            }
        }
        guard let name = key(), let slot = fields.slot(of: name, expected: expected),
              seen & (1 << slot) == 0 else { return nil }
        seen |= 1 << slot
        return Key(rawValue: slot)
    }

    /// An integer in JSON's grammar (`-`, then `0` or digits not starting with `0`) of at most 18 digits, not
    /// followed by a fraction or an exponent. Read in one pass, digits and value together.
    @inlinable
    public mutating func int() -> Int? {
        let start = position
        let negative = take(UInt8(ascii: "-"))
        let digitsStart = position
        var value = 0
        while position < end {
            let digit = base.load(fromByteOffset: position, as: UInt8.self) &- UInt8(ascii: "0")
            guard digit < 10 else { break }
            value = value &* 10 &+ Int(digit)
            position += 1
        }
        let digits = position - digitsStart
        // No leading zero: a first digit 0 is the whole number.
        guard digits > 0, digits <= 18, digits == 1 || base.load(fromByteOffset: digitsStart, as: UInt8.self) != UInt8(ascii: "0"),
              !continuesNumber else {
            position = start
            return nil
        }
        return negative ? -value : value
    }

    /// Whether a fraction or an exponent comes next (the number read so far goes on).
    @inlinable
    var continuesNumber: Bool {
        guard let next else { return false }
        return next == UInt8(ascii: ".") || next | 0x20 == UInt8(ascii: "e")
    }

    /// Whether `bytes` are exactly `text`.
    @inlinable @inline(__always)
    public static func equals(_ bytes: UnsafeRawBufferPointer, _ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        return bytes.count == count && equals(bytes, UnsafeRawPointer(text.utf8Start), count: count)
    }

    /// Whether `bytes`, of `count` bytes, are the `count` bytes at `other`.
    @inlinable @inline(__always)
    public static func equals(_ bytes: UnsafeRawBufferPointer, _ other: UnsafeRawPointer, count: Int) -> Bool {
        guard count > 0 else { return true }
        guard let base = bytes.baseAddress else { return false }  // (a buffer that holds bytes has an address)
        // A word at a time: the whole words from the start, then the last word (overlapping the one before) for
        // the rest; four bytes at both ends for a shorter text; byte by byte below four.
        func word(_ pointer: UnsafeRawPointer, _ offset: Int) -> UInt64 { pointer.loadUnaligned(fromByteOffset: offset, as: UInt64.self) }
        func half(_ pointer: UnsafeRawPointer, _ offset: Int) -> UInt32 { pointer.loadUnaligned(fromByteOffset: offset, as: UInt32.self) }
        if count >= 8 {
            var offset = 0
            while offset + 8 <= count {
                guard word(base, offset) == word(other, offset) else { return false }
                offset += 8
            }
            return offset == count || word(base, count - 8) == word(other, count - 8)
        }
        if count >= 4 { return half(base, 0) == half(other, 0) && half(base, count - 4) == half(other, count - 4) }
        for index in 0..<count where base.load(fromByteOffset: index, as: UInt8.self) != other.load(fromByteOffset: index, as: UInt8.self) {
            return false
        }
        return true
    }
}
