/// Decodes `Decodable` types from JSON, strictly.
///
/// Strict means: no type coercion (a string is never a number), integers must be exact and in range, and
/// (with ``rejectUnknownKeys``) an object member that the type's `CodingKeys` does not name is an error, so a
/// misspelt field is reported instead of silently ignored. It reads straight from the bytes of the JSON text.
public struct JSONValueDecoder: Sendable {
    /// Refuse object members that the decoded type's coding keys do not name.
    public var rejectUnknownKeys: Bool
    /// The deepest nesting accepted.
    public var maxDepth: Int

    public init(rejectUnknownKeys: Bool = true, maxDepth: Int = JSONParser.defaultMaxDepth) {
        self.rejectUnknownKeys = rejectUnknownKeys
        self.maxDepth = maxDepth
    }

    /// Decodes a `T` from a JSON value.
    public func decode<T: Decodable>(_ type: T.Type = T.self, from value: JSONValue) throws -> T {
        if T.self == JSONValue.self { return value as! T }
        return try decode(T.self, fromJSON: value.jsonBytes)
    }

    /// Decodes a `T` from JSON text.
    public func decode<T: Decodable>(_ type: T.Type = T.self, fromJSON bytes: [UInt8]) throws -> T {
        try bytes.withUnsafeBytes { raw in
            try JSONTape.parse(raw, maxDepth: maxDepth) { tape in try decode(T.self, tape: tape, index: 0) }
        }
    }

    /// Decodes a type that reads itself from JSON text, calling its reader directly (no check of what the type is).
    public func decode<T: JSONReadable>(_ type: T.Type = T.self, fromJSON bytes: [UInt8]) throws -> T {
        try bytes.withUnsafeBytes { raw in
            try JSONTape.parse(raw, maxDepth: maxDepth) { tape in
                try T(json: JSONReader(tape: tape, index: 0, path: nil, strict: rejectUnknownKeys))
            }
        }
    }

    func decode<T: Decodable>(_ type: T.Type, tape: JSONTape, index: Int) throws -> T {
        try TapeDecoding.unbox(T.self, TapeDecoding.Context(tape: tape, strict: rejectUnknownKeys), index, path: nil)
    }
}

/// A coding key made from a string or an index, for paths in error messages.
public struct PathKey: CodingKey, Sendable {
    public let stringValue: String
    public let intValue: Int?
    public init(stringValue: String) { self.stringValue = stringValue; intValue = nil }
    public init(intValue: Int) { stringValue = String(intValue); self.intValue = intValue }
}

extension DecodingError {
    /// The path of the offending value, dotted with indices in brackets (`screen.width`, `creatives[1].sha256`).
    public var fieldPath: String {
        let path: [any CodingKey]
        switch self {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            path = context.codingPath
        case .keyNotFound(let key, let context):
            path = context.codingPath + [key]
        @unknown default:
            path = []
        }
        var text = ""
        for key in path {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                if !text.isEmpty { text += "." }
                text += key.stringValue
            }
        }
        return text
    }

    /// A one-line reason without the path.
    public var reason: String {
        switch self {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            context.debugDescription
        case .keyNotFound:
            "is required"
        @unknown default:
            "is invalid"
        }
    }
}

/// A coding path kept as a chain, turned into an array only when someone asks (errors, mostly).
final class PathNode: Sendable {
    let parent: PathNode?
    let key: PathKey

    init(parent: PathNode?, key: any CodingKey) {
        self.parent = parent
        self.key = key.intValue.map(PathKey.init(intValue:)) ?? PathKey(stringValue: key.stringValue)
    }

    static func codingPath(_ node: PathNode?) -> [any CodingKey] {
        var keys: [any CodingKey] = []
        var current = node
        while let node = current {
            keys.append(node.key)
            current = node.parent
        }
        return keys.reversed()
    }
}

enum TapeDecoding {
    struct Context {
        let tape: JSONTape
        let strict: Bool
    }

    static func typeName(_ kind: JSONTape.Kind) -> String {
        switch kind {
        case .null: "null"
        case .true, .false: "boolean"
        case .number: "number"
        case .string, .escapedString: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    static func mismatch(_ expected: String, _ context: Context, _ index: Int, _ path: [any CodingKey]) -> DecodingError {
        let kind = context.tape.kind(index)
        if kind == .null {
            return DecodingError.valueNotFound(Any.self, .init(codingPath: path, debugDescription: "expected \(expected), got null"))
        }
        return DecodingError.typeMismatch(Any.self, .init(codingPath: path, debugDescription: "expected \(expected), got \(typeName(kind))"))
    }

    @inline(__always)
    static func bool(_ context: Context, _ index: Int, _ path: @autoclosure () -> [any CodingKey]) throws -> Bool {
        switch context.tape.kind(index) {
        case .true: return true
        case .false: return false
        default: throw mismatch("a boolean", context, index, path())
        }
    }

    @inline(__always)
    static func string(_ context: Context, _ index: Int, _ path: @autoclosure () -> [any CodingKey]) throws -> String {
        switch context.tape.kind(index) {
        case .string, .escapedString: return context.tape.string(index)
        default: throw mismatch("a string", context, index, path())
        }
    }

    /// The value of a number token written as an optional minus and at most 18 digits (the fast path of integer
    /// reading); `nil` for anything else: a fraction, an exponent, more digits.
    @inline(__always)
    static func plainInteger(_ raw: UnsafeRawBufferPointer) -> Int64? {
        var negative = false
        var position = 0
        if raw.first == UInt8(ascii: "-") {
            negative = true
            position = 1
        }
        guard raw.count - position <= 18 else { return nil }
        var value: Int64 = 0
        while position < raw.count {
            let digit = raw[position] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            value = value &* 10 &+ Int64(digit)
            position += 1
        }
        return negative ? -value : value
    }

    static func integer<I: FixedWidthInteger>(_ context: Context, _ index: Int, _ path: @autoclosure () -> [any CodingKey]) throws -> I {
        guard context.tape.kind(index) == .number else { throw mismatch("an integer", context, index, path()) }
        let raw = context.tape.slice(index)
        if let value = plainInteger(raw) {
            if let result = I(exactly: value) { return result }
            throw DecodingError.dataCorrupted(.init(codingPath: path(), debugDescription: "\(value) is out of range (\(I.min)...\(I.max))"))
        }
        let number = JSONNumber(validatedText: String(decoding: raw, as: UTF8.self))
        if let result = number.exactly(I.self) { return result }
        let fractional = Double(number.text).map { $0 != $0.rounded(.towardZero) } ?? false
        throw DecodingError.dataCorrupted(.init(codingPath: path(), debugDescription: fractional
            ? "expected an integer, got \(number.text)"
            : "\(number.text) is out of range (\(I.min)...\(I.max))"))
    }

    static func double(_ context: Context, _ index: Int, _ path: @autoclosure () -> [any CodingKey]) throws -> Double {
        guard context.tape.kind(index) == .number,
              let value = Double(String(decoding: context.tape.slice(index), as: UTF8.self)), value.isFinite else {
            throw mismatch("a number", context, index, path())
        }
        return value
    }

    static func unbox<T: Decodable>(_ type: T.Type, _ context: Context, _ index: Int, path: PathNode?) throws -> T {
        if T.self == String.self { return try string(context, index, PathNode.codingPath(path)) as! T }
        if T.self == Int.self { return try integer(context, index, PathNode.codingPath(path)) as Int as! T }
        if T.self == Bool.self { return try bool(context, index, PathNode.codingPath(path)) as! T }
        if T.self == Double.self { return try double(context, index, PathNode.codingPath(path)) as! T }
        if T.self == JSONValue.self { return context.tape.value(index) as! T }
        if let readable = T.self as? any JSONReadable.Type {
            return try readable.init(json: JSONReader(tape: context.tape, index: index, path: path, strict: context.strict)) as! T
        }
        return try T(from: TapeDecoder(context: context, index: index, path: path))
    }
}

private struct TapeDecoder: Decoder {
    let context: TapeDecoding.Context
    let index: Int
    let path: PathNode?
    var codingPath: [any CodingKey] { PathNode.codingPath(path) }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        let tape = context.tape
        guard tape.kind(index) == .object else { throw TapeDecoding.mismatch("an object", context, index, codingPath) }
        if context.strict {
            for (key, _) in tape.members(index) {
                let name = tape.string(key)
                if Key(stringValue: name) == nil {
                    throw DecodingError.dataCorrupted(.init(codingPath: codingPath + [PathKey(stringValue: name)], debugDescription: "is not a known field"))
                }
            }
        }
        return KeyedDecodingContainer(TapeKeyedContainer<Key>(context: context, object: index, path: path))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard context.tape.kind(index) == .array else { throw TapeDecoding.mismatch("an array", context, index, codingPath) }
        return TapeUnkeyedContainer(context: context, array: index, path: path)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        TapeSingleContainer(context: context, index: index, path: path)
    }
}

private struct TapeKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let context: TapeDecoding.Context
    let object: Int
    let path: PathNode?

    var codingPath: [any CodingKey] { PathNode.codingPath(path) }
    var allKeys: [Key] { context.tape.members(object).compactMap { Key(stringValue: context.tape.string($0.key)) } }

    @inline(__always)
    private func find(_ key: Key) -> Int? { context.tape.member(object, key.stringValue) }

    private func require(_ key: Key) throws -> Int {
        guard let index = find(key) else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "is required"))
        }
        return index
    }

    private func keyPath(_ key: Key) -> [any CodingKey] { codingPath + [key] }

    private func present(_ key: Key) -> Int? {
        guard let index = find(key), context.tape.kind(index) != .null else { return nil }
        return index
    }

    func contains(_ key: Key) -> Bool { find(key) != nil }

    func decodeNil(forKey key: Key) throws -> Bool { context.tape.kind(try require(key)) == .null }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try TapeDecoding.bool(context, require(key), keyPath(key)) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try TapeDecoding.string(context, require(key), keyPath(key)) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try TapeDecoding.double(context, require(key), keyPath(key)) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { Float(try TapeDecoding.double(context, require(key), keyPath(key))) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try TapeDecoding.integer(context, require(key), keyPath(key)) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try TapeDecoding.integer(context, require(key), keyPath(key)) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try TapeDecoding.integer(context, require(key), keyPath(key)) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try TapeDecoding.integer(context, require(key), keyPath(key)) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try TapeDecoding.integer(context, require(key), keyPath(key)) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try TapeDecoding.integer(context, require(key), keyPath(key)) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try TapeDecoding.integer(context, require(key), keyPath(key)) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try TapeDecoding.integer(context, require(key), keyPath(key)) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try TapeDecoding.integer(context, require(key), keyPath(key)) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try TapeDecoding.integer(context, require(key), keyPath(key)) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try TapeDecoding.unbox(T.self, context, require(key), path: PathNode(parent: path, key: key))
    }

    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        guard let index = present(key) else { return nil }
        return try TapeDecoding.string(context, index, keyPath(key))
    }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        guard let index = present(key) else { return nil }
        return try TapeDecoding.integer(context, index, keyPath(key))
    }
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        guard let index = present(key) else { return nil }
        return try TapeDecoding.bool(context, index, keyPath(key))
    }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        guard let index = present(key) else { return nil }
        return try TapeDecoding.double(context, index, keyPath(key))
    }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let index = present(key) else { return nil }
        return try TapeDecoding.unbox(T.self, context, index, path: PathNode(parent: path, key: key))
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try TapeDecoder(context: context, index: require(key), path: PathNode(parent: path, key: key)).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try TapeDecoder(context: context, index: require(key), path: PathNode(parent: path, key: key)).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "super decoders are not supported"))
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        TapeDecoder(context: context, index: try require(key), path: PathNode(parent: path, key: key))
    }
}

private struct TapeUnkeyedContainer: UnkeyedDecodingContainer {
    let context: TapeDecoding.Context
    let path: PathNode?
    let count: Int?
    private let total: Int
    private var position: Int
    private(set) var currentIndex = 0

    init(context: TapeDecoding.Context, array: Int, path: PathNode?) {
        self.context = context
        self.path = path
        total = context.tape.count(array)
        count = total
        position = array + 1
    }

    var codingPath: [any CodingKey] { PathNode.codingPath(path) }
    var isAtEnd: Bool { currentIndex >= total }

    private mutating func next() throws -> (Int, PathNode) {
        let node = PathNode(parent: path, key: PathKey(intValue: currentIndex))
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(Any.self, .init(codingPath: PathNode.codingPath(node), debugDescription: "is missing: the array has only \(total) elements"))
        }
        let index = position
        position = context.tape.next(position)
        currentIndex += 1
        return (index, node)
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, context.tape.kind(position) == .null else { return false }
        position = context.tape.next(position)
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let (index, node) = try next()
        return try TapeDecoding.unbox(T.self, context, index, path: node)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let (index, node) = try next()
        return try TapeDecoder(context: context, index: index, path: node).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let (index, node) = try next()
        return try TapeDecoder(context: context, index: index, path: node).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        let (index, node) = try next()
        return TapeDecoder(context: context, index: index, path: node)
    }
}

private struct TapeSingleContainer: SingleValueDecodingContainer {
    let context: TapeDecoding.Context
    let index: Int
    let path: PathNode?
    var codingPath: [any CodingKey] { PathNode.codingPath(path) }

    func decodeNil() -> Bool { context.tape.kind(index) == .null }
    func decode(_ type: Bool.Type) throws -> Bool { try TapeDecoding.bool(context, index, codingPath) }
    func decode(_ type: String.Type) throws -> String { try TapeDecoding.string(context, index, codingPath) }
    func decode(_ type: Double.Type) throws -> Double { try TapeDecoding.double(context, index, codingPath) }
    func decode(_ type: Float.Type) throws -> Float { Float(try TapeDecoding.double(context, index, codingPath)) }
    func decode(_ type: Int.Type) throws -> Int { try TapeDecoding.integer(context, index, codingPath) }
    func decode(_ type: Int8.Type) throws -> Int8 { try TapeDecoding.integer(context, index, codingPath) }
    func decode(_ type: Int16.Type) throws -> Int16 { try TapeDecoding.integer(context, index, codingPath) }
    func decode(_ type: Int32.Type) throws -> Int32 { try TapeDecoding.integer(context, index, codingPath) }
    func decode(_ type: Int64.Type) throws -> Int64 { try TapeDecoding.integer(context, index, codingPath) }
    func decode(_ type: UInt.Type) throws -> UInt { try TapeDecoding.integer(context, index, codingPath) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try TapeDecoding.integer(context, index, codingPath) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try TapeDecoding.integer(context, index, codingPath) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try TapeDecoding.integer(context, index, codingPath) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try TapeDecoding.integer(context, index, codingPath) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try TapeDecoding.unbox(T.self, context, index, path: path) }
}
