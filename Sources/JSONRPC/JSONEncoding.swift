/// Encodes `Encodable` values as JSON, writing text directly (no intermediate tree).
///
/// Optional properties that are `nil` are left out (as synthesized `Encodable` does); non-finite floating-point
/// numbers are refused, since JSON cannot express them. Containers must be filled in order (finish a nested
/// container before writing to its parent again), which synthesized and ordinary hand-written conformances do;
/// anything else is refused with an `EncodingError`.
public struct JSONValueEncoder: Sendable {
    public init() {}

    /// Encodes `value` as a ``JSONValue``.
    public func encode<T: Encodable>(_ value: T) throws -> JSONValue {
        if let json = value as? JSONValue { return json }
        return try JSONParser.parse(encodeJSON(value))
    }

    /// Encodes `value` as JSON text.
    public func encodeJSON<T: Encodable>(_ value: T) throws -> [UInt8] {
        var writer = JSONWriter()
        try encode(value, into: &writer)
        return writer.bytes
    }

    /// Appends `value` as JSON text to `writer`.
    public func encode<T: Encodable>(_ value: T, into writer: inout JSONWriter) throws {
        if let json = value as? JSONValue {
            writer.write(json)
            return
        }
        let state = EncoderState(writer: writer)
        writer = .placeholder  // hand the buffer to the state without copying
        defer { writer = state.writer }
        try StreamEncoding.write(value, state: state, depth: 0, path: nil)
        try state.finish()
    }
}

/// The encoder's shared state: the text so far and the stack of open containers.
final class EncoderState {
    struct Open {
        let id: Int
        let isObject: Bool
        var count: Int
    }

    var writer: JSONWriter
    var stack: [Open] = []
    var nextId = 0

    init(writer: JSONWriter) {
        self.writer = writer
        stack.reserveCapacity(8)
    }

    /// Closes containers deeper than `depth` (finished children of the container at `depth - 1`).
    @inline(__always)
    func closeAbove(_ depth: Int) {
        while stack.count > depth {
            let open = stack.removeLast()
            writer.append(open.isObject ? UInt8(ascii: "}") : UInt8(ascii: "]"))
        }
    }

    func open(isObject: Bool, depth: Int, path: PathNode?) throws -> Int {
        guard stack.count >= depth else { throw StreamEncoding.outOfOrder(path) }
        closeAbove(depth)
        nextId += 1
        stack.append(Open(id: nextId, isObject: isObject, count: 0))
        writer.append(isObject ? UInt8(ascii: "{") : UInt8(ascii: "["))
        return nextId
    }

    /// Makes the container `id` at `depth` current for a new member or element; writes the separator.
    @inline(__always)
    func prepareEntry(id: Int, depth: Int, path: PathNode?) throws {
        guard stack.count > depth, stack[depth].id == id else { throw StreamEncoding.outOfOrder(path) }
        closeAbove(depth + 1)
        if stack[depth].count > 0 { writer.append(UInt8(ascii: ",")) }
        stack[depth].count += 1
    }

    func finish() throws {
        closeAbove(0)
    }
}

enum StreamEncoding {
    static func outOfOrder(_ path: PathNode?) -> EncodingError {
        EncodingError.invalidValue((), .init(codingPath: PathNode.codingPath(path),
                                             debugDescription: "containers must be filled in order"))
    }

    static func double(_ value: Double, _ state: EncoderState, _ path: @autoclosure () -> PathNode?) throws {
        guard value.isFinite else {
            throw EncodingError.invalidValue(value, .init(codingPath: PathNode.codingPath(path()), debugDescription: "\(value) cannot be written as JSON"))
        }
        state.writer.write(double: value)
    }

    /// Writes one value at the current position (the slot after a key, an array position, or the top).
    static func write<T: Encodable>(_ value: T, state: EncoderState, depth: Int, path: PathNode?) throws {
        switch value {
        case let string as String: state.writer.write(string: string)
        case let int as Int: state.writer.write(int: int)
        case let flag as Bool: state.writer.writeRaw(flag ? "true" : "false")
        case let double as Double: try StreamEncoding.double(double, state, path)
        case let json as JSONValue: state.writer.write(json)
        default:
            let before = state.writer.count
            let startDepth = state.stack.count
            try value.encode(to: StreamEncoder(state: state, depth: depth, path: path))
            // A value that wrote nothing at all is an empty object.
            if state.writer.count == before && state.stack.count == startDepth {
                state.writer.writeRaw("{}")
            }
        }
    }
}

private struct StreamEncoder: Encoder {
    let state: EncoderState
    let depth: Int
    let path: PathNode?
    var codingPath: [any CodingKey] { PathNode.codingPath(path) }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let id = (try? state.open(isObject: true, depth: depth, path: path)) ?? -1
        return KeyedEncodingContainer(StreamKeyedContainer<Key>(state: state, id: id, depth: depth, path: path))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let id = (try? state.open(isObject: false, depth: depth, path: path)) ?? -1
        return StreamUnkeyedContainer(state: state, id: id, depth: depth, path: path)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        StreamSingleContainer(state: state, depth: depth, path: path)
    }
}

private struct StreamKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let state: EncoderState
    let id: Int
    let depth: Int
    let path: PathNode?
    var codingPath: [any CodingKey] { PathNode.codingPath(path) }

    @inline(__always)
    private func key(_ key: Key) throws {
        try state.prepareEntry(id: id, depth: depth, path: path)
        state.writer.write(string: key.stringValue)
        state.writer.append(UInt8(ascii: ":"))
    }

    mutating func encodeNil(forKey key: Key) throws { try self.key(key); state.writer.writeRaw("null") }
    mutating func encode(_ value: Bool, forKey key: Key) throws { try self.key(key); state.writer.writeRaw(value ? "true" : "false") }
    mutating func encode(_ value: String, forKey key: Key) throws { try self.key(key); state.writer.write(string: value) }
    mutating func encode(_ value: Int, forKey key: Key) throws { try self.key(key); state.writer.write(int: value) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try self.key(key); state.writer.write(int: Int(value)) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try self.key(key); state.writer.writeRaw(String(value)) }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        try self.key(key)
        try StreamEncoding.double(value, state, PathNode(parent: path, key: key))
    }
    mutating func encode(_ value: Float, forKey key: Key) throws { try encode(Double(value), forKey: key) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try self.key(key)
        try StreamEncoding.write(value, state: state, depth: depth + 1, path: PathNode(parent: path, key: key))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        _ = try? self.key(key)
        return StreamEncoder(state: state, depth: depth + 1, path: PathNode(parent: path, key: key)).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        _ = try? self.key(key)
        return StreamEncoder(state: state, depth: depth + 1, path: PathNode(parent: path, key: key)).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        superEncoder(forKey: Key(stringValue: "super")!)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        _ = try? self.key(key)
        return StreamEncoder(state: state, depth: depth + 1, path: PathNode(parent: path, key: key))
    }
}

private struct StreamUnkeyedContainer: UnkeyedEncodingContainer {
    let state: EncoderState
    let id: Int
    let depth: Int
    let path: PathNode?
    private(set) var count = 0

    init(state: EncoderState, id: Int, depth: Int, path: PathNode?) {
        self.state = state
        self.id = id
        self.depth = depth
        self.path = path
    }

    var codingPath: [any CodingKey] { PathNode.codingPath(path) }

    private mutating func element() throws -> PathNode {
        try state.prepareEntry(id: id, depth: depth, path: path)
        defer { count += 1 }
        return PathNode(parent: path, key: PathKey(intValue: count))
    }

    mutating func encodeNil() throws { _ = try element(); state.writer.writeRaw("null") }
    mutating func encode(_ value: Bool) throws { _ = try element(); state.writer.writeRaw(value ? "true" : "false") }
    mutating func encode(_ value: String) throws { _ = try element(); state.writer.write(string: value) }
    mutating func encode(_ value: Int) throws { _ = try element(); state.writer.write(int: value) }
    mutating func encode(_ value: Double) throws {
        let node = try element()
        try StreamEncoding.double(value, state, node)
    }
    mutating func encode<T: Encodable>(_ value: T) throws {
        let node = try element()
        try StreamEncoding.write(value, state: state, depth: depth + 1, path: node)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let node = (try? element()) ?? path
        return StreamEncoder(state: state, depth: depth + 1, path: node).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let node = (try? element()) ?? path
        return StreamEncoder(state: state, depth: depth + 1, path: node).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        let node = (try? element()) ?? path
        return StreamEncoder(state: state, depth: depth + 1, path: node)
    }
}

private struct StreamSingleContainer: SingleValueEncodingContainer {
    let state: EncoderState
    let depth: Int
    let path: PathNode?
    var codingPath: [any CodingKey] { PathNode.codingPath(path) }

    private func prepare() throws {
        guard state.stack.count >= depth else { throw StreamEncoding.outOfOrder(path) }
        state.closeAbove(depth)
    }

    mutating func encodeNil() throws { try prepare(); state.writer.writeRaw("null") }
    mutating func encode(_ value: Bool) throws { try prepare(); state.writer.writeRaw(value ? "true" : "false") }
    mutating func encode(_ value: String) throws { try prepare(); state.writer.write(string: value) }
    mutating func encode(_ value: Int) throws { try prepare(); state.writer.write(int: value) }
    mutating func encode(_ value: Int64) throws { try prepare(); state.writer.write(int: Int(value)) }
    mutating func encode(_ value: UInt64) throws { try prepare(); state.writer.writeRaw(String(value)) }
    mutating func encode(_ value: Double) throws { try prepare(); try StreamEncoding.double(value, state, path) }
    mutating func encode(_ value: Float) throws { try encode(Double(value)) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        try prepare()
        try StreamEncoding.write(value, state: state, depth: depth, path: path)
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
