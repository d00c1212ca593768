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
    // Unchecked: the table and the names are written in `init` and only read afterwards (and freed in `deinit`).

    /// The most fields a type may have (the slots ``JSONObjectReader`` keeps).
    public static var capacity: Int { JSONObjectReader<Key>.capacity }

    /// How many fields there are.
    public let count: Int
    /// Each field's name as the lookup compares it: its length and two words of its bytes (see
    /// ``words(_:count:)``), and where its UTF-8 starts in `names` (compared in full only past 16 bytes).
    @usableFromInline let table: UnsafeMutablePointer<(count: Int, head: UInt64, tail: UInt64, start: Int)>
    /// The names' UTF-8, one after another, each as a compact member's key is written: `"name":`. A name's `start`
    /// is its first byte after the quote, so its key begins one byte before and takes three more (see
    /// ``CompactReader/member(_:in:)``).
    @usableFromInline let names: UnsafeMutableRawPointer
    /// Each field's compact key (`"name":`, of ``compactKey(_:)``'s count) as two words (``words(_:count:)``'s), for
    /// a key of at most 16 bytes: what the key a compact member is expected to have is compared with, in two
    /// comparisons of words instead of a loop over its bytes.
    @usableFromInline let keyWords: UnsafeMutablePointer<(head: UInt64, tail: UInt64)>
    /// A perfect hash of the names: `buckets[bucket(head, length)]` is the slot of the only name that may be there,
    /// or 255 for none. Its multiplier is found at `init`.
    @usableFromInline let buckets: UnsafeMutablePointer<UInt8>
    @usableFromInline let multiplier: UInt64

    public init(_ type: Key.Type = Key.self) {
        let keys = Array(Key.allCases)
        precondition(keys.count <= Self.capacity, "\(Key.self) has more than \(Self.capacity) fields")
        let count = keys.count
        let utf8 = keys.map { Array($0.stringValue.utf8) }
        let names = UnsafeMutableRawPointer.allocate(byteCount: max(1, utf8.reduce(0) { $0 + $1.count + 3 }), alignment: 8)
        let table = UnsafeMutablePointer<(count: Int, head: UInt64, tail: UInt64, start: Int)>.allocate(capacity: max(1, count))
        let keyWords = UnsafeMutablePointer<(head: UInt64, tail: UInt64)>.allocate(capacity: max(1, count))
        var start = 0
        for (slot, key) in keys.enumerated() {
            precondition(key.rawValue == slot, "\(Key.self).\(key.stringValue) is case \(slot) but has raw value \(key.rawValue)")
            precondition(Key(stringValue: key.stringValue)?.rawValue == slot, "\(Key.self).\(key.stringValue) is named twice")
            let name = utf8[slot]
            precondition(!name.isEmpty, "\(Key.self) has a field with an empty name")
            precondition(name.allSatisfy { $0 >= 0x20 && $0 < 0x80 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") },
                         "\(Key.self).\(key.stringValue) is not plain ASCII")
            let key = [UInt8(ascii: "\"")] + name + [UInt8(ascii: "\""), UInt8(ascii: ":")]
            key.withUnsafeBytes { (names + start).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
            let (head, tail) = Self.words(UnsafeRawPointer(names + start + 1), count: name.count)
            (table + slot).initialize(to: (name.count, head, tail, start + 1))
            (keyWords + slot).initialize(to: key.count <= 16 ? Self.words(UnsafeRawPointer(names + start), count: key.count) : (0, 0))
            start += key.count
        }
        // The first odd multiplier of a fixed sequence that puts every name in a bucket of its own (with 16 names in
        // 256 buckets, about one try in two succeeds; with 32, about one in seven).
        let buckets = UnsafeMutablePointer<UInt8>.allocate(capacity: Self.bucketCount)
        var candidate: UInt64 = 0x9E37_79B9_7F4A_7C15
        var found: UInt64?
        for _ in 0..<10_000 {
            buckets.initialize(repeating: 255, count: Self.bucketCount)
            var distinct = true
            for slot in 0..<count {
                let bucket = Self.bucket(table[slot].head, table[slot].count, candidate | 1)
                if buckets[bucket] != 255 { distinct = false; break }
                buckets[bucket] = UInt8(slot)
            }
            if distinct { found = candidate | 1; break }
            candidate = candidate &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        }
        guard let found else { preconditionFailure("no perfect hash for the names of \(Key.self)") }
        (self.count, self.names, self.table, self.buckets, multiplier) = (count, names, table, buckets, found)
        self.keyWords = keyWords
    }

    deinit {
        names.deallocate()
        table.deallocate()
        keyWords.deallocate()
        buckets.deallocate()
    }

    @usableFromInline static var bucketCount: Int { 256 }

    /// The bucket of a name with these first bytes and length.
    @inlinable @inline(__always)
    static func bucket(_ head: UInt64, _ length: Int, _ multiplier: UInt64) -> Int {
        Int(truncatingIfNeeded: ((head ^ UInt64(truncatingIfNeeded: length)) &* multiplier) >> 56)
    }

    /// Two words that, with the length, tell names of up to 16 bytes apart: the first and the last eight bytes
    /// (overlapping below 16), the first and the last four below 8, and the first, middle and last byte below 4.
    /// Reads only the `count` bytes at `base`.
    @inlinable @inline(__always)
    static func words(_ base: UnsafeRawPointer, count: Int) -> (head: UInt64, tail: UInt64) {
        if count >= 8 {
            return (base.loadUnaligned(as: UInt64.self), base.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self))
        }
        if count >= 4 {
            return (UInt64(base.loadUnaligned(as: UInt32.self)), UInt64(base.loadUnaligned(fromByteOffset: count &- 4, as: UInt32.self)))
        }
        guard count > 0 else { return (0, 0) }
        let first = UInt64(base.load(as: UInt8.self)), middle = UInt64(base.load(fromByteOffset: count >> 1, as: UInt8.self))
        let last = UInt64(base.load(fromByteOffset: count &- 1, as: UInt8.self))
        return (first | middle << 8 | last << 16, 0)
    }

    /// The slot of the field whose name is `name`, or `nil` when no field has that name. Members usually come in
    /// the order the fields are declared, so `expected`'s slot is compared first; any other name takes one bucket of
    /// the hash and one compare.
    @inlinable @inline(__always)
    public func slot(of name: UnsafeRawBufferPointer, expected: Int = 0) -> Int? {
        guard let base = name.baseAddress else { return nil }  // (no field's name is empty)
        let length = name.count
        let (head, tail) = Self.words(base, count: length)
        if expected < count && length <= 16 {
            let entry = table[expected]
            if entry.count == length && entry.head == head && entry.tail == tail { return expected }
        }
        let slot = Int(buckets[Self.bucket(head, length, multiplier)])
        guard slot < count else { return nil }
        let entry = table[slot]
        guard entry.count == length && entry.head == head && entry.tail == tail
            && (length <= 16 || CompactReader.equals(name, UnsafeRawPointer(names + entry.start), count: length)) else { return nil }
        return slot
    }

    /// Field `slot`'s key as a compact call writes it (`"name":`), and its length.
    @inlinable @inline(__always)
    public func compactKey(_ slot: Int) -> (bytes: UnsafeRawPointer, count: Int) {
        let entry = table[slot]
        return (UnsafeRawPointer(names + entry.start - 1), entry.count + 3)
    }

    /// The key whose name is `name`, or `nil`.
    public func key(named name: String) -> Key? {
        var name = name
        return name.withUTF8 { slot(of: UnsafeRawBufferPointer($0)) }.flatMap(Key.init(rawValue:))
    }
}

// MARK: Reading from the tape

extension JSONReader {
    /// The members of an object whose fields are `fields`, refusing any member they do not name when the decoding is
    /// strict (and passing over it when not), as `Codable` decoding does; each is then found by its key, directly.
    public func object<Key>(_ fields: JSONFields<Key>) throws -> JSONObjectReader<Key> {
        guard tape.kind(index) == .object else { throw mismatch("an object") }
        var object = JSONObjectReader<Key>(reader: self)
        for (key, value) in tape.members(index) {
            let slot: Int?
            if tape.kind(key) == .escapedString {
                var name = tape.string(key)
                slot = name.withUTF8 { fields.slot(of: UnsafeRawBufferPointer($0)) }
            } else {
                slot = fields.slot(of: tape.slice(key))
            }
            guard let slot else {
                if strict { throw unknownMember(key) }
                continue
            }
            object.slots.set(slot, value)
        }
        return object
    }
}

/// Where the members of an object are, by slot: the token of each one's value, or -1 when absent.
@usableFromInline
struct MemberSlots {
    static let capacity = 32
    @usableFromInline var tokens: (Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32,
                                   Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32,
                                   Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32,
                                   Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32) =
        (-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
         -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1)

    init() {}

    mutating func set(_ slot: Int, _ token: Int) {
        guard slot < Self.capacity else { return }
        withUnsafeMutableBytes(of: &tokens) { $0.storeBytes(of: Int32(token), toByteOffset: slot * 4, as: Int32.self) }
    }

    /// The token in `slot`, or -1.
    @inlinable @inline(__always)
    subscript(slot: Int) -> Int {
        precondition(slot >= 0 && slot < 32, "field slot \(slot) out of range")
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
