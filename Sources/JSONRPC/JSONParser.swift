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
        case tooLarge
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
        case .tooLarge: "input larger than 2 GiB"
        }
    }
}

/// A strict RFC 8259 parser into ``JSONValue``s.
///
/// It refuses invalid UTF-8, lone surrogates, duplicate keys in one object, nesting beyond a limit (so hostile
/// input cannot exhaust the stack) and anything after the value but whitespace.
public enum JSONParser {
    /// The default nesting limit.
    public static let defaultMaxDepth = 64

    /// Parses one JSON value from `bytes`.
    public static func parse(_ bytes: UnsafeRawBufferPointer, maxDepth: Int = defaultMaxDepth) throws(JSONParseError) -> JSONValue {
        do {
            return try JSONTape.parse(bytes, maxDepth: maxDepth) { tape in tape.value(0) }
        } catch let error as JSONParseError {
            throw error
        } catch {
            fatalError("unreachable: \(error)")
        }
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
}
