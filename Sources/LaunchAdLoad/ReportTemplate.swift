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
