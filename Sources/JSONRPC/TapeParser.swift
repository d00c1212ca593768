#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// The strict RFC 8259 grammar, writing a tape.
///
/// Tokens are written straight into a ``TokenStorage``'s memory: every write is within `written < capacity`,
/// checked in `emit` (which grows the storage) and nowhere else needed, since every other write
/// is to a token already emitted. A parser must not be copied while it parses: a copy that grows the storage
/// would free the memory the other still points at (the parser is used only as one local variable).
struct TapeParser {
    let bytes: UnsafeRawBufferPointer
    var index = 0
    let maxDepth: Int
    private let storage: TokenStorage
    private var tokens: UnsafeMutablePointer<JSONTape.Token>
    private var capacity: Int
    /// Tokens written so far.
    private(set) var written = 0

    init(bytes: UnsafeRawBufferPointer, maxDepth: Int, storage: TokenStorage) {
        self.bytes = bytes
        self.maxDepth = maxDepth
        self.storage = storage
        tokens = storage.base
        capacity = storage.capacity
    }

    mutating func parseDocument() throws(JSONParseError) {
        skipWhitespace()
        guard index < bytes.count else { throw JSONParseError(reason: .empty, offset: 0) }
        try parseValue(depth: 0)
        skipWhitespace()
        guard index == bytes.count else { throw JSONParseError(reason: .trailingData, offset: index) }
    }

    @inline(__always)
    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private func fail(_ reason: JSONParseError.Reason) -> JSONParseError {
        JSONParseError(reason: reason, offset: index)
    }

    private func unexpected() -> JSONParseError {
        index < bytes.count ? fail(.unexpectedByte(bytes[index])) : fail(.unexpectedEnd)
    }

    @inline(__always)
    private mutating func emit(_ kind: JSONTape.Kind, start: Int, end: Int) {
        if written == capacity {
            storage.grow(to: written + 1, keeping: written)
            tokens = storage.base
            capacity = storage.capacity
        }
        // Offsets and token counts fit 32 bits: the input is shorter than 2 GiB (checked before parsing), and
        // every token takes at least one byte of it.
        (tokens + written).initialize(to: JSONTape.Token(kind: kind, count: 0, start: Int32(truncatingIfNeeded: start),
                                                         end: Int32(truncatingIfNeeded: end), next: Int32(truncatingIfNeeded: written &+ 1)))
        written += 1
    }

    private mutating func parseValue(depth: Int) throws(JSONParseError) {
        guard index < bytes.count else { throw fail(.unexpectedEnd) }
        switch bytes[index] {
        case UInt8(ascii: "{"): try parseObject(depth: depth + 1)
        case UInt8(ascii: "["): try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): try parseString()
        case UInt8(ascii: "t"): try literal("true", .true)
        case UInt8(ascii: "f"): try literal("false", .false)
        case UInt8(ascii: "n"): try literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try parseNumber()
        default: throw unexpected()
        }
    }

    private mutating func literal(_ text: StaticString, _ kind: JSONTape.Kind) throws(JSONParseError) {
        let count = text.utf8CodeUnitCount
        let start = index
        let expected = UnsafeRawBufferPointer(start: text.utf8Start, count: count)
        for offset in 0..<count {
            guard index < bytes.count else { throw fail(.unexpectedEnd) }
            guard bytes[index] == expected[offset] else { throw unexpected() }
            index += 1
        }
        emit(kind, start: start, end: index)
    }

    private mutating func parseObject(depth: Int) throws(JSONParseError) {
        guard depth <= maxDepth else { throw fail(.tooDeep(limit: maxDepth)) }
        let tokenIndex = written
        emit(.object, start: index, end: index)
        index += 1  // {
        var count: Int32 = 0
        var seen: KeySet?
        var signatures: UInt64 = 0
        var anyEscaped = false
        skipWhitespace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "}") {
            index += 1
        } else {
            while true {
                skipWhitespace()
                guard index < bytes.count else { throw fail(.unexpectedEnd) }
                guard bytes[index] == UInt8(ascii: "\"") else { throw unexpected() }
                let keyOffset = index
                let keyToken = written
                try parseString()
                // Linear for small objects (and only when a cheap signature of the key was seen before in
                // this object), hashed beyond, so a huge object cannot make this quadratic. A campaign has 23
                // members: hashing each key (an array, a set) cost more than the rest of reading one.
                if count < 32 {
                    let key = tokens[keyToken]
                    let length = Int(key.end - key.start)
                    let first = length > 0 ? Int(bytes[Int(key.start)]) : 0
                    let last = length > 0 ? Int(bytes[Int(key.end) - 1]) : 0
                    let bit: UInt64 = 1 << UInt64((length &* 7 &+ first &* 3 &+ last) & 63)
                    if key.kind == .escapedString { anyEscaped = true }
                    if signatures & bit != 0 || anyEscaped {
                        try checkDuplicate(keyToken, in: tokenIndex, members: Int(count), offset: keyOffset)
                    }
                    signatures |= bit
                } else {
                    if seen == nil {
                        let keys = KeySet()
                        var position = tokenIndex + 1
                        for _ in 0..<count {
                            keys.keys.insert(keyBytes(position))
                            position = Int(tokens[position + 1].next)
                        }
                        seen = keys
                    }
                    let key = keyBytes(keyToken)
                    guard seen!.keys.insert(key).inserted else {
                        throw JSONParseError(reason: .duplicateKey(String(decoding: key, as: UTF8.self)), offset: keyOffset)
                    }
                }
                skipWhitespace()
                guard index < bytes.count else { throw fail(.unexpectedEnd) }
                guard bytes[index] == UInt8(ascii: ":") else { throw unexpected() }
                index += 1
                skipWhitespace()
                // Most values are strings: parsed here, without the call that picks the kind.
                if index < bytes.count && bytes[index] == UInt8(ascii: "\"") { try parseString() } else { try parseValue(depth: depth) }
                count += 1
                skipWhitespace()
                guard index < bytes.count else { throw fail(.unexpectedEnd) }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                } else if bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    break
                } else {
                    throw unexpected()
                }
            }
        }
        tokens[tokenIndex].count = count
        tokens[tokenIndex].end = Int32(truncatingIfNeeded: index)
        tokens[tokenIndex].next = Int32(truncatingIfNeeded: written)
    }

    /// The keys of an object of 32 members or more, hashed. A class, so that the common small object, which never
    /// makes one, has no set to release when it ends.
    private final class KeySet {
        var keys = Set<[UInt8]>()
    }

    /// Refuses a key already present in the object: a request with two different `id`s means nothing.
    private func checkDuplicate(_ keyToken: Int, in object: Int, members: Int, offset: Int) throws(JSONParseError) {
        guard members > 0 else { return }
        let key = tokens[keyToken]
        let length = key.end - key.start
        let escaped = key.kind == .escapedString
        let base = bytes.baseAddress!
        var position = object + 1
        for _ in 0..<members {
            let other = tokens[position]
            let same: Bool
            if escaped || other.kind == .escapedString {
                same = keyBytes(keyToken) == keyBytes(position)
            } else if other.end - other.start != length {
                same = false
            } else {
                same = memcmp(base + Int(key.start), base + Int(other.start), Int(length)) == 0
            }
            if same {
                throw JSONParseError(reason: .duplicateKey(String(decoding: keyBytes(keyToken), as: UTF8.self)), offset: offset)
            }
            position = Int(tokens[position + 1].next)
        }
    }

    /// A key's UTF-8 with escapes resolved.
    private func keyBytes(_ token: Int) -> [UInt8] {
        let key = tokens[token]
        return TapeParser.unescape(UnsafeRawBufferPointer(rebasing: bytes[Int(key.start)..<Int(key.end)]), escaped: key.kind == .escapedString)
    }

    private mutating func parseArray(depth: Int) throws(JSONParseError) {
        guard depth <= maxDepth else { throw fail(.tooDeep(limit: maxDepth)) }
        let tokenIndex = written
        emit(.array, start: index, end: index)
        index += 1  // [
        var count: Int32 = 0
        skipWhitespace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "]") {
            index += 1
        } else {
            while true {
                skipWhitespace()
                try parseValue(depth: depth)
                count += 1
                skipWhitespace()
                guard index < bytes.count else { throw fail(.unexpectedEnd) }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                } else if bytes[index] == UInt8(ascii: "]") {
                    index += 1
                    break
                } else {
                    throw unexpected()
                }
            }
        }
        tokens[tokenIndex].count = count
        tokens[tokenIndex].end = Int32(truncatingIfNeeded: index)
        tokens[tokenIndex].next = Int32(truncatingIfNeeded: written)
    }

    @inline(__always)
    private func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

    private mutating func parseNumber() throws(JSONParseError) {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count else { throw fail(.invalidNumber) }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else if isDigit(bytes[index]) {
            while index < bytes.count && isDigit(bytes[index]) { index += 1 }
        } else {
            throw fail(.invalidNumber)
        }
        if index < bytes.count && bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < bytes.count && isDigit(bytes[index]) else { throw fail(.invalidNumber) }
            while index < bytes.count && isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count && (bytes[index] | 0x20) == UInt8(ascii: "e") {
            index += 1
            if index < bytes.count && (bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")) { index += 1 }
            guard index < bytes.count && isDigit(bytes[index]) else { throw fail(.invalidNumber) }
            while index < bytes.count && isDigit(bytes[index]) { index += 1 }
        }
        emit(.number, start: start, end: index)
    }

    private mutating func parseString() throws(JSONParseError) {
        index += 1  // opening quote
        let start = index
        var escaped = false
        var ascii = true
        let base = bytes.baseAddress!
        let end = bytes.count
        while true {
            // Plain printable ASCII is the common case: skip it eight bytes at a time.
            index = JSONScan.firstSpecial(base, from: index, to: end)
            guard index < end else { throw fail(.unexpectedEnd) }
            let byte = base.load(fromByteOffset: index, as: UInt8.self)
            if byte == UInt8(ascii: "\"") { break }
            if byte == UInt8(ascii: "\\") {
                escaped = true
                try checkEscape()
                continue
            }
            if byte < 0x20 { throw fail(.controlCharacterInString) }
            ascii = false  // 0x80 and above
            index += 1
        }
        if !ascii {
            let raw = UnsafeRawBufferPointer(rebasing: bytes[start..<index])
            if let bad = TapeParser.firstInvalidUTF8(raw) { throw JSONParseError(reason: .invalidUTF8, offset: start + bad) }
        }
        emit(escaped ? .escapedString : .string, start: start, end: index)
        index += 1  // closing quote
    }

    /// Validates the escape at `index` (a backslash) and moves past it.
    private mutating func checkEscape() throws(JSONParseError) {
        index += 1
        guard index < bytes.count else { throw fail(.unexpectedEnd) }
        switch bytes[index] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
             UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            index += 1
        case UInt8(ascii: "u"):
            index += 1
            let unit = try hex4()
            if unit >= 0xD800 && unit <= 0xDBFF {
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                    throw fail(.loneSurrogate)
                }
                index += 2
                let low = try hex4()
                guard low >= 0xDC00 && low <= 0xDFFF else { throw fail(.loneSurrogate) }
            } else if unit >= 0xDC00 && unit <= 0xDFFF {
                throw fail(.loneSurrogate)
            }
        default:
            index -= 1
            throw fail(.invalidEscape)
        }
    }

    private mutating func hex4() throws(JSONParseError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw fail(.unexpectedEnd) }
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = TapeParser.hexValue(bytes[index]) else { throw fail(.invalidEscape) }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    static func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    /// The offset of the first byte that is not part of well-formed UTF-8 (no overlongs, no surrogates,
    /// nothing beyond U+10FFFF), or `nil`.
    static func firstInvalidUTF8(_ raw: UnsafeRawBufferPointer) -> Int? {
        var i = 0
        let n = raw.count
        while i < n {
            let b0 = raw[i]
            if b0 < 0x80 { i += 1; continue }
            func cont(_ k: Int) -> Bool { i + k < n && raw[i + k] & 0xC0 == 0x80 }
            switch b0 {
            case 0xC2...0xDF:
                guard cont(1) else { return i }
                i += 2
            case 0xE0...0xEF:
                guard cont(1), cont(2) else { return i }
                let b1 = raw[i + 1]
                if b0 == 0xE0 && b1 < 0xA0 { return i }  // overlong
                if b0 == 0xED && b1 >= 0xA0 { return i }  // surrogate
                i += 3
            case 0xF0...0xF4:
                guard cont(1), cont(2), cont(3) else { return i }
                let b1 = raw[i + 1]
                if b0 == 0xF0 && b1 < 0x90 { return i }  // overlong
                if b0 == 0xF4 && b1 >= 0x90 { return i }  // beyond U+10FFFF
                i += 4
            default:
                return i
            }
        }
        return nil
    }

    /// The UTF-8 of a validated string body with its escapes resolved.
    static func unescape(_ raw: UnsafeRawBufferPointer, escaped: Bool = true) -> [UInt8] {
        guard escaped else { return Array(raw) }
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var i = 0
        func hex(_ at: Int) -> UInt32 {
            var value: UInt32 = 0
            for k in 0..<4 { value = value << 4 | (hexValue(raw[at + k]) ?? 0) }
            return value
        }
        while i < raw.count {
            let byte = raw[i]
            guard byte == UInt8(ascii: "\\") else {
                out.append(byte)
                i += 1
                continue
            }
            let escape = raw[i + 1]
            i += 2
            switch escape {
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = hex(i)
                i += 4
                if scalar >= 0xD800 && scalar <= 0xDBFF {
                    let low = hex(i + 2)
                    i += 6
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                out.append(contentsOf: UTF8.encode(Unicode.Scalar(scalar)!)!)
            default: out.append(escape)  // \" \\ \/
            }
        }
        return out
    }
}
