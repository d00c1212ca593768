/// Encodes `Encodable` values into a ``JSONValue``.
///
/// Optional properties that are `nil` are left out (as synthesized `Encodable` does with `encodeIfPresent`);
/// non-finite floating-point numbers are refused, since JSON cannot express them.
public struct JSONValueEncoder: Sendable {
    public init() {}

    /// Encodes `value`.
    public func encode<T: Encodable>(_ value: T) throws -> JSONValue {
        if let json = value as? JSONValue { return json }
        let node = Node()
        try value.encode(to: ValueEncoder(node: node, codingPath: []))
        return node.materialize()
    }
}

/// A value under construction; containers write into it and nested containers hang their own nodes in it.
private final class Node {
    enum Content {
        case unset
        case value(JSONValue)
        case object(keys: [String], children: [Node])
        case array([Node])
    }

    var content: Content = .unset

    init() {}
    init(_ value: JSONValue) { content = .value(value) }

    func materialize() -> JSONValue {
        switch content {
        case .unset: return .object(JSONObject())
        case .value(let value): return value
        case .object(let keys, let children):
            var members: [JSONObject.Member] = []
            members.reserveCapacity(keys.count)
            for (key, child) in zip(keys, children) { members.append((key: key, value: child.materialize())) }
            return .object(JSONObject(members: members))
        case .array(let children):
            return .array(children.map { $0.materialize() })
        }
    }

    func set(_ key: String, _ child: Node) {
        if case .object(var keys, var children) = content {
            if let index = keys.firstIndex(of: key) {
                children[index] = child
            } else {
                keys.append(key)
                children.append(child)
            }
            content = .object(keys: keys, children: children)
        } else {
            content = .object(keys: [key], children: [child])
        }
    }

    func append(_ child: Node) {
        if case .array(var children) = content {
            children.append(child)
            content = .array(children)
        } else {
            content = .array([child])
        }
    }

    var arrayCount: Int {
        if case .array(let children) = content { return children.count }
        return 0
    }
}

private func box<T: Encodable>(_ value: T, _ path: [any CodingKey]) throws -> Node {
    switch value {
    case let json as JSONValue: return Node(json)
    case let string as String: return Node(.string(string))
    case let int as Int: return Node(.number(JSONNumber(int)))
    case let flag as Bool: return Node(.bool(flag))
    case let double as Double: return Node(try boxDouble(double, path))
    default:
        let node = Node()
        try value.encode(to: ValueEncoder(node: node, codingPath: path))
        return node
    }
}

private func boxDouble(_ value: Double, _ path: [any CodingKey]) throws -> JSONValue {
    guard let number = JSONNumber(value) else {
        throw EncodingError.invalidValue(value, .init(codingPath: path, debugDescription: "\(value) cannot be written as JSON"))
    }
    return .number(number)
}

private struct ValueEncoder: Encoder {
    let node: Node
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .object = node.content {} else { node.content = .object(keys: [], children: []) }
        return KeyedEncodingContainer(KeyedContainer<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .array = node.content {} else { node.content = .array([]) }
        return UnkeyedContainer(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleContainer(node: node, codingPath: codingPath)
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: Node
    let codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) { node.set(key.stringValue, Node(.null)) }
    mutating func encode(_ value: Bool, forKey key: Key) { node.set(key.stringValue, Node(.bool(value))) }
    mutating func encode(_ value: String, forKey key: Key) { node.set(key.stringValue, Node(.string(value))) }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        node.set(key.stringValue, Node(try boxDouble(value, codingPath + [key])))
    }
    mutating func encode(_ value: Float, forKey key: Key) throws {
        node.set(key.stringValue, Node(try boxDouble(Double(value), codingPath + [key])))
    }
    mutating func encode(_ value: Int, forKey key: Key) { node.set(key.stringValue, Node(.number(JSONNumber(value)))) }
    mutating func encode(_ value: Int64, forKey key: Key) { node.set(key.stringValue, Node(.number(JSONNumber(value)))) }
    mutating func encode(_ value: UInt64, forKey key: Key) { node.set(key.stringValue, Node(.number(JSONNumber(value)))) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        node.set(key.stringValue, try box(value, codingPath + [key]))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let child = Node()
        node.set(key.stringValue, child)
        return ValueEncoder(node: child, codingPath: codingPath + [key]).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = Node()
        node.set(key.stringValue, child)
        return ValueEncoder(node: child, codingPath: codingPath + [key]).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        let child = Node()
        node.set("super", child)
        return ValueEncoder(node: child, codingPath: codingPath + [PathKey(stringValue: "super")])
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        let child = Node()
        node.set(key.stringValue, child)
        return ValueEncoder(node: child, codingPath: codingPath + [key])
    }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let node: Node
    let codingPath: [any CodingKey]
    var count: Int { node.arrayCount }

    private var nextPath: [any CodingKey] { codingPath + [PathKey(intValue: count)] }

    mutating func encodeNil() { node.append(Node(.null)) }
    mutating func encode(_ value: Bool) { node.append(Node(.bool(value))) }
    mutating func encode(_ value: String) { node.append(Node(.string(value))) }
    mutating func encode(_ value: Int) { node.append(Node(.number(JSONNumber(value)))) }
    mutating func encode(_ value: Double) throws { node.append(Node(try boxDouble(value, nextPath))) }
    mutating func encode<T: Encodable>(_ value: T) throws { node.append(try box(value, nextPath)) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let child = Node()
        let path = nextPath
        node.append(child)
        return ValueEncoder(node: child, codingPath: path).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let child = Node()
        let path = nextPath
        node.append(child)
        return ValueEncoder(node: child, codingPath: path).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        let child = Node()
        let path = nextPath
        node.append(child)
        return ValueEncoder(node: child, codingPath: path)
    }
}

private struct SingleContainer: SingleValueEncodingContainer {
    let node: Node
    let codingPath: [any CodingKey]

    mutating func encodeNil() { node.content = .value(.null) }
    mutating func encode(_ value: Bool) { node.content = .value(.bool(value)) }
    mutating func encode(_ value: String) { node.content = .value(.string(value)) }
    mutating func encode(_ value: Int) { node.content = .value(.number(JSONNumber(value))) }
    mutating func encode(_ value: Int64) { node.content = .value(.number(JSONNumber(value))) }
    mutating func encode(_ value: UInt64) { node.content = .value(.number(JSONNumber(value))) }
    mutating func encode(_ value: Double) throws { node.content = .value(try boxDouble(value, codingPath)) }
    mutating func encode(_ value: Float) throws { node.content = .value(try boxDouble(Double(value), codingPath)) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        let boxed = try box(value, codingPath)
        node.content = boxed.content
    }
}

// MARK: - JSONValue as Codable

extension JSONValue: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let flag = try? container.decode(Bool.self) {
            self = .bool(flag)
        } else if let int = try? container.decode(Int64.self) {
            self = .number(JSONNumber(int))
        } else if let double = try? container.decode(Double.self), let number = JSONNumber(double) {
            self = .number(number)
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else if let array = try? container.decode([JSONValue].self) {
            self = .array(array)
        } else if let object = try? container.decode([String: JSONValue].self) {
            self = .object(JSONObject(members: object.sorted { $0.key < $1.key }.map { (key: $0.key, value: $0.value) }))
        } else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a JSON value"))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let flag):
            var container = encoder.singleValueContainer()
            try container.encode(flag)
        case .number(let number):
            var container = encoder.singleValueContainer()
            if let int = Int64(number.text) { try container.encode(int) } else { try container.encode(number.double ?? 0) }
        case .string(let string):
            var container = encoder.singleValueContainer()
            try container.encode(string)
        case .array(let elements):
            var container = encoder.unkeyedContainer()
            for element in elements { try container.encode(element) }
        case .object(let object):
            var container = encoder.container(keyedBy: PathKey.self)
            for member in object { try container.encode(member.value, forKey: PathKey(stringValue: member.key)) }
        }
    }
}
