/// The tail of a launch's report, written from fixed pieces and the numbers of the event (no string made per report):
/// the launch's `request`, then an `impression` of the campaign the device's last answer showed, or `noAd` when it
/// showed none, so that a run exercises the edge's counts by campaign and by app alike:
/// `,"method":"launch.report","params":{"events":[{"eventId":"` + the run's prefix + the event's number +
/// `r","type":"request","deviceId":"` + the device + `","app":"` + the app + `"},{"eventId":"` + the prefix + the
/// number + then either `","type":"impression","campaignId":` + the campaign + `,"deviceId":"` + the device + `"}]}}`,
/// or `","type":"noAd","deviceId":"` + the device + `","app":"` + the app + `"}]}}`. Device ids, app ids and the
/// prefix are plain ASCII (`d-N`, app ids as `launch.query` takes them, `adload-…`), so nothing needs escaping.
struct ReportTemplate {
    /// Everything before the event's number, and the same for the second event.
    let head: [UInt8]
    let secondHead: [UInt8]
    static let request = Array(#"r","type":"request","deviceId":""#.utf8)
    static let appKey = Array(#"","app":""#.utf8)
    static let impression = Array(#"","type":"impression","campaignId":"#.utf8)
    static let deviceKey = Array(#","deviceId":""#.utf8)
    static let noAd = Array(#"","type":"noAd","deviceId":""#.utf8)
    static let eventEnd = Array(#""},{"eventId":""#.utf8)
    static let end = Array(#""}]}}"#.utf8)

    /// Reports of a run's worker: event ids `adload-<run nonce in base 36>-<worker>-<number>` (`r` after the number
    /// for the request).
    init(runNonce: UInt64, worker: Int) {
        let prefix = "adload-\(String(runNonce, radix: 36))-\(worker)-"
        head = Array(#","method":"launch.report","params":{"events":[{"eventId":"\#(prefix)"#.utf8)
        secondHead = Array(prefix.utf8)
    }

    /// The most bytes a report with a device id and an app id of at most `idBytes` each takes.
    func longest(idBytes: Int) -> Int {
        head.count + 20 + Self.request.count + idBytes + Self.appKey.count + idBytes + Self.eventEnd.count + secondHead.count + 20
            + max(Self.impression.count + 20 + Self.deviceKey.count, Self.noAd.count + idBytes + Self.appKey.count) + idBytes + Self.end.count
    }

    /// Writes the tail at `destination` (room for ``longest(idBytes:)``): the launch's request, then the impression of
    /// `campaign`, or `noAd` when it is 0. Returns its length.
    @inline(__always)
    func write(event: UInt64, campaign: UInt64, deviceId: UnsafeRawBufferPointer, app: UnsafeRawBufferPointer,
               to destination: UnsafeMutablePointer<UInt8>) -> Int {
        var length = 0
        func put(_ bytes: UnsafeRawBufferPointer) {
            if let base = bytes.baseAddress, !bytes.isEmpty {
                UnsafeMutableRawPointer(destination + length).copyMemory(from: base, byteCount: bytes.count)
            }
            length += bytes.count
        }
        head.withUnsafeBytes(put)
        length += writeDecimal(event, to: destination + length)
        Self.request.withUnsafeBytes(put)
        put(deviceId)
        Self.appKey.withUnsafeBytes(put)
        put(app)
        Self.eventEnd.withUnsafeBytes(put)
        secondHead.withUnsafeBytes(put)
        length += writeDecimal(event, to: destination + length)
        if campaign > 0 {
            Self.impression.withUnsafeBytes(put)
            length += writeDecimal(campaign, to: destination + length)
            Self.deviceKey.withUnsafeBytes(put)
            put(deviceId)
        } else {
            Self.noAd.withUnsafeBytes(put)
            put(deviceId)
            Self.appKey.withUnsafeBytes(put)
            put(app)
        }
        Self.end.withUnsafeBytes(put)
        return length
    }
}
