#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// Growable bytes for ``JSONWriter``: a raw buffer without per-append bookkeeping beyond a capacity check.
@usableFromInline
final class JSONBuffer: @unchecked Sendable {
    // @unchecked: a buffer is mutated only through a writer that holds the only reference to it; the shared
    // empty buffer is never uniquely referenced, so it is never mutated.
    static let empty = JSONBuffer(capacity: 0)

    @usableFromInline @exclusivity(unchecked) var pointer: UnsafeMutableRawPointer
    @usableFromInline @exclusivity(unchecked) var count: Int
    @usableFromInline @exclusivity(unchecked) var capacity: Int

    init(capacity: Int) {
        self.capacity = max(capacity, 16)
        pointer = .allocate(byteCount: self.capacity, alignment: 1)
        count = 0
    }

    deinit { pointer.deallocate() }

    @usableFromInline
    func copy(reserving extra: Int) -> JSONBuffer {
        let copy = JSONBuffer(capacity: count + extra)
        copy.pointer.copyMemory(from: pointer, byteCount: count)
        copy.count = count
        return copy
    }

    @usableFromInline @inline(never)
    func grow(toFit needed: Int) {
        var newCapacity = capacity * 2
        while newCapacity < needed { newCapacity *= 2 }
        let newPointer = UnsafeMutableRawPointer.allocate(byteCount: newCapacity, alignment: 1)
        newPointer.copyMemory(from: pointer, byteCount: count)
        pointer.deallocate()
        pointer = newPointer
        capacity = newCapacity
    }
}

/// Writes JSON as compact UTF-8 text into a growable buffer (a value type, copied on write).
public struct JSONWriter: @unchecked Sendable {
    // @unchecked: the buffer is copied before any mutation unless this writer holds the only reference.
    @usableFromInline var buffer: JSONBuffer

    public init(reservingCapacity capacity: Int = 256) {
        buffer = JSONBuffer(capacity: capacity)
    }

    private init(sharing buffer: JSONBuffer) {
        self.buffer = buffer
    }

    /// A writer with no storage yet, for moving another writer's bytes out without allocating.
    static var placeholder: JSONWriter { JSONWriter(sharing: .empty) }

    /// The number of bytes written.
    public var count: Int { buffer.count }

    /// A copy of the bytes written.
    public var bytes: [UInt8] {
        [UInt8](UnsafeRawBufferPointer(start: buffer.pointer, count: buffer.count))
    }

    /// Calls `body` with the bytes written, in place.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: buffer.pointer, count: buffer.count))
    }

    // Inlinable, with the appends below: a call per byte or per run written costs more than the writing.
    @inlinable @inline(__always)
    mutating func reserve(_ extra: Int) -> UnsafeMutableRawPointer {
        if !isKnownUniquelyReferenced(&buffer) { buffer = buffer.copy(reserving: extra) }
        let needed = buffer.count + extra
        if needed > buffer.capacity { buffer.grow(toFit: needed) }
        return buffer.pointer + buffer.count
    }

    /// Appends one byte.
    @inlinable @inline(__always)
    public mutating func append(_ byte: UInt8) {
        reserve(1).storeBytes(of: byte, as: UInt8.self)
        buffer.count += 1
    }

    /// Appends raw bytes (which must already be JSON, or part of it).
    @inlinable @inline(__always)
    public mutating func append(_ raw: UnsafeRawBufferPointer) {
        guard raw.count > 0 else { return }
        reserve(raw.count).copyMemory(from: raw.baseAddress!, byteCount: raw.count)
        buffer.count += raw.count
    }

    /// Appends three runs of raw bytes (already JSON, or part of it), making room once.
    mutating func append(_ first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer, _ third: UnsafeRawBufferPointer) {
        let target = reserve(first.count + second.count + third.count)
        if let base = first.baseAddress { target.copyMemory(from: base, byteCount: first.count) }
        if let base = second.baseAddress { (target + first.count).copyMemory(from: base, byteCount: second.count) }
        if let base = third.baseAddress { (target + first.count + second.count).copyMemory(from: base, byteCount: third.count) }
        buffer.count += first.count + second.count + third.count
    }

    /// Drops what was written after `count` bytes.
    public mutating func truncate(to count: Int) {
        precondition(count >= 0 && count <= buffer.count)
        _ = reserve(0)
        buffer.count = count
    }

    /// Appends a value.
    public mutating func write(_ value: JSONValue) {
        switch value {
        case .null: writeRaw("null")
        case .bool(let flag): writeRaw(flag ? "true" : "false")
        case .number(let number): writeRaw(number.text)
        case .string(let string): write(string: string)
        case .array(let elements):
            writeArray(elements) { writer, element in writer.write(element) }
        case .object(let object):
            append(UInt8(ascii: "{"))
            var first = true
            for member in object {
                if !first { append(UInt8(ascii: ",")) }
                first = false
                write(string: member.key)
                append(UInt8(ascii: ":"))
                write(member.value)
            }
            append(UInt8(ascii: "}"))
        }
    }

    /// Appends text that is already JSON.
    @inlinable
    public mutating func writeRaw(_ text: StaticString) {
        append(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends text that is already JSON. (Disfavoured, so that a literal takes the `StaticString` overload,
    /// which copies the bytes without touching a string's storage.)
    @_disfavoredOverload
    public mutating func writeRaw(_ text: String) {
        var text = text
        text.withUTF8 { append(UnsafeRawBufferPointer($0)) }
    }

    /// Appends bytes that are already JSON.
    @inlinable
    public mutating func writeRaw(_ raw: [UInt8]) {
        raw.withUnsafeBytes { append($0) }
    }

    /// Appends three runs of bytes that are already JSON (or parts of it), making room once: an answer written
    /// from prepared parts is such runs.
    public mutating func writeRaw(_ first: [UInt8], _ second: [UInt8], _ third: [UInt8]) {
        first.withUnsafeBytes { first in
            second.withUnsafeBytes { second in third.withUnsafeBytes { third in append(first, second, third) } }
        }
    }

    /// Appends a JSON string literal with the escapes RFC 8259 requires.
    public mutating func write(string: String) {
        var string = string
        string.withUTF8 { utf8 in write(utf8String: UnsafeRawBufferPointer(utf8)) }
    }

    /// Appends UTF-8 bytes as a JSON string literal.
    public mutating func write(utf8String utf8: UnsafeRawBufferPointer) {
        append(UInt8(ascii: "\""))
        writeEscaped(utf8)
        append(UInt8(ascii: "\""))
    }

    /// Appends one JSON string literal holding `first` followed by `second`, without making the joined string.
    public mutating func write(string first: String, _ second: String) {
        var first = first, second = second
        append(UInt8(ascii: "\""))
        first.withUTF8 { writeEscaped(UnsafeRawBufferPointer($0)) }
        second.withUTF8 { writeEscaped(UnsafeRawBufferPointer($0)) }
        append(UInt8(ascii: "\""))
    }

    /// Appends UTF-8 bytes with the escapes a JSON string needs, without the quotes.
    private mutating func writeEscaped(_ utf8: UnsafeRawBufferPointer) {
        guard let base = utf8.baseAddress else { return }
        var clean = 0
        var index = 0
        let end = utf8.count
        while true {
            index = JSONScan.firstSpecial(base, from: index, to: end)
            guard index < end else { break }
            let byte = utf8[index]
            if byte >= 0x80 {  // UTF-8 is written as it is
                index += 1
                continue
            }
            if clean < index { append(UnsafeRawBufferPointer(rebasing: utf8[clean..<index])) }
            index += 1
            clean = index
            switch byte {
            case UInt8(ascii: "\""): writeRaw("\\\"")
            case UInt8(ascii: "\\"): writeRaw("\\\\")
            case 0x0A: writeRaw("\\n")
            case 0x0D: writeRaw("\\r")
            case 0x09: writeRaw("\\t")
            case 0x08: writeRaw("\\b")
            case 0x0C: writeRaw("\\f")
            default:
                let hex: StaticString = "0123456789abcdef"
                writeRaw("\\u00")
                append(hex.utf8Start[Int(byte >> 4)])
                append(hex.utf8Start[Int(byte & 0xF)])
            }
        }
        if clean < end { append(UnsafeRawBufferPointer(rebasing: utf8[clean...])) }
    }

    /// Appends an integer.
    public mutating func write(int value: Int) {
        if value >= 0 && value < 10 {
            append(UInt8(ascii: "0") + UInt8(value))
            return
        }
        var magnitude = value.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: enough for 20 digits and a sign
        withUnsafeMutableBytes(of: &digits) { buffer in
            var position = buffer.count
            repeat {
                position -= 1
                buffer[position] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            if value < 0 {
                position -= 1
                buffer[position] = UInt8(ascii: "-")
            }
            append(UnsafeRawBufferPointer(rebasing: buffer[position...]))
        }
    }

    /// Appends a finite double in its shortest form that reads back the same.
    public mutating func write(double value: Double) {
        if let number = JSONNumber(value) { writeRaw(number.text) } else { writeRaw("null") }
    }

    /// Writes an array of `elements`, each written by `element`.
    @inlinable
    public mutating func writeArray<Elements: Sequence>(_ elements: Elements, _ element: (inout JSONWriter, Elements.Element) -> Void) {
        append(UInt8(ascii: "["))
        var first = true
        for value in elements {
            if !first { append(UInt8(ascii: ",")) }
            first = false
            element(&self, value)
        }
        append(UInt8(ascii: "]"))
    }

    /// Writes an object whose members `body` adds.
    public mutating func writeObject(_ body: (inout JSONObjectWriter) -> Void) {
        var object = JSONObjectWriter(writer: self)
        self = .placeholder
        object.writer.append(UInt8(ascii: "{"))
        body(&object)
        object.writer.append(UInt8(ascii: "}"))
        self = object.writer
    }
}

/// Writes the members of one JSON object; made by ``JSONWriter/writeObject(_:)``.
public struct JSONObjectWriter {
    var writer: JSONWriter
    var first = true

    @inline(__always)
    private mutating func key(_ key: StaticString) {
        if first { first = false } else { writer.append(UInt8(ascii: ",")) }
        writer.append(UInt8(ascii: "\""))
        writer.writeRaw(key)
        writer.append(UInt8(ascii: "\""))
        writer.append(UInt8(ascii: ":"))
    }

    /// A member (its name needs no escaping: it is written as is).
    public mutating func field(_ key: StaticString, _ value: String) { self.key(key); writer.write(string: value) }
    public mutating func field(_ key: StaticString, _ value: Int) { self.key(key); writer.write(int: value) }
    public mutating func field(_ key: StaticString, _ value: Bool) { self.key(key); writer.writeRaw(value ? "true" : "false") }
    public mutating func field(_ key: StaticString, _ value: Double) { self.key(key); writer.write(double: value) }
    public mutating func field(_ key: StaticString, _ value: JSONValue) { self.key(key); writer.write(value) }
    /// A member written by `body` (an object, an array, anything).
    public mutating func field(_ key: StaticString, _ body: (inout JSONWriter) -> Void) { self.key(key); body(&writer) }
    /// A member left out when `nil`.
    public mutating func field(_ key: StaticString, ifPresent value: String?) { if let value { field(key, value) } }
    public mutating func field(_ key: StaticString, ifPresent value: Int?) { if let value { field(key, value) } }
    public mutating func field(_ key: StaticString, ifPresent value: Bool?) { if let value { field(key, value) } }
    /// A member with pre-encoded JSON text.
    public mutating func field(_ key: StaticString, raw: [UInt8]) { self.key(key); writer.writeRaw(raw) }
}

extension JSONValue {
    /// The value as compact JSON bytes.
    public var jsonBytes: [UInt8] {
        var writer = JSONWriter()
        writer.write(self)
        return writer.bytes
    }

    /// The value as compact JSON text.
    public var jsonText: String { String(decoding: jsonBytes, as: UTF8.self) }
}

extension JSONValue: CustomStringConvertible {
    public var description: String { jsonText }
}
