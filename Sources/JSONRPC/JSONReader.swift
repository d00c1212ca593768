/// A type that reads itself straight from JSON, without `Codable`'s generic machinery: for params of hot
/// methods (the launch query, prefetch and report). It must accept and refuse exactly what its `Decodable`
/// conformance does, naming the same field in an error. Readers refuse members they do not know (as the params'
/// strict decoding does), also where a lenient decoder would be asked to ignore them.
public protocol JSONReadable: Decodable, SendableMetatype {
    init(json: JSONReader) throws
}

/// A type that writes itself as JSON directly: for results of hot methods. It must write what its `Encodable`
/// conformance would.
public protocol JSONWritable: Encodable {
    func write(json: inout JSONWriter)
}

/// One value of a parsed JSON text, read in place. Errors are `DecodingError`s with the value's path, the same
/// as `Codable` decoding gives, so a bad param is reported the same way on both paths.
public struct JSONReader {
    let tape: JSONTape
    let index: Int
    /// The token that paths are relative to, and the path to it (kept by the decoding that made this reader,
    /// which outlives it). The path to `index` is worked out from the tape only when an error needs it, so
    /// readers are plain values: no reference counting, no allocation.
    let base: Int
    let prefix: Unmanaged<PathNode>?

    init(tape: JSONTape, index: Int, path: PathNode?) {
        self.tape = tape
        self.index = index
        self.base = index
        self.prefix = path.map { Unmanaged.passUnretained($0) }
    }

    private init(tape: JSONTape, index: Int, base: Int, prefix: Unmanaged<PathNode>?) {
        self.tape = tape
        self.index = index
        self.base = base
        self.prefix = prefix
    }

    /// A reader for another token of the same tape.
    func child(_ childIndex: Int) -> JSONReader {
        JSONReader(tape: tape, index: childIndex, base: base, prefix: prefix)
    }

    /// This value's path as a node (for handing over to `Codable` decoding).
    var pathNode: PathNode? {
        var node = prefix?.takeUnretainedValue()
        for key in tape.path(from: base, to: index) { node = PathNode(parent: node, key: key) }
        return node
    }

    private var context: TapeDecoding.Context { TapeDecoding.Context(tape: tape, strict: true) }

    /// The path of this value, for errors.
    public var codingPath: [any CodingKey] { PathNode.codingPath(pathNode) }

    /// Whether the value is `null`.
    public var isNull: Bool { tape.kind(index) == .null }

    public func string() throws -> String { try TapeDecoding.string(context, index, codingPath) }
    public func int() throws -> Int { try TapeDecoding.integer(context, index, codingPath) }
    public func integer<I: FixedWidthInteger>(_ type: I.Type) throws -> I { try TapeDecoding.integer(context, index, codingPath) }
    public func double() throws -> Double { try TapeDecoding.double(context, index, codingPath) }
    public func bool() throws -> Bool { try TapeDecoding.bool(context, index, codingPath) }
    /// The value as a ``JSONValue``.
    public func value() -> JSONValue { tape.value(index) }

    /// Decodes any `Decodable` here (through ``JSONReadable`` when the type has it).
    public func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        if let readable = T.self as? JSONReadable.Type { return try readable.init(json: self) as! T }
        return try TapeDecoding.unbox(T.self, context, index, path: pathNode)
    }

    /// The elements of an array.
    public func array() throws -> [JSONReader] {
        guard tape.kind(index) == .array else { throw TapeDecoding.mismatch("an array", context, index, codingPath) }
        return tape.elements(index).map { child($0) }
    }

    /// The members of an object, refusing any whose name is not in `fields` (as strict `Codable` decoding does).
    /// Later lookups with the same `StaticString`s are then direct.
    public func object(fields: [StaticString]) throws -> JSONObjectReader {
        guard tape.kind(index) == .object else { throw TapeDecoding.mismatch("an object", context, index, codingPath) }
        var object = JSONObjectReader(reader: self, fields: fields)
        // Members usually come in the order the fields are listed: try that slot first.
        var expected = 0
        members: for (key, value) in tape.members(index) {
            for offset in 0..<fields.count {
                var slot = expected + offset
                if slot >= fields.count { slot -= fields.count }
                if tape.keyEquals(key, fields[slot]) {
                    object.setSlot(slot, value)
                    expected = slot + 1
                    continue members
                }
            }
            let name = tape.string(key)
            throw DecodingError.dataCorrupted(.init(codingPath: codingPath + [PathKey(stringValue: name)], debugDescription: "is not a known field"))
        }
        return object
    }
}

/// The members of a JSON object, looked up by name.
public struct JSONObjectReader {
    let reader: JSONReader
    /// The fields named when the object was read, and where each one's value is (for the first 16).
    private let fields: [StaticString]
    private var slots: (Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32,
                        Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32) =
        (-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1)

    init(reader: JSONReader, fields: [StaticString]) {
        self.reader = reader
        self.fields = fields
    }

    mutating func setSlot(_ slot: Int, _ value: Int) {
        guard slot < 16 else { return }
        withUnsafeMutableBytes(of: &slots) { $0.storeBytes(of: Int32(value), toByteOffset: slot * 4, as: Int32.self) }
    }

    /// The member `key`, or `nil` when absent. (A `null` member is returned; see ``optional(_:)``.)
    public subscript(key: StaticString) -> JSONReader? {
        let known = min(16, fields.count)
        var slot = 0
        while slot < known {
            if fields[slot].utf8Start == key.utf8Start { return self[slot: slot] }
            slot += 1
        }
        for (keyIndex, valueIndex) in reader.tape.members(reader.index) where reader.tape.keyEquals(keyIndex, key) {
            return reader.child(valueIndex)
        }
        return nil
    }

    /// The member named by `fields[slot]` (the list the object was read with), or `nil` when absent: a direct
    /// lookup, for the first 16 fields.
    public subscript(slot slot: Int) -> JSONReader? {
        let value = token(slot)
        return value < 0 ? nil : reader.child(value)
    }

    /// The token of the member in `slot`, or -1 when absent.
    @inline(__always)
    private func token(_ slot: Int) -> Int {
        precondition(slot >= 0 && slot < min(16, fields.count), "field slot \(slot) out of range")
        return withUnsafeBytes(of: slots) { Int($0.load(fromByteOffset: slot &* 4, as: Int32.self)) }
    }

    // Typed reads of a member by slot, straight from the tape: the same values and errors as reading the member's
    // `JSONReader`, without making one.

    /// The string in `slot`; `keyNotFound` when absent.
    public func string(slot: Int) throws -> String { try string(token: requiredToken(slot)) }

    /// The string in `slot`, or `nil` when it is absent or `null`.
    public func optionalString(slot: Int) throws -> String? { try presentToken(slot).map { try string(token: $0) } }

    /// The integer in `slot`; `keyNotFound` when absent.
    public func int(slot: Int) throws -> Int { try int(token: requiredToken(slot)) }

    /// The integer in `slot`, or `nil` when it is absent or `null`.
    public func optionalInt(slot: Int) throws -> Int? { try presentToken(slot).map { try int(token: $0) } }

    /// The token of the member in `slot`; `keyNotFound` when absent.
    @inline(__always)
    private func requiredToken(_ slot: Int) throws -> Int {
        let value = token(slot)
        guard value >= 0 else { throw missing(fields[slot]) }
        return value
    }

    /// The token of the member in `slot`, or `nil` when it is absent or `null`.
    @inline(__always)
    private func presentToken(_ slot: Int) -> Int? {
        let value = token(slot)
        return value >= 0 && reader.tape.kind(value) != .null ? value : nil
    }

    /// The UTF-8 of the string in `slot` where it lies in the request, when it has no escapes (`nil` when it has
    /// some: read it with ``string(slot:)``), without making a `String`; valid while the request's bytes are.
    /// `keyNotFound` when absent, a type error when it is not a string.
    public func plainUTF8(slot: Int) throws -> UnsafeRawBufferPointer? {
        let value = try requiredToken(slot)
        let tape = reader.tape
        switch tape.kind(value) {
        case .string: return tape.slice(value)
        case .escapedString: return nil
        default: throw TapeDecoding.mismatch("a string", TapeDecoding.Context(tape: tape, strict: true), value, reader.child(value).codingPath)
        }
    }

    @inline(__always)
    private func string(token: Int) throws -> String {
        let tape = reader.tape
        guard tape.kind(token) == .string else { return try reader.child(token).string() }  // escaped, or an error
        return String(decoding: tape.slice(token), as: UTF8.self)
    }

    @inline(__always)
    private func int(token: Int) throws -> Int {
        let tape = reader.tape
        // A plain integer at once; anything else (a fraction, an exponent, more digits, an error) the general way.
        if tape.kind(token) == .number, let value = TapeDecoding.plainInteger(tape.slice(token)), let result = Int(exactly: value) {
            return result
        }
        return try reader.child(token).int()
    }

    /// The member `key`, or `nil` when it is absent or `null` (like `decodeIfPresent`).
    public func optional(_ key: StaticString) -> JSONReader? {
        guard let member = self[key], !member.isNull else { return nil }
        return member
    }

    /// The member named by `fields[slot]`, or `nil` when it is absent or `null`.
    public func optional(slot: Int) -> JSONReader? {
        guard let member = self[slot: slot], !member.isNull else { return nil }
        return member
    }

    /// The member `key`; a `keyNotFound` error when absent.
    public func require(_ key: StaticString) throws -> JSONReader {
        guard let member = self[key] else { throw missing(key) }
        return member
    }

    /// The member named by `fields[slot]`; a `keyNotFound` error when absent.
    public func require(slot: Int) throws -> JSONReader {
        guard let member = self[slot: slot] else { throw missing(fields[slot]) }
        return member
    }

    private func missing(_ key: StaticString) -> DecodingError {
        DecodingError.keyNotFound(PathKey(stringValue: key.description), .init(codingPath: reader.codingPath, debugDescription: "is required"))
    }
}

extension JSONTape {
    /// Whether the key token at `index` spells `key`.
    func keyEquals(_ index: Int, _ key: StaticString) -> Bool {
        if kind(index) == .escapedString { return string(index) == key.description }
        return CompactReader.equals(slice(index), key)
    }
}
