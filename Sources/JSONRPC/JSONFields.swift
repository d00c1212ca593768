/// The coding keys of a type whose fields are declared once, as the cases of one enumeration: the case names are
/// the members' names (for the synthesized `Codable` conformance, the readers and the schema), and the raw values,
/// 0, 1, 2... in the order of the cases, are their slots in the readers.
///
///     public enum CodingKeys: Int, JSONFieldKey { case app, platform, appVersion }
///
/// Read with ``JSONFields``: ``JSONReader/object(_:)`` and ``CompactReader/member(_:in:)`` find each member's key.
public protocol JSONFieldKey: CodingKey, CaseIterable, Hashable, RawRepresentable, Sendable where RawValue == Int {}

extension JSONFieldKey {
    /// A field key names an object's member, never an array's element: its raw value is a slot, not an index, so
    /// paths in errors read `region`, not `[3]`.
    public var intValue: Int? { nil }
    public init?(intValue: Int) { nil }
}

/// The names of a type's fields, taken once from its ``JSONFieldKey``s, and the lookup of a member's name to its
/// key that the tape and compact readers share. Make it once per type, as a `static let`.
public final class JSONFields<Key: JSONFieldKey>: @unchecked Sendable {
    // Unchecked: the names and spans are written in `init` and only read afterwards (and freed in `deinit`).

    /// The most fields a type may have (the slots ``JSONObjectReader`` keeps).
    public static var capacity: Int { JSONObjectReader<Key>.capacity }

    /// How many fields there are.
    public let count: Int
    /// The names' UTF-8, one after another; `spans[slot]` says where each is.
    @usableFromInline let names: UnsafeMutableRawPointer
    @usableFromInline let spans: UnsafeMutablePointer<(start: Int, count: Int)>

    public init(_ type: Key.Type = Key.self) {
        let keys = Array(Key.allCases)
        precondition(keys.count <= Self.capacity, "\(Key.self) has more than \(Self.capacity) fields")
        count = keys.count
        let utf8 = keys.map { Array($0.stringValue.utf8) }
        names = UnsafeMutableRawPointer.allocate(byteCount: max(1, utf8.reduce(0) { $0 + $1.count }), alignment: 8)
        spans = UnsafeMutablePointer.allocate(capacity: max(1, keys.count))
        var start = 0
        for (slot, key) in keys.enumerated() {
            precondition(key.rawValue == slot, "\(Key.self).\(key.stringValue) is case \(slot) but has raw value \(key.rawValue)")
            precondition(Key(stringValue: key.stringValue)?.rawValue == slot, "\(Key.self).\(key.stringValue) is named twice")
            let name = utf8[slot]
            name.withUnsafeBytes { (names + start).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
            (spans + slot).initialize(to: (start, name.count))
            start += name.count
        }
    }

    deinit {
        names.deallocate()
        spans.deallocate()
    }

    /// The key whose name is `name`, trying `expected`'s slot first and then the others in order (members usually
    /// come in the order the fields are declared); `nil` when no field has that name.
    @inlinable @inline(__always)
    public func slot(of name: UnsafeRawBufferPointer, from expected: Int) -> Int? {
        var slot = expected
        var tried = 0
        while tried < count {
            if slot >= count { slot = 0 }
            let span = spans[slot]
            if span.count == name.count && CompactReader.equals(name, UnsafeRawPointer(names + span.start), count: span.count) {
                return slot
            }
            slot += 1
            tried += 1
        }
        return nil
    }

    /// The key whose name is `name`, or `nil`.
    public func key(named name: String) -> Key? {
        var name = name
        return name.withUTF8 { slot(of: UnsafeRawBufferPointer($0), from: 0) }.flatMap(Key.init(rawValue:))
    }
}

// MARK: Reading from the tape

extension JSONReader {
    /// The members of an object whose fields are `fields`, refusing any member they do not name (as strict `Codable`
    /// decoding does); each is then found by its key, directly.
    public func object<Key>(_ fields: JSONFields<Key>) throws -> JSONObjectReader<Key> {
        guard tape.kind(index) == .object else { throw mismatch("an object") }
        var object = JSONObjectReader<Key>(reader: self)
        var expected = 0
        for (key, value) in tape.members(index) {
            let slot: Int?
            if tape.kind(key) == .escapedString {
                var name = tape.string(key)
                slot = name.withUTF8 { fields.slot(of: UnsafeRawBufferPointer($0), from: expected) }
            } else {
                slot = fields.slot(of: tape.slice(key), from: expected)
            }
            guard let slot else { throw unknownMember(key) }
            object.slots.set(slot, value)
            expected = slot + 1
        }
        return object
    }
}

/// Where the members of an object are, by slot: the token of each one's value, or -1 when absent.
@usableFromInline
struct MemberSlots {
    static let capacity = 16
    @usableFromInline var tokens: (Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32,
                                   Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32) =
        (-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1)

    init() {}

    mutating func set(_ slot: Int, _ token: Int) {
        guard slot < Self.capacity else { return }
        withUnsafeMutableBytes(of: &tokens) { $0.storeBytes(of: Int32(token), toByteOffset: slot * 4, as: Int32.self) }
    }

    /// The token in `slot`, or -1.
    @inlinable @inline(__always)
    subscript(slot: Int) -> Int {
        precondition(slot >= 0 && slot < 16, "field slot \(slot) out of range")
        return withUnsafeBytes(of: tokens) { Int($0.load(fromByteOffset: slot &* 4, as: Int32.self)) }
    }
}

/// The members of a JSON object read with ``JSONReader/object(_:)``, found by their keys.
public struct JSONObjectReader<Key: JSONFieldKey> {
    /// The most fields a type may have.
    public static var capacity: Int { MemberSlots.capacity }

    @usableFromInline let reader: JSONReader
    @usableFromInline var slots = MemberSlots()

    init(reader: JSONReader) {
        self.reader = reader
    }

    /// The member `key`, or `nil` when absent. (A `null` member is returned; see ``optional(_:)``.)
    @inlinable
    public subscript(key: Key) -> JSONReader? {
        let token = slots[key.rawValue]
        return token < 0 ? nil : reader.child(token)
    }

    /// The member `key`, or `nil` when it is absent or `null` (like `decodeIfPresent`).
    @inlinable
    public func optional(_ key: Key) -> JSONReader? {
        guard let member = self[key], !member.isNull else { return nil }
        return member
    }

    /// The member `key`; a `keyNotFound` error when absent.
    @inlinable
    public func require(_ key: Key) throws -> JSONReader {
        guard let member = self[key] else { throw reader.missing(key) }
        return member
    }

    // Typed reads of a member, straight from the tape: the same values and errors as reading the member's
    // `JSONReader`, without making one.

    /// The string `key`; `keyNotFound` when absent.
    @inlinable
    public func string(_ key: Key) throws -> String { try reader.string(token: required(key)) }

    /// The string `key`, or `nil` when it is absent or `null`.
    @inlinable
    public func optionalString(_ key: Key) throws -> String? {
        let token = slots[key.rawValue]
        return try reader.isPresent(token) ? reader.string(token: token) : nil
    }

    /// The integer `key`; `keyNotFound` when absent.
    @inlinable
    public func int(_ key: Key) throws -> Int { try reader.int(token: required(key)) }

    /// The integer `key`, or `nil` when it is absent or `null`.
    @inlinable
    public func optionalInt(_ key: Key) throws -> Int? {
        let token = slots[key.rawValue]
        return try reader.isPresent(token) ? reader.int(token: token) : nil
    }

    /// The UTF-8 of the string `key` where it lies in the request, when it has no escapes (`nil` when it has some:
    /// read it with ``string(_:)``), without making a `String`; valid while the request's bytes are. `keyNotFound`
    /// when absent, a type error when it is not a string.
    @inlinable
    public func plainUTF8(_ key: Key) throws -> UnsafeRawBufferPointer? { try reader.plainUTF8(token: required(key)) }

    /// The token of the member `key`; `keyNotFound` when absent.
    @inlinable @inline(__always)
    func required(_ key: Key) throws -> Int {
        let token = slots[key.rawValue]
        guard token >= 0 else { throw reader.missing(key) }
        return token
    }
}

// The non-generic halves of the object reader's reads: one copy for every key type.
extension JSONReader {
    /// The error for a member `key` that is absent.
    @usableFromInline
    func missing(_ key: some CodingKey) -> DecodingError {
        DecodingError.keyNotFound(PathKey(stringValue: key.stringValue), .init(codingPath: codingPath, debugDescription: "is required"))
    }

    /// The error for a member whose name the fields do not have.
    func unknownMember(_ key: Int) -> DecodingError {
        DecodingError.dataCorrupted(.init(codingPath: codingPath + [PathKey(stringValue: tape.string(key))], debugDescription: "is not a known field"))
    }

    /// Whether `token` is a member's value that is not `null` (-1: absent).
    @usableFromInline
    func isPresent(_ token: Int) -> Bool { token >= 0 && tape.kind(token) != .null }

    @usableFromInline
    func string(token: Int) throws -> String {
        guard tape.kind(token) == .string else { return try child(token).string() }  // escaped, or an error
        return String(decoding: tape.slice(token), as: UTF8.self)
    }

    @usableFromInline
    func int(token: Int) throws -> Int {
        // A plain integer at once; anything else (a fraction, an exponent, more digits, an error) the general way.
        if tape.kind(token) == .number, let value = TapeDecoding.plainInteger(tape.slice(token)), let result = Int(exactly: value) {
            return result
        }
        return try child(token).int()
    }

    @usableFromInline
    func plainUTF8(token: Int) throws -> UnsafeRawBufferPointer? {
        switch tape.kind(token) {
        case .string: return tape.slice(token)
        case .escapedString: return nil
        default: throw child(token).mismatch("a string")
        }
    }
}
