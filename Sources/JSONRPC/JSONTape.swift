#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// A validated JSON text as a flat list of tokens that point into its bytes (a "tape").
///
/// Parsing validates everything RFC 8259 asks (and refuses invalid UTF-8, lone surrogates, duplicate keys and
/// nesting beyond a limit) without making a single `String`: decoding reads keys and values straight from the
/// bytes. The bytes are borrowed, so a tape lives only inside ``JSONTape/parse(_:maxDepth:_:)``'s closure.
struct JSONTape {
    enum Kind: UInt8 {
        case object, array, string, escapedString, number, `true`, `false`, null
    }

    struct Token {
        var kind: Kind
        /// Members of an object or elements of an array.
        var count: Int32
        /// The value's bytes; for strings, inside the quotes.
        var start: Int32
        var end: Int32
        /// The index of the token after this value and everything inside it.
        var next: Int32
    }

    let bytes: UnsafeRawBufferPointer
    let tokens: UnsafeBufferPointer<Token>

    /// Parses `bytes` and calls `body` with the tape, which must not escape it.
    static func parse<R>(_ bytes: UnsafeRawBufferPointer, maxDepth: Int,
                         _ body: (JSONTape) throws -> R) throws -> R {
        try parse(bytes, maxDepth: maxDepth, reusing: TokenStorage(), body)
    }

    /// Parses `bytes` into `storage` (kept for the next parse, so a loop allocates nothing) and calls `body`.
    static func parse<R>(_ bytes: UnsafeRawBufferPointer, maxDepth: Int, reusing storage: TokenStorage,
                         _ body: (JSONTape) throws -> R) throws -> R {
        guard bytes.count < Int(Int32.max) else { throw JSONParseError(reason: .tooLarge, offset: 0) }
        var parser = TapeParser(bytes: bytes, maxDepth: maxDepth, storage: storage)
        try parser.parseDocument()
        // The tape points into the storage's memory: keep it alive until the body is done with the tape.
        return try withExtendedLifetime(storage) {
            try body(JSONTape(bytes: bytes, tokens: UnsafeBufferPointer(start: storage.base, count: parser.written)))
        }
    }

    // MARK: Reading

    @inline(__always) func kind(_ index: Int) -> Kind { tokens[index].kind }
    @inline(__always) func next(_ index: Int) -> Int { Int(tokens[index].next) }
    @inline(__always) func count(_ index: Int) -> Int { Int(tokens[index].count) }

    /// The raw bytes of a value (for strings, without the quotes).
    @inline(__always) func slice(_ index: Int) -> UnsafeRawBufferPointer {
        let token = tokens[index]
        return UnsafeRawBufferPointer(rebasing: bytes[Int(token.start)..<Int(token.end)])
    }

    /// The value's JSON text exactly as it came (strings with their quotes).
    func rawText(_ index: Int) -> UnsafeRawBufferPointer {
        let token = tokens[index]
        switch token.kind {
        case .string, .escapedString:
            return UnsafeRawBufferPointer(rebasing: bytes[Int(token.start) - 1..<Int(token.end) + 1])
        case .object, .array:
            return UnsafeRawBufferPointer(rebasing: bytes[Int(token.start)..<Int(token.end)])
        default:
            return slice(index)
        }
    }

    /// The members of the object at `index`: (key token, value token) pairs.
    func members(_ index: Int) -> MemberSequence { MemberSequence(tape: self, object: index) }

    struct MemberSequence: Sequence, IteratorProtocol {
        let tape: JSONTape
        var position: Int
        var remaining: Int
        init(tape: JSONTape, object: Int) {
            self.tape = tape
            position = object + 1
            remaining = tape.count(object)
        }
        mutating func next() -> (key: Int, value: Int)? {
            guard remaining > 0 else { return nil }
            remaining -= 1
            let key = position
            position = tape.next(key + 1)
            return (key, key + 1)
        }
    }

    /// The element tokens of the array at `index`.
    func elements(_ index: Int) -> [Int] {
        var result: [Int] = []
        result.reserveCapacity(count(index))
        var position = index + 1
        for _ in 0..<count(index) {
            result.append(position)
            position = next(position)
        }
        return result
    }

    /// The keys and indices that lead from the value at `base` to the value at `target` inside it.
    func path(from base: Int, to target: Int) -> [PathKey] {
        var keys: [PathKey] = []
        var current = base
        while current != target {
            guard kind(current) == .object || kind(current) == .array, target > current, target < next(current) else { break }
            var position = current + 1
            var found = false
            for offset in 0..<count(current) {
                let value = kind(current) == .object ? position + 1 : position
                if target >= value && target < next(value) {
                    keys.append(kind(current) == .object ? PathKey(stringValue: string(position)) : PathKey(intValue: offset))
                    current = value
                    found = true
                    break
                }
                position = next(value)
            }
            if !found { break }
        }
        return keys
    }

    /// Whether the key token at `index` spells `key`.
    func keyEquals(_ index: Int, _ key: String) -> Bool {
        if kind(index) == .escapedString { return string(index) == key }
        let raw = slice(index)
        var key = key
        return key.withUTF8 { utf8 in
            utf8.count == raw.count && (raw.count == 0 || memcmp(utf8.baseAddress!, raw.baseAddress!, raw.count) == 0)
        }
    }

    /// The value of `key` in the object at `index`.
    func member(_ index: Int, _ key: String) -> Int? {
        for (keyIndex, valueIndex) in members(index) where keyEquals(keyIndex, key) { return valueIndex }
        return nil
    }

    /// The string at `index` (a string token).
    func string(_ index: Int) -> String {
        let raw = slice(index)
        if kind(index) == .string { return String(decoding: raw, as: UTF8.self) }
        return String(decoding: TapeParser.unescape(raw), as: UTF8.self)
    }

    /// The value at `index` as a ``JSONValue``.
    func value(_ index: Int) -> JSONValue {
        switch kind(index) {
        case .null: return .null
        case .true: return .bool(true)
        case .false: return .bool(false)
        case .number: return .number(JSONNumber(validatedText: String(decoding: slice(index), as: UTF8.self)))
        case .string, .escapedString: return .string(string(index))
        case .array:
            var elements: [JSONValue] = []
            elements.reserveCapacity(count(index))
            var position = index + 1
            for _ in 0..<count(index) {
                elements.append(value(position))
                position = next(position)
            }
            return .array(elements)
        case .object:
            var result: [JSONObject.Member] = []
            result.reserveCapacity(count(index))
            for (key, value) in members(index) { result.append((key: string(key), value: self.value(value))) }
            return .object(JSONObject(members: result))
        }
    }
}

/// The memory a tape's tokens are written to, kept from one parse to the next by a loop that parses many. Not
/// for sharing between threads: one per parsing thread.
final class TokenStorage {
    private(set) var base: UnsafeMutablePointer<JSONTape.Token>
    private(set) var capacity: Int

    init(capacity: Int = 64) {
        self.capacity = capacity
        base = .allocate(capacity: capacity)
    }

    deinit { base.deallocate() }

    /// Makes room for at least `needed` tokens, keeping the first `count`.
    func grow(to needed: Int, keeping count: Int) {
        let capacity = max(needed, self.capacity * 2)
        let grown = UnsafeMutablePointer<JSONTape.Token>.allocate(capacity: capacity)
        grown.initialize(from: base, count: count)
        base.deallocate()
        base = grown
        self.capacity = capacity
    }
}
