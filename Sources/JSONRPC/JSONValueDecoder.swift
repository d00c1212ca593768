/// Decodes `Decodable` types from a ``JSONValue``, strictly.
///
/// Strict means: no type coercion (a string is never a number), integers must be exact and in range, and
/// (with ``rejectUnknownKeys``) an object member that the type's `CodingKeys` does not name is an error, so a
/// misspelt field is reported instead of silently ignored.
public struct JSONValueDecoder: Sendable {
    /// Refuse object members that the decoded type's coding keys do not name.
    public var rejectUnknownKeys: Bool

    public init(rejectUnknownKeys: Bool = true) {
        self.rejectUnknownKeys = rejectUnknownKeys
    }

    /// Decodes a `T` from `value`.
    public func decode<T: Decodable>(_ type: T.Type = T.self, from value: JSONValue) throws -> T {
        if T.self == JSONValue.self { return value as! T }
        return try T(from: ValueDecoder(value: value, codingPath: [], strict: rejectUnknownKeys))
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
        return Self.render(path)
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

    static func render(_ path: [any CodingKey]) -> String {
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
}

private struct ValueDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    let strict: Bool
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let object) = value else {
            throw DecodingError.typeMismatch(JSONObject.self, .init(codingPath: codingPath, debugDescription: "expected an object, got \(value.typeName)"))
        }
        if strict {
            for key in object.keys where Key(stringValue: key) == nil {
                throw DecodingError.dataCorrupted(.init(codingPath: codingPath + [PathKey(stringValue: key)], debugDescription: "is not a known field"))
            }
        }
        return KeyedDecodingContainer(KeyedContainer<Key>(object: object, codingPath: codingPath, strict: strict))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else {
            throw DecodingError.typeMismatch([JSONValue].self, .init(codingPath: codingPath, debugDescription: "expected an array, got \(value.typeName)"))
        }
        return UnkeyedContainer(elements: elements, codingPath: codingPath, strict: strict)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleContainer(value: value, codingPath: codingPath, strict: strict)
    }
}

private func mismatch(_ expected: String, _ value: JSONValue, _ path: [any CodingKey]) -> DecodingError {
    if case .null = value {
        return DecodingError.valueNotFound(Any.self, .init(codingPath: path, debugDescription: "expected \(expected), got null"))
    }
    return DecodingError.typeMismatch(Any.self, .init(codingPath: path, debugDescription: "expected \(expected), got \(value.typeName)"))
}

private func unboxBool(_ value: JSONValue, _ path: [any CodingKey]) throws -> Bool {
    guard case .bool(let flag) = value else { throw mismatch("a boolean", value, path) }
    return flag
}

private func unboxString(_ value: JSONValue, _ path: [any CodingKey]) throws -> String {
    guard case .string(let string) = value else { throw mismatch("a string", value, path) }
    return string
}

private func unboxInteger<I: FixedWidthInteger>(_ value: JSONValue, _ path: [any CodingKey]) throws -> I {
    guard case .number(let number) = value else { throw mismatch("an integer", value, path) }
    guard let result = number.exactly(I.self) else {
        let fractional = Double(number.text).map { $0 != $0.rounded(.towardZero) } ?? false
        throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: fractional
            ? "expected an integer, got \(number.text)"
            : "\(number.text) is out of range (\(I.min)...\(I.max))"))
    }
    return result
}

private func unboxDouble(_ value: JSONValue, _ path: [any CodingKey]) throws -> Double {
    guard case .number(let number) = value, let double = number.double, double.isFinite else { throw mismatch("a number", value, path) }
    return double
}

private func unbox<T: Decodable>(_ type: T.Type, _ value: JSONValue, _ path: [any CodingKey], strict: Bool) throws -> T {
    // Fast paths for the common leaf types.
    if T.self == String.self { return try unboxString(value, path) as! T }
    if T.self == Int.self { return try unboxInteger(value, path) as Int as! T }
    if T.self == Bool.self { return try unboxBool(value, path) as! T }
    if T.self == Double.self { return try unboxDouble(value, path) as! T }
    if T.self == JSONValue.self { return value as! T }
    return try T(from: ValueDecoder(value: value, codingPath: path, strict: strict))
}

private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let object: JSONObject
    let codingPath: [any CodingKey]
    let strict: Bool

    var allKeys: [Key] { object.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { object[key.stringValue] != nil }

    private func member(_ key: Key) throws -> JSONValue {
        guard let value = object[key.stringValue] else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "is required"))
        }
        return value
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        if case .null = try member(key) { return true }
        return false
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try unboxBool(member(key), codingPath + [key]) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try unboxString(member(key), codingPath + [key]) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try unboxDouble(member(key), codingPath + [key]) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { Float(try unboxDouble(member(key), codingPath + [key])) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try unboxInteger(member(key), codingPath + [key]) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try unboxInteger(member(key), codingPath + [key]) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try unboxInteger(member(key), codingPath + [key]) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try unboxInteger(member(key), codingPath + [key]) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try unboxInteger(member(key), codingPath + [key]) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try unboxInteger(member(key), codingPath + [key]) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try unboxInteger(member(key), codingPath + [key]) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try unboxInteger(member(key), codingPath + [key]) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try unboxInteger(member(key), codingPath + [key]) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try unboxInteger(member(key), codingPath + [key]) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try unbox(T.self, member(key), codingPath + [key], strict: strict)
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let value = object[key.stringValue] else { return nil }
        if case .null = value { return nil }
        return try unbox(T.self, value, codingPath + [key], strict: strict)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try ValueDecoder(value: member(key), codingPath: codingPath + [key], strict: strict).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try ValueDecoder(value: member(key), codingPath: codingPath + [key], strict: strict).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        ValueDecoder(value: object["super"] ?? .null, codingPath: codingPath + [PathKey(stringValue: "super")], strict: strict)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        ValueDecoder(value: object[key.stringValue] ?? .null, codingPath: codingPath + [key], strict: strict)
    }
}

private struct UnkeyedContainer: UnkeyedDecodingContainer {
    let elements: [JSONValue]
    let codingPath: [any CodingKey]
    let strict: Bool
    var currentIndex = 0

    init(elements: [JSONValue], codingPath: [any CodingKey], strict: Bool) {
        self.elements = elements
        self.codingPath = codingPath
        self.strict = strict
    }

    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    private mutating func next() throws -> (JSONValue, [any CodingKey]) {
        let path = codingPath + [PathKey(intValue: currentIndex)]
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(Any.self, .init(codingPath: path, debugDescription: "is missing: the array has only \(elements.count) elements"))
        }
        defer { currentIndex += 1 }
        return (elements[currentIndex], path)
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else { return false }
        if case .null = elements[currentIndex] {
            currentIndex += 1
            return true
        }
        return false
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let (value, path) = try next()
        return try unbox(T.self, value, path, strict: strict)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let (value, path) = try next()
        return try ValueDecoder(value: value, codingPath: path, strict: strict).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let (value, path) = try next()
        return try ValueDecoder(value: value, codingPath: path, strict: strict).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        let (value, path) = try next()
        return ValueDecoder(value: value, codingPath: path, strict: strict)
    }
}

private struct SingleContainer: SingleValueDecodingContainer {
    let value: JSONValue
    let codingPath: [any CodingKey]
    let strict: Bool

    func decodeNil() -> Bool {
        if case .null = value { return true }
        return false
    }

    func decode(_ type: Bool.Type) throws -> Bool { try unboxBool(value, codingPath) }
    func decode(_ type: String.Type) throws -> String { try unboxString(value, codingPath) }
    func decode(_ type: Double.Type) throws -> Double { try unboxDouble(value, codingPath) }
    func decode(_ type: Float.Type) throws -> Float { Float(try unboxDouble(value, codingPath)) }
    func decode(_ type: Int.Type) throws -> Int { try unboxInteger(value, codingPath) }
    func decode(_ type: Int8.Type) throws -> Int8 { try unboxInteger(value, codingPath) }
    func decode(_ type: Int16.Type) throws -> Int16 { try unboxInteger(value, codingPath) }
    func decode(_ type: Int32.Type) throws -> Int32 { try unboxInteger(value, codingPath) }
    func decode(_ type: Int64.Type) throws -> Int64 { try unboxInteger(value, codingPath) }
    func decode(_ type: UInt.Type) throws -> UInt { try unboxInteger(value, codingPath) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try unboxInteger(value, codingPath) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try unboxInteger(value, codingPath) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try unboxInteger(value, codingPath) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try unboxInteger(value, codingPath) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try unbox(T.self, value, codingPath, strict: strict) }
}
