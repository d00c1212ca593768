#if canImport(Glibc)
import Glibc
#endif
import CZeroMQ  // memmem
import JSONRPC

/// What a reply says, read without a full parse when it has the shape the project's servers write
/// (`{"jsonrpc":"2.0","id":N,"result":...}`), with the strict parser otherwise.
struct ReplyScan: Equatable {
    enum Outcome: Equatable {
        /// A result; for a launch answer with an ad, the campaign's id.
        case result(campaignId: Int64?)
        /// A JSON-RPC error with its code.
        case error(code: Int)
        /// Not a JSON-RPC response with a numeric id.
        case invalid
    }

    var id: UInt64?
    var outcome: Outcome

    private static let head: StaticString = #"{"jsonrpc":"2.0","id":"#
    private static let resultKey: StaticString = #","result":"#
    private static let answerWithAd: StaticString = #"{"hasAd":true,"id":"#

    static func scan(_ bytes: UnsafeRawBufferPointer) -> ReplyScan {
        guard bytes.count > head.utf8CodeUnitCount + 2, starts(bytes, at: 0, with: head) else { return slow(bytes) }
        var position = head.utf8CodeUnitCount
        guard let id = digits(bytes, &position) else { return slow(bytes) }
        // Like the reference client, any "error" in the reply sends it to the strict parser (a result must not
        // carry one, and an error's code is counted).
        if starts(bytes, at: position, with: resultKey), !contains(bytes, #""error""#) {
            position += resultKey.utf8CodeUnitCount
            guard starts(bytes, at: position, with: answerWithAd) else { return ReplyScan(id: id, outcome: .result(campaignId: nil)) }
            position += answerWithAd.utf8CodeUnitCount
            return ReplyScan(id: id, outcome: .result(campaignId: digits(bytes, &position).map { Int64(truncatingIfNeeded: $0) }))
        }
        return slow(bytes)  // an error (its code is counted) or another shape
    }

    /// The strict parser, for replies in another shape and for errors (whose code we count).
    static func slow(_ bytes: UnsafeRawBufferPointer) -> ReplyScan {
        guard let value = try? JSONParser.parse(bytes), let object = value.objectValue,
              object["jsonrpc"]?.stringValue == "2.0" else { return ReplyScan(id: nil, outcome: .invalid) }
        var id: UInt64?
        if case let .number(number)? = object["id"] { id = UInt64(number.text) }
        if let error = object["error"]?.objectValue {
            guard let code = error["code"]?.intValue, object["result"] == nil else { return ReplyScan(id: id, outcome: .invalid) }
            return ReplyScan(id: id, outcome: .error(code: code))
        }
        guard let result = object["result"] else { return ReplyScan(id: id, outcome: .invalid) }
        var campaign: Int64?
        if let answer = result.objectValue, answer["hasAd"]?.boolValue == true, let number = answer["id"]?.intValue {
            campaign = Int64(number)
        }
        return ReplyScan(id: id, outcome: .result(campaignId: campaign))
    }

    @inline(__always)
    private static func starts(_ bytes: UnsafeRawBufferPointer, at offset: Int, with prefix: StaticString) -> Bool {
        let count = prefix.utf8CodeUnitCount
        guard bytes.count - offset >= count else { return false }
        return memcmp(bytes.baseAddress! + offset, prefix.utf8Start, count) == 0
    }

    /// Whether `needle` occurs anywhere in `bytes` (glibc's memmem: one vectorised pass).
    @inline(__always)
    private static func contains(_ bytes: UnsafeRawBufferPointer, _ needle: StaticString) -> Bool {
        guard let base = bytes.baseAddress else { return false }
        return memmem(base, bytes.count, needle.utf8Start, needle.utf8CodeUnitCount) != nil
    }

    /// A run of 1 to 19 decimal digits at `position` (moved past them).
    @inline(__always)
    private static func digits(_ bytes: UnsafeRawBufferPointer, _ position: inout Int) -> UInt64? {
        var value: UInt64 = 0
        let start = position
        while position < bytes.count, position - start < 19 {
            let digit = bytes.load(fromByteOffset: position, as: UInt8.self) &- UInt8(ascii: "0")
            guard digit < 10 else { break }
            value = value &* 10 &+ UInt64(digit)
            position += 1
        }
        return position > start ? value : nil
    }
}
