/// A type that reads itself straight from JSON, without `Codable`'s generic machinery: for params of hot
/// methods (the launch query, prefetch and report) and for what an edge reads of every change (a campaign). It must
/// accept and refuse exactly what its `Decodable` conformance does, naming the same field in an error. Members it does
/// not know are refused when the decoding is strict (as the params' is) and passed over when it is lenient (as the
/// update stream's is), as `Codable` decoding does: ``JSONReader/object(_:)`` and ``JSONReader/object(fields:)`` follow
/// the reader's ``JSONReader/strict``.
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
    /// Whether members a type does not know are refused (else passed over), as the decoding that made the reader says.
    public let strict: Bool

    init(tape: JSONTape, index: Int, path: PathNode?, strict: Bool = true) {
        self.tape = tape
        self.index = index
        self.base = index
        self.prefix = path.map { Unmanaged.passUnretained($0) }
        self.strict = strict
    }

    private init(tape: JSONTape, index: Int, base: Int, prefix: Unmanaged<PathNode>?, strict: Bool) {
        self.tape = tape
        self.index = index
        self.base = base
        self.prefix = prefix
        self.strict = strict
    }

    /// A reader for another token of the same tape.
    @usableFromInline
    func child(_ childIndex: Int) -> JSONReader {
        JSONReader(tape: tape, index: childIndex, base: base, prefix: prefix, strict: strict)
    }

    /// This value's path as a node (for handing over to `Codable` decoding).
    var pathNode: PathNode? {
        var node = prefix?.takeUnretainedValue()
        for key in tape.path(from: base, to: index) { node = PathNode(parent: node, key: key) }
        return node
    }

    private var context: TapeDecoding.Context { TapeDecoding.Context(tape: tape, strict: strict) }

    /// The path of this value, for errors.
    public var codingPath: [any CodingKey] { PathNode.codingPath(pathNode) }

    /// Whether the value is `null`.
    public var isNull: Bool { tape.kind(index) == .null }

    public func string() throws -> String { try TapeDecoding.string(context, index, codingPath) }
    public func int() throws -> Int { try TapeDecoding.integer(context, index, codingPath) }
    public func integer<I: FixedWidthInteger>(_ type: I.Type) throws -> I { try TapeDecoding.integer(context, index, codingPath) }
    public func double() throws -> Double { try TapeDecoding.double(context, index, codingPath) }
    public func bool() throws -> Bool { try TapeDecoding.bool(context, index, codingPath) }
    /// A case of a string-valued enumeration: what its `Codable` conformance reads, the same error included.
    /// Inlinable, so that the case is found by the enumeration's own code rather than through its generic witnesses.
    @inlinable
    public func enumeration<E: RawRepresentable & Decodable>(_ type: E.Type = E.self) throws -> E where E.RawValue == String {
        if let value = E(rawValue: try string()) { return value }
        return try decode(E.self)
    }

    /// An array of strings.
    public func strings() throws -> [String] { try array().map { try $0.string() } }

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

    /// The members of an object, refusing any whose name is not in `fields` when the decoding is strict (passing
    /// over it when not), as `Codable` decoding does, then looked up by name: for readers written by hand. A type's
    /// own reader declares its fields once instead, as ``JSONFieldKey``s, and reads them with ``object(_:)``.
    public func object(fields: [StaticString]) throws -> JSONObjectByName {
        guard tape.kind(index) == .object else { throw mismatch("an object") }
        var object = JSONObjectByName(reader: self, fields: fields)
        // Members usually come in the order the fields are listed: try that slot first.
        var expected = 0
        members: for (key, value) in tape.members(index) {
            for offset in 0..<fields.count {
                var slot = expected + offset
                if slot >= fields.count { slot -= fields.count }
                if tape.keyEquals(key, fields[slot]) {
                    object.slots.set(slot, value)
                    expected = slot + 1
                    continue members
                }
            }
            if strict { throw unknownMember(key) }
        }
        return object
    }

    /// The error for a value that is not of the type expected.
    func mismatch(_ expected: String) -> DecodingError { TapeDecoding.mismatch(expected, context, index, codingPath) }
}

/// The members of a JSON object read with ``JSONReader/object(fields:)``, looked up by name.
public struct JSONObjectByName {
    let reader: JSONReader
    /// The fields named when the object was read, and where each one's value is (for the first 16).
    private let fields: [StaticString]
    var slots = MemberSlots()

    init(reader: JSONReader, fields: [StaticString]) {
        self.reader = reader
        self.fields = fields
    }

    /// The member `key`, or `nil` when absent. (A `null` member is returned; see ``optional(_:)``.)
    public subscript(key: StaticString) -> JSONReader? {
        let known = min(MemberSlots.capacity, fields.count)
        var slot = 0
        while slot < known {
            if fields[slot].utf8Start == key.utf8Start {
                let token = slots[slot]
                return token < 0 ? nil : reader.child(token)
            }
            slot += 1
        }
        for (keyIndex, valueIndex) in reader.tape.members(reader.index) where reader.tape.keyEquals(keyIndex, key) {
            return reader.child(valueIndex)
        }
        return nil
    }

    /// The member `key`, or `nil` when it is absent or `null` (like `decodeIfPresent`).
    public func optional(_ key: StaticString) -> JSONReader? {
        guard let member = self[key], !member.isNull else { return nil }
        return member
    }

    /// The member `key`; a `keyNotFound` error when absent.
    public func require(_ key: StaticString) throws -> JSONReader {
        guard let member = self[key] else { throw reader.missing(PathKey(stringValue: key.description)) }
        return member
    }
}

extension JSONTape {
    /// Whether the key token at `index` spells `key`.
    func keyEquals(_ index: Int, _ key: StaticString) -> Bool {
        if kind(index) == .escapedString { return string(index) == key.description }
        return CompactReader.equals(slice(index), key)
    }
}
