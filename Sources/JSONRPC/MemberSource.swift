/// Where the members of a params value come from: the tape of a parsed request (``TapeMembers``), a compact call's
/// bytes (``CompactMembers``) or a query string's percent-decoded text (``QueryMembers``). A params type has one
/// reader (see ``MemberReadable``), generic over its source: a loop over ``next()`` with an exhaustive `switch` on
/// the key, each value read with one of the typed reads below. The source says which members there are, finds each
/// one's key by its name (``JSONFields``), and refuses in its own way: a `DecodingError` naming the path (the tape),
/// ``CompactMiss`` so that the call is read the general way (compact bytes), or a ``QueryParameterError``.
///
/// The typed reads take the textual spelling of a value that a query string writes differently from JSON
/// (`WxH` for an object, `a,b,c` for an array, the rule a bad number breaks): only ``QueryMembers`` uses it. Rules
/// are autoclosures: made only for an error, not on every read of the hot path.
public protocol MemberSource<Key> {
    associatedtype Key: JSONFieldKey
    associatedtype Failure: Error

    /// The next member's key, or `nil` when there is none left. The tape gives every key in the order of the cases,
    /// present or not (so its errors come in the order `Codable`'s do); the others give the members present.
    mutating func next() throws(Failure) -> Key?
    /// The member, a string that must be there. `repeats`: a value that calls repeat (an app, a region), which a
    /// compact source takes from its reader's ``TextCache``.
    mutating func string(repeats: Bool) throws(Failure) -> String
    /// The member, a string that must be there, often one that `known` makes from its bytes without making a
    /// string (a literal): a compact source asks it first.
    mutating func string(known: (UnsafeRawBufferPointer) -> String?) throws(Failure) -> String
    /// The member, a string that must be there, as `read` makes it from its UTF-8 bytes: in place where the source
    /// has them plain (a compact call, a string without escapes on the tape), without making a string.
    mutating func utf8<Value>(_ read: (UnsafeRawBufferPointer) -> Value) throws(Failure) -> Value
    /// The member, a string, or `nil` when it is absent or `null`.
    mutating func optionalString(repeats: Bool) throws(Failure) -> String?
    /// The member, an integer that must be there; `textRule` is what a query string's text that is not one breaks.
    mutating func int(textRule: @autoclosure () -> String) throws(Failure) -> Int
    /// The member, an integer, or `nil` when it is absent or `null`.
    mutating func optionalInt(textRule: @autoclosure () -> String) throws(Failure) -> Int?
    /// The member, an integer of `type`, or `nil` when it is absent or `null`.
    mutating func optionalInteger<Integer: FixedWidthInteger & Decodable>(_ type: Integer.Type, textRule: @autoclosure () -> String)
        throws(Failure) -> Integer?
    /// The member, a value of a type of its own that a string spells (`text` reads that string), or `nil`; the tape
    /// reads it through its `Decodable` conformance.
    mutating func optionalValue<Value: Decodable>(_ type: Value.Type, text: (String) -> Value?, textRule: @autoclosure () -> String)
        throws(Failure) -> Value?
    /// The member, an array of strings (in a query string, the text split at `separator`), or `nil`.
    mutating func optionalStrings(separator: Character) throws(Failure) -> [String]?
    /// The member, a case of a string-valued enumeration, or `nil`; `rule` names the cases for an unknown one.
    mutating func optionalCase<Case: RawRepresentable>(_ type: Case.Type, rule: @autoclosure () -> String) throws(Failure) -> Case?
        where Case.RawValue == String
    /// The member, a case of a string-valued enumeration, that must be there: the tape answers its `Decodable`
    /// conformance's error for another string, a query string `rule`.
    mutating func requiredCase<Case: RawRepresentable & Decodable>(_ type: Case.Type, rule: @autoclosure () -> String) throws(Failure) -> Case
        where Case.RawValue == String
    /// The member, an array of objects each read by their type's reader, that must be there.
    mutating func objects<Element: MemberReadable>(_ type: Element.Type) throws(Failure) -> [Element]
    /// The member, an object read by its own type's reader, or `nil`; in a query string, `text` reads it from its
    /// spelling there, and `textRule` is what a text it refuses breaks.
    mutating func optionalObject<Nested: MemberReadable>(_ type: Nested.Type, text: (Substring) -> Nested?, textRule: @autoclosure () -> String)
        throws(Failure) -> Nested?
    /// The error for the member `key`, required, when it is absent.
    func missing(_ key: Key) -> Failure
}

extension MemberSource {
    /// The string as any other (only a compact source, reading bytes, has a use for the literals).
    @inlinable @inline(__always)
    public mutating func string(known: (UnsafeRawBufferPointer) -> String?) throws(Failure) -> String { try string(repeats: false) }
    /// A string that calls do not repeat.
    @inlinable @inline(__always)
    public mutating func string() throws(Failure) -> String { try string(repeats: false) }
    /// A string that calls do not repeat, or `nil`.
    @inlinable @inline(__always)
    public mutating func optionalString() throws(Failure) -> String? { try optionalString(repeats: false) }
}

/// A type whose values are read by one reader from any ``MemberSource`` of its ``CodingKeys``.
public protocol MemberReadable {
    associatedtype CodingKeys: JSONFieldKey
    /// The names of its members, from its keys: a stored `static let` (a compact source holds them unretained).
    static var fields: JSONFields<CodingKeys> { get }
    /// Reads a value from `source`: the type's one reader.
    static func read<Source: MemberSource>(_ source: inout Source) throws(Source.Failure) -> Self where Source.Key == CodingKeys
}

extension MemberReadable {
    /// The value read straight from the tape: what the `Codable` conformance gives, or the error naming the same field.
    /// (Inlinable, as the rest of the sources: the reader is specialized for each source in its type's module.)
    @inlinable @inline(__always)
    public static func read(json: JSONReader) throws -> Self {
        var source = try TapeMembers(json, fields)
        return try read(&source)
    }

    /// The value of compact params (see ``CompactReader``), or `nil` when they are not compact or hold anything the
    /// reader refuses: the call is then read the general way, which answers the error. `reader` is past the value
    /// when one is given (anywhere in it when not).
    @inlinable @inline(__always)
    public static func read(compact reader: inout CompactReader) -> Self? {
        CompactMembers.reading(&reader, fields) { source throws(CompactMiss) in try read(&source) }
    }
}

/// The bytes of a string that a source holds as a string.
@usableFromInline
enum MemberBytes {
    /// What `read` makes of the UTF-8 bytes of `text`.
    @inlinable
    static func utf8<Value>(of text: String, _ read: (UnsafeRawBufferPointer) -> Value) -> Value {
        var text = text
        return text.withUTF8 { read(UnsafeRawBufferPointer($0)) }
    }
}

// MARK: The tape

/// The members of an object on the tape: every key in the order of the cases, present or not, each read from its
/// member (a required one that is absent is `keyNotFound`, as `Codable` says it).
public struct TapeMembers<Key: JSONFieldKey>: MemberSource {
    public typealias Failure = any Error
    @usableFromInline let object: JSONObjectReader<Key>
    @usableFromInline let count: Int
    @usableFromInline var key: Key?
    @usableFromInline var slot = 0

    /// The members of `json`, which must be an object (strictly, none but `fields`' when the reading is strict).
    @inlinable
    public init(_ json: JSONReader, _ fields: JSONFields<Key>) throws {
        object = try json.object(fields)
        count = fields.count
    }

    @inlinable @inline(__always)
    public mutating func next() throws -> Key? {
        guard slot < count else { return nil }
        key = Key(rawValue: slot)
        slot &+= 1
        return key
    }

    @inlinable var current: Key { key! }

    @inlinable
    public mutating func string(repeats: Bool) throws -> String { try object.string(current) }
    @inlinable
    public mutating func utf8<Value>(_ read: (UnsafeRawBufferPointer) -> Value) throws -> Value {
        if let bytes = try object.plainUTF8(current) { return read(bytes) }
        return try MemberBytes.utf8(of: object.string(current), read)
    }
    @inlinable
    public mutating func optionalString(repeats: Bool) throws -> String? { try object.optionalString(current) }
    @inlinable
    public mutating func int(textRule: @autoclosure () -> String) throws -> Int { try object.int(current) }
    @inlinable
    public mutating func optionalInt(textRule: @autoclosure () -> String) throws -> Int? { try object.optionalInt(current) }
    @inlinable
    public mutating func optionalStrings(separator: Character) throws -> [String]? {
        try object.optional(current)?.strings()
    }
    @inlinable
    public mutating func optionalCase<Case: RawRepresentable>(_ type: Case.Type, rule: @autoclosure () -> String) throws -> Case?
        where Case.RawValue == String {
        guard let member = object.optional(current) else { return nil }
        guard let value = Case(rawValue: try member.string()) else { throw member.corrupted(rule()) }
        return value
    }
    @inlinable
    public mutating func optionalObject<Nested: MemberReadable>(_ type: Nested.Type, text: (Substring) -> Nested?,
                                                               textRule: @autoclosure () -> String) throws -> Nested? {
        guard let member = object.optional(current) else { return nil }
        return try Nested.read(json: member)
    }
    @inlinable
    public mutating func optionalInteger<Integer: FixedWidthInteger & Decodable>(_ type: Integer.Type, textRule: @autoclosure () -> String) throws
        -> Integer? {
        try object.optional(current)?.integer(Integer.self)
    }
    @inlinable
    public mutating func optionalValue<Value: Decodable>(_ type: Value.Type, text: (String) -> Value?, textRule: @autoclosure () -> String) throws
        -> Value? {
        try object.optional(current)?.decode(Value.self)
    }
    @inlinable
    public mutating func requiredCase<Case: RawRepresentable & Decodable>(_ type: Case.Type, rule: @autoclosure () -> String) throws -> Case
        where Case.RawValue == String {
        let member = try object.require(current)
        return try Case(rawValue: member.string()) ?? member.decode(Case.self)
    }
    @inlinable
    public mutating func objects<Element: MemberReadable>(_ type: Element.Type) throws -> [Element] {
        try object.require(current).array().map { try Element.read(json: $0) }
    }
    @inlinable
    public func missing(_ key: Key) -> any Error { object.reader.missing(key) }
}

extension JSONReader {
    /// The error for a value of the right type that breaks `rule`.
    @usableFromInline
    func corrupted(_ rule: String) -> DecodingError {
        DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: rule))
    }
}

// MARK: Compact bytes

/// A compact call's refusal: the call is read the general way, which answers the error.
public struct CompactMiss: Error {
    @inlinable public init() {}
}

/// The members of a compact object (see ``CompactReader``), as they come: each named once, each value compact;
/// anything else is a ``CompactMiss``.
public struct CompactMembers<Key: JSONFieldKey>: MemberSource {
    public typealias Failure = CompactMiss
    /// The reader, past the object once ``next()`` has given `nil`.
    public var reader: CompactReader
    /// Unmanaged: a type's names are a static of it, kept for the life of the program (held strongly or unowned,
    /// they were retained and released by every member read).
    @usableFromInline let fields: Unmanaged<JSONFields<Key>>
    @usableFromInline var seen: UInt64 = 0

    /// The members of the object `reader` has just opened (its brace taken), named by `fields`, which must outlive
    /// the source (a type's static names do). Take the reader back from ``reader`` once read.
    @inlinable @inline(__always)
    public init(opened reader: CompactReader, _ fields: JSONFields<Key>) {
        self.reader = reader
        self.fields = .passUnretained(fields)
    }

    /// What `body` reads from the members of the object at `reader`, or `nil` when no object begins there or `body`
    /// refuses it. `reader` is past the object when it is read (anywhere in it when not).
    @inlinable @inline(__always)
    public static func reading<Value>(_ reader: inout CompactReader, _ fields: JSONFields<Key>,
                                      _ body: (inout Self) throws(CompactMiss) -> Value) -> Value? {
        guard reader.take(UInt8(ascii: "{")) else { return nil }
        // The source holds `fields` unretained: they live at least as long as this call, even if computed.
        return withExtendedLifetime(fields) {
            var source = Self(opened: reader, fields)
            let value = try? body(&source)
            reader = source.reader
            return value
        }
    }

    @inlinable @inline(__always)
    public mutating func next() throws(CompactMiss) -> Key? {
        // The first member follows the brace; the others a comma. (An empty object is not compact params.)
        if seen != 0 && !reader.take(UInt8(ascii: ",")) {
            guard reader.take(UInt8(ascii: "}")) else { throw CompactMiss() }
            return nil
        }
        guard let key = fields._withUnsafeGuaranteedRef({ reader.member(&seen, in: $0) }) else { throw CompactMiss() }
        return key
    }

    @inlinable @inline(__always)
    public mutating func string(repeats: Bool) throws(CompactMiss) -> String {
        guard let text = reader.string() else { throw CompactMiss() }
        // A short one (plain ASCII, as all that the reader reads) made in place either way, without the cache.
        if let inline = TextCache.inlineASCII(text) { return inline }
        return repeats ? reader.text(text) : String(decoding: text, as: UTF8.self)
    }
    @inlinable @inline(__always)
    public mutating func string(known: (UnsafeRawBufferPointer) -> String?) throws(CompactMiss) -> String {
        guard let text = reader.string() else { throw CompactMiss() }
        return known(text) ?? String(decoding: text, as: UTF8.self)
    }
    @inlinable @inline(__always)
    public mutating func utf8<Value>(_ read: (UnsafeRawBufferPointer) -> Value) throws(CompactMiss) -> Value {
        guard let text = reader.string() else { throw CompactMiss() }
        return read(text)
    }
    @inlinable @inline(__always)
    public mutating func optionalString(repeats: Bool) throws(CompactMiss) -> String? { try string(repeats: repeats) }
    @inlinable @inline(__always)
    public mutating func int(textRule: @autoclosure () -> String) throws(CompactMiss) -> Int {
        guard let value = reader.int() else { throw CompactMiss() }
        return value
    }
    @inlinable
    public mutating func optionalInt(textRule: @autoclosure () -> String) throws(CompactMiss) -> Int? { try int(textRule: textRule()) }
    @inlinable
    public mutating func optionalStrings(separator: Character) throws(CompactMiss) -> [String]? {
        guard reader.take(UInt8(ascii: "[")) else { throw CompactMiss() }
        var list: [String] = []
        if reader.take(UInt8(ascii: "]")) { return list }
        repeat {
            list.append(try string(repeats: false))
        } while reader.take(UInt8(ascii: ","))
        guard reader.take(UInt8(ascii: "]")) else { throw CompactMiss() }
        return list
    }
    @inlinable
    public mutating func optionalCase<Case: RawRepresentable>(_ type: Case.Type, rule: @autoclosure () -> String) throws(CompactMiss) -> Case?
        where Case.RawValue == String {
        guard let value = Case(rawValue: try string(repeats: false)) else { throw CompactMiss() }
        return value
    }
    @inlinable
    public mutating func optionalObject<Nested: MemberReadable>(_ type: Nested.Type, text: (Substring) -> Nested?,
                                                               textRule: @autoclosure () -> String) throws(CompactMiss) -> Nested? {
        guard let value = Nested.read(compact: &reader) else { throw CompactMiss() }
        return value
    }
    @inlinable
    public mutating func optionalInteger<Integer: FixedWidthInteger & Decodable>(_ type: Integer.Type, textRule: @autoclosure () -> String)
        throws(CompactMiss) -> Integer? {
        guard let value = Integer(exactly: try int(textRule: textRule())) else { throw CompactMiss() }
        return value
    }
    @inlinable
    public mutating func optionalValue<Value: Decodable>(_ type: Value.Type, text: (String) -> Value?, textRule: @autoclosure () -> String)
        throws(CompactMiss) -> Value? {
        guard let value = text(try string(repeats: false)) else { throw CompactMiss() }
        return value
    }
    @inlinable
    public mutating func requiredCase<Case: RawRepresentable & Decodable>(_ type: Case.Type, rule: @autoclosure () -> String) throws(CompactMiss) -> Case
        where Case.RawValue == String {
        guard let value = Case(rawValue: try string(repeats: false)) else { throw CompactMiss() }
        return value
    }
    @inlinable
    public mutating func objects<Element: MemberReadable>(_ type: Element.Type) throws(CompactMiss) -> [Element] {
        guard reader.take(UInt8(ascii: "[")) else { throw CompactMiss() }
        var list: [Element] = []
        if reader.take(UInt8(ascii: "]")) { return list }
        // Room for a few at once (a launch's report holds two or three events): appended one by one from empty, the
        // list was made again at its first, second and third element.
        list.reserveCapacity(4)
        repeat {
            guard let element = Element.read(compact: &reader) else { throw CompactMiss() }
            list.append(element)
        } while reader.take(UInt8(ascii: ","))
        guard reader.take(UInt8(ascii: "]")) else { throw CompactMiss() }
        return list
    }
    @inlinable
    public func missing(_ key: Key) -> CompactMiss { CompactMiss() }
}

// MARK: A query string

/// A parameter of a query string that is unknown, repeated, missing or wrong: `reason` says how.
public struct QueryParameterError: Error, Equatable, Sendable, CustomStringConvertible {
    public var parameter: String
    public var reason: String
    public init(_ parameter: String, _ reason: String) {
        self.parameter = parameter
        self.reason = reason
    }
    public var description: String { "\(parameter): \(reason)" }
}

/// The parameters of a query string (`name=value&…`, the text after `?`), named as the keys' cases, each once, in
/// the order of the cases; each value is its percent-decoded text, read in its query spelling.
public struct QueryMembers<Key: JSONFieldKey>: MemberSource {
    public typealias Failure = QueryParameterError
    /// Each key's value by slot, `nil` when not given.
    var values: [String?]
    var slot = -1

    /// The parameters of `query`: each name one of `fields`' (else `unknown` is the reason), none twice, each of
    /// `required` there; `decode` percent-decodes a name or a value (`nil` when that is not UTF-8).
    public init(_ query: Substring, _ fields: JSONFields<Key>, required: [Key], unknown: String,
                decode: (Substring) -> String?) throws(QueryParameterError) {
        values = Array(repeating: nil, count: fields.count)
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let (rawName, rawValue) = pair.firstIndex(of: "=").map { (pair[..<$0], pair[pair.index(after: $0)...]) } ?? (pair, "")
            guard let name = decode(rawName), let key = fields.key(named: name) else {
                throw QueryParameterError(decode(rawName) ?? String(rawName), unknown)
            }
            guard values[key.rawValue] == nil else { throw QueryParameterError(name, "is given more than once") }
            guard let value = decode(rawValue) else { throw QueryParameterError(name, "is not valid percent-encoded UTF-8") }
            values[key.rawValue] = value
        }
        for key in required where values[key.rawValue] == nil {
            throw QueryParameterError(key.stringValue, "is required")
        }
    }

    public mutating func next() -> Key? {
        repeat { slot += 1 } while slot < values.count && values[slot] == nil
        return slot < values.count ? Key(rawValue: slot) : nil
    }

    /// The current parameter's text (``next()`` gives only those present).
    var text: String { values[slot]! }
    /// The error of the current parameter.
    func bad(_ reason: String) -> QueryParameterError { QueryParameterError(Key(rawValue: slot)!.stringValue, reason) }

    public mutating func string(repeats: Bool) -> String { text }
    public mutating func utf8<Value>(_ read: (UnsafeRawBufferPointer) -> Value) -> Value { MemberBytes.utf8(of: text, read) }
    public mutating func optionalString(repeats: Bool) -> String? { text }
    public mutating func int(textRule: @autoclosure () -> String) throws(QueryParameterError) -> Int {
        guard let value = Int(text) else { throw bad(textRule()) }
        return value
    }
    public mutating func optionalInt(textRule: @autoclosure () -> String) throws(QueryParameterError) -> Int? { try int(textRule: textRule()) }
    public mutating func optionalStrings(separator: Character) -> [String]? {
        text.split(separator: separator, omittingEmptySubsequences: false).map(String.init)
    }
    public mutating func optionalCase<Case: RawRepresentable>(_ type: Case.Type, rule: @autoclosure () -> String) throws(QueryParameterError) -> Case?
        where Case.RawValue == String {
        guard let value = Case(rawValue: text) else { throw bad(rule()) }
        return value
    }
    public mutating func optionalObject<Nested: MemberReadable>(_ type: Nested.Type, text read: (Substring) -> Nested?,
                                                               textRule: @autoclosure () -> String) throws(QueryParameterError) -> Nested? {
        guard let value = read(Substring(text)) else { throw bad(textRule()) }
        return value
    }
    public mutating func optionalInteger<Integer: FixedWidthInteger & Decodable>(_ type: Integer.Type, textRule: @autoclosure () -> String)
        throws(QueryParameterError) -> Integer? {
        guard let value = Integer(text) else { throw bad(textRule()) }
        return value
    }
    public mutating func optionalValue<Value: Decodable>(_ type: Value.Type, text read: (String) -> Value?, textRule: @autoclosure () -> String)
        throws(QueryParameterError) -> Value? {
        guard let value = read(text) else { throw bad(textRule()) }
        return value
    }
    public mutating func requiredCase<Case: RawRepresentable & Decodable>(_ type: Case.Type, rule: @autoclosure () -> String)
        throws(QueryParameterError) -> Case where Case.RawValue == String {
        guard let value = Case(rawValue: text) else { throw bad(rule()) }
        return value
    }
    /// A query string has no arrays of objects: such a parameter is refused.
    public mutating func objects<Element: MemberReadable>(_ type: Element.Type) throws(QueryParameterError) -> [Element] {
        throw bad("cannot be given in a query string")
    }
    public func missing(_ key: Key) -> QueryParameterError { QueryParameterError(key.stringValue, "is required") }
}
