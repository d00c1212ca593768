/// A JSON value as RFC 8259 defines it.
///
/// Numbers keep their literal text, so an id such as `1.50` or `12345678901234567890` is echoed exactly as
/// it came; objects keep their members in order.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)
}

/// A JSON number kept as its literal text (already validated against the JSON grammar).
public struct JSONNumber: Sendable, Hashable, CustomStringConvertible {
    /// The number as written in JSON.
    public let text: String

    /// A number from JSON text that the parser has validated.
    init(validatedText text: String) { self.text = text }

    /// A number from JSON text, or `nil` when the text is not a JSON number.
    public init?(text: String) {
        guard let parsed = try? JSONParser.parse(Array(text.utf8)), case .number(let number) = parsed else { return nil }
        self = number
    }

    public init<I: BinaryInteger>(_ value: I) { text = String(value) }

    /// A number from a finite double; `nil` for NaN and infinities, which JSON cannot express.
    public init?(_ value: Double) {
        guard value.isFinite else { return nil }
        if value == value.rounded(), abs(value) < 1e15 {
            text = String(Int64(value))
        } else {
            text = "\(value)"
        }
    }

    /// The value as an exact integer, or `nil` when it is fractional or out of range.
    public func exactly<I: FixedWidthInteger>(_: I.Type = I.self) -> I? {
        if let value = I(text) { return value }
        // 1.0 or 1e3 are integers too, when exact.
        guard let double = Double(text), double == double.rounded(.towardZero), let value = I(exactly: double) else {
            return nil
        }
        return value
    }

    /// The value as a double (possibly rounded).
    public var double: Double? { Double(text) }

    public var description: String { text }

    public static func == (lhs: JSONNumber, rhs: JSONNumber) -> Bool {
        if lhs.text == rhs.text { return true }
        if let l = Int64(lhs.text), let r = Int64(rhs.text) { return l == r }
        guard let l = Double(lhs.text), let r = Double(rhs.text) else { return false }
        return l == r
    }

    public func hash(into hasher: inout Hasher) {
        if let value = Int64(text) { hasher.combine(Double(value)) } else { hasher.combine(Double(text) ?? 0) }
    }
}

/// A JSON object: members in their order, looked up by key.
public struct JSONObject: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    public typealias Member = (key: String, value: JSONValue)
    @usableFromInline var storage: [Member]

    public init() { storage = [] }
    public init(members: [Member]) { storage = members }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        storage = elements.map { (key: $0.0, value: $0.1) }
    }

    /// The member count.
    public var count: Int { storage.count }
    public var isEmpty: Bool { storage.isEmpty }
    /// The keys in order.
    public var keys: [String] { storage.map(\.key) }

    /// The value of `key`, or `nil`. Setting replaces the member in place or appends it; `nil` removes it.
    public subscript(key: String) -> JSONValue? {
        get {
            for member in storage where member.key == key { return member.value }
            return nil
        }
        set {
            if let index = storage.firstIndex(where: { $0.key == key }) {
                if let newValue { storage[index].value = newValue } else { storage.remove(at: index) }
            } else if let newValue {
                storage.append((key: key, value: newValue))
            }
        }
    }

    public func makeIterator() -> IndexingIterator<[Member]> { storage.makeIterator() }

    /// Equal when both have the same keys with equal values, whatever the order.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for member in lhs.storage where rhs[member.key] != member.value { return false }
        return true
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        var combined = 0
        for member in storage { combined ^= member.key.hashValue }
        hasher.combine(combined)
    }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .number(JSONNumber(value)) }
    public init(floatLiteral value: Double) { self = .number(JSONNumber(value) ?? JSONNumber(0)) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(members: elements.map { (key: $0.0, value: $0.1) }))
    }
}

extension JSONValue {
    /// The object's member `key`, or `nil` when this is not an object or has no such member.
    public subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    /// The string, or `nil`.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The number as an `Int`, or `nil`.
    public var intValue: Int? {
        if case .number(let value) = self { return value.exactly(Int.self) }
        return nil
    }

    /// The number as a `Double`, or `nil`.
    public var doubleValue: Double? {
        if case .number(let value) = self { return value.double }
        return nil
    }

    /// The Boolean, or `nil`.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The array, or `nil`.
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The object, or `nil`.
    public var objectValue: JSONObject? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// The JSON type's name, for error messages.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}
