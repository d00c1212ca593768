/// Why a text is not acceptable JSON.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Reason: Sendable, Equatable {
        case empty
        case unexpectedEnd
        case unexpectedByte(UInt8)
        case invalidNumber
        case invalidEscape
        case invalidUTF8
        case controlCharacterInString
        case loneSurrogate
        case tooDeep(limit: Int)
        case duplicateKey(String)
        case trailingData
    }

    public let reason: Reason
    /// The byte offset where the problem was found.
    public let offset: Int

    public var description: String {
        switch reason {
        case .empty: "empty input"
        case .unexpectedEnd: "unexpected end of input at byte \(offset)"
        case .unexpectedByte(let byte):
            if byte >= 0x20 && byte < 0x7F {
                "unexpected character '\(Character(UnicodeScalar(byte)))' at byte \(offset)"
            } else {
                "unexpected byte 0x\(String(byte, radix: 16)) at byte \(offset)"
            }
        case .invalidNumber: "invalid number at byte \(offset)"
        case .invalidEscape: "invalid escape sequence at byte \(offset)"
        case .invalidUTF8: "invalid UTF-8 at byte \(offset)"
        case .controlCharacterInString: "unescaped control character in string at byte \(offset)"
        case .loneSurrogate: "unpaired UTF-16 surrogate escape at byte \(offset)"
        case .tooDeep(let limit): "nesting deeper than \(limit) levels at byte \(offset)"
        case .duplicateKey(let key): "duplicate key \"\(key)\" at byte \(offset)"
        case .trailingData: "unexpected data after the JSON value at byte \(offset)"
        }
    }
}

/// A strict RFC 8259 parser over UTF-8 bytes, with a nesting limit so hostile input cannot exhaust the stack.
///
/// It refuses invalid UTF-8, lone surrogates, duplicate keys in one object and anything after the value
/// (but whitespace).
public struct JSONParser {
    /// The default nesting limit.
    public static let defaultMaxDepth = 64

    private let bytes: UnsafeRawBufferPointer
    private var index = 0
    private let maxDepth: Int

    private init(bytes: UnsafeRawBufferPointer, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    /// Parses one JSON value from `bytes`.
    public static func parse(_ bytes: UnsafeRawBufferPointer, maxDepth: Int = defaultMaxDepth) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(bytes: bytes, maxDepth: maxDepth)
        parser.skipWhitespace()
        guard parser.index < bytes.count else { throw JSONParseError(reason: .empty, offset: 0) }
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw JSONParseError(reason: .trailingData, offset: parser.index) }
        return value
    }

    /// Parses one JSON value from a byte array.
    public static func parse(_ bytes: [UInt8], maxDepth: Int = defaultMaxDepth) throws(JSONParseError) -> JSONValue {
        let result: Result<JSONValue, JSONParseError> = bytes.withUnsafeBytes { raw in
            Result { () throws(JSONParseError) -> JSONValue in try parse(raw, maxDepth: maxDepth) }
        }
        return try result.get()
    }

    /// Parses one JSON value from a string.
    public static func parse(_ text: String, maxDepth: Int = defaultMaxDepth) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8), maxDepth: maxDepth)
    }

    // MARK: Grammar

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

    private mutating func parseValue(depth: Int) throws(JSONParseError) -> JSONValue {
        guard index < bytes.count else { throw fail(.unexpectedEnd) }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
        case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw unexpected()
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw fail(.unexpectedEnd) }
        let expected = UnsafeRawBufferPointer(start: literal.utf8Start, count: count)
        for offset in 0..<count where bytes[index + offset] != expected[offset] {
            index += offset
            throw unexpected()
        }
        index += count
    }

    private mutating func parseObject(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth <= maxDepth else { throw fail(.tooDeep(limit: maxDepth)) }
        index += 1  // {
        var members: [JSONObject.Member] = []
        var seen: Set<String>?
        skipWhitespace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(JSONObject())
        }
        while true {
            skipWhitespace()
            guard index < bytes.count else { throw fail(.unexpectedEnd) }
            guard bytes[index] == UInt8(ascii: "\"") else { throw unexpected() }
            let keyOffset = index
            let key = try parseString()
            // Duplicate keys make a request ambiguous: refuse them. Linear for small objects, hashed beyond.
            if members.count < 8 {
                for member in members where member.key == key {
                    throw JSONParseError(reason: .duplicateKey(key), offset: keyOffset)
                }
                if members.count == 7 { seen = Set(members.map(\.key)) }
            }
            if seen != nil {
                guard seen!.insert(key).inserted else { throw JSONParseError(reason: .duplicateKey(key), offset: keyOffset) }
            }
            skipWhitespace()
            guard index < bytes.count else { throw fail(.unexpectedEnd) }
            guard bytes[index] == UInt8(ascii: ":") else { throw unexpected() }
            index += 1
            skipWhitespace()
            let value = try parseValue(depth: depth)
            members.append((key: key, value: value))
            skipWhitespace()
            guard index < bytes.count else { throw fail(.unexpectedEnd) }
            switch bytes[index] {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"): index += 1; return .object(JSONObject(members: members))
            default: throw unexpected()
            }
        }
    }

    private mutating func parseArray(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth <= maxDepth else { throw fail(.tooDeep(limit: maxDepth)) }
        index += 1  // [
        var elements: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array([])
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue(depth: depth))
            skipWhitespace()
            guard index < bytes.count else { throw fail(.unexpectedEnd) }
            switch bytes[index] {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"): index += 1; return .array(elements)
            default: throw unexpected()
            }
        }
    }

    private mutating func parseNumber() throws(JSONParseError) -> JSONNumber {
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
        if index < bytes.count && (bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E")) {
            index += 1
            if index < bytes.count && (bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")) { index += 1 }
            guard index < bytes.count && isDigit(bytes[index]) else { throw fail(.invalidNumber) }
            while index < bytes.count && isDigit(bytes[index]) { index += 1 }
        }
        return JSONNumber(validatedText: String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self))
    }

    @inline(__always)
    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private mutating func parseString() throws(JSONParseError) -> String {
        index += 1  // opening quote
        let start = index
        var ascii = true
        // Fast path: no escapes.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let slice = UnsafeRawBufferPointer(rebasing: bytes[start..<index])
                index += 1
                if ascii { return String(decoding: slice, as: UTF8.self) }
                guard let string = String(validating: slice, as: UTF8.self) else {
                    throw JSONParseError(reason: .invalidUTF8, offset: start)
                }
                return string
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw fail(.controlCharacterInString) }
            if byte >= 0x80 { ascii = false }
            index += 1
        }
        guard index < bytes.count else { throw fail(.unexpectedEnd) }
        // Slow path: unescape into a buffer.
        var buffer = [UInt8](UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                guard let string = String(validating: buffer, as: UTF8.self) else {
                    throw JSONParseError(reason: .invalidUTF8, offset: start)
                }
                return string
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { throw fail(.unexpectedEnd) }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""): buffer.append(0x22)
                case UInt8(ascii: "\\"): buffer.append(0x5C)
                case UInt8(ascii: "/"): buffer.append(0x2F)
                case UInt8(ascii: "b"): buffer.append(0x08)
                case UInt8(ascii: "f"): buffer.append(0x0C)
                case UInt8(ascii: "n"): buffer.append(0x0A)
                case UInt8(ascii: "r"): buffer.append(0x0D)
                case UInt8(ascii: "t"): buffer.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try parseHex4()
                    if scalar >= 0xD800 && scalar <= 0xDBFF {
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                            throw fail(.loneSurrogate)
                        }
                        index += 2
                        let low = try parseHex4()
                        guard low >= 0xDC00 && low <= 0xDFFF else { throw fail(.loneSurrogate) }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if scalar >= 0xDC00 && scalar <= 0xDFFF {
                        throw fail(.loneSurrogate)
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw fail(.invalidEscape) }
                    buffer.append(contentsOf: UTF8.encode(unicode)!)
                default:
                    index -= 1
                    throw fail(.invalidEscape)
                }
            default:
                if byte < 0x20 { throw fail(.controlCharacterInString) }
                buffer.append(byte)
                index += 1
            }
        }
        throw fail(.unexpectedEnd)
    }

    private mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw fail(.unexpectedEnd) }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw fail(.invalidEscape)
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }
}
