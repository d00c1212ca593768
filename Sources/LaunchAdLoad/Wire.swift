#if canImport(Glibc)
import Glibc
#endif
import CZeroMQ
import JSONRPC

/// The bytes of each request a device sends, rendered once so the send path only adds the id.
///
/// A request is `{"jsonrpc":"2.0","id":` + digits + tail, where tail is `,"method":...,"params":{...}}`.
struct RequestTemplates: Sendable {
    static let head = Array(#"{"jsonrpc":"2.0","id":"#.utf8)

    /// Per device: the cold-start query, the hot-start query and the prefetch; and its id's bytes, for reports.
    let coldQuery: [[UInt8]]
    let hotQuery: [[UInt8]]
    let prefetch: [[UInt8]]
    let deviceIds: [[UInt8]]
    /// The longest tail or id, so a send buffer can be sized once.
    let longest: Int

    init(population: Population) {
        func tail(_ method: StaticString, _ device: Device, extra: (inout JSONObjectWriter) -> Void) -> [UInt8] {
            var writer = JSONWriter(reservingCapacity: 320)
            writer.writeRaw(#","method":""#)
            writer.writeRaw(String(describing: method))
            writer.writeRaw(#"","params":"#)
            writer.writeObject { object in
                object.field("app", device.app)
                object.field("platform", device.platform)
                object.field("appVersion", device.appVersion)
                object.field("region", device.region)
                object.field("locale", device.locale)
                extra(&object)
                object.field("screen") { inner in
                    inner.writeObject { screen in
                        screen.field("width", device.width)
                        screen.field("height", device.height)
                    }
                }
            }
            writer.append(UInt8(ascii: "}"))
            return writer.bytes
        }
        coldQuery = population.devices.map { device in tail("launch.query", device) { $0.field("deviceId", device.deviceId) } }
        hotQuery = population.devices.enumerated().map { index, device in
            tail("launch.query", device) { object in
                object.field("deviceId", device.deviceId)
                object.field("launchType", "hot")
                object.field("backgroundSeconds", 60 + (index % 20) * 60)
            }
        }
        prefetch = population.devices.map { device in tail("launch.prefetch", device) { _ in } }
        deviceIds = population.devices.map { Array($0.deviceId.utf8) }
        longest = (coldQuery + hotQuery + prefetch + deviceIds).map(\.count).max() ?? 0
    }
}

/// The tail of an impression report, written from fixed pieces and the numbers of the event (no string made per
/// report): `,"method":"launch.report","params":{"events":[{"eventId":"` + the run's prefix + the event's number +
/// `","type":"impression","campaignId":` + the campaign + `,"deviceId":"` + the device + `"}]}}`. Device ids and
/// the prefix are plain ASCII (`d-N`, `adload-…`), so nothing needs escaping.
struct ReportTemplate {
    /// Everything before the event's number.
    let head: [UInt8]
    static let middle = Array(#"","type":"impression","campaignId":"#.utf8)
    static let deviceKey = Array(#","deviceId":""#.utf8)
    static let end = Array(#""}]}}"#.utf8)

    /// Reports of a run's worker: event ids `adload-<run nonce in base 36>-<worker>-<number>`.
    init(runNonce: UInt64, worker: Int) {
        head = Array(#","method":"launch.report","params":{"events":[{"eventId":"adload-\#(String(runNonce, radix: 36))-\#(worker)-"#.utf8)
    }

    /// The most bytes a report with a device id of `deviceIdBytes` takes.
    func longest(deviceIdBytes: Int) -> Int {
        head.count + 20 + Self.middle.count + 20 + Self.deviceKey.count + deviceIdBytes + Self.end.count
    }

    /// Writes the tail at `destination` (room for ``longest(deviceIdBytes:)``); returns its length.
    @inline(__always)
    func write(event: UInt64, campaign: UInt64, deviceId: UnsafeRawBufferPointer, to destination: UnsafeMutablePointer<UInt8>) -> Int {
        var length = 0
        func put(_ bytes: UnsafeRawBufferPointer) {
            if let base = bytes.baseAddress, !bytes.isEmpty {
                UnsafeMutableRawPointer(destination + length).copyMemory(from: base, byteCount: bytes.count)
            }
            length += bytes.count
        }
        head.withUnsafeBytes(put)
        length += writeDecimal(event, to: destination + length)
        Self.middle.withUnsafeBytes(put)
        length += writeDecimal(campaign, to: destination + length)
        Self.deviceKey.withUnsafeBytes(put)
        put(deviceId)
        Self.end.withUnsafeBytes(put)
        return length
    }
}

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

/// Writes `value` in decimal at `destination`, returning the number of bytes written (at most 20).
@inline(__always)
func writeDecimal(_ value: UInt64, to destination: UnsafeMutablePointer<UInt8>) -> Int {
    var scratch: (UInt64, UInt64, UInt64) = (0, 0, 0)
    return withUnsafeMutableBytes(of: &scratch) { raw in
        var number = value
        var index = 24
        repeat {
            index -= 1
            raw[index] = UInt8(ascii: "0") &+ UInt8(number % 10)
            number /= 10
        } while number > 0
        let count = 24 - index
        destination.update(from: raw.baseAddress!.advanced(by: index).assumingMemoryBound(to: UInt8.self), count: count)
        return count
    }
}
