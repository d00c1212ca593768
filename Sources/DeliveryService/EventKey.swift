import Crypto

/// The key of the event ids' fingerprints: random per cache folder and kept in it, so that a fingerprint means the
/// same event after a restart while nobody outside can aim two ids at one.
struct EventKey: Sendable, Equatable {
    static let size = 32
    let bytes: [UInt8]

    init?(bytes: [UInt8]) {
        guard bytes.count == Self.size else { return nil }
        self.bytes = bytes
    }

    static func random() -> EventKey {
        var generator = SystemRandomNumberGenerator()
        return EventKey(bytes: (0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) })!
    }

    /// The first 64 bits of sha256(key ‖ id). Never 0.
    func fingerprint(_ id: String) -> UInt64 {
        var hasher = keyed()
        Self.update(&hasher, with: id)
        return Self.value(of: hasher)
    }

    /// The fingerprint standing for device `deviceId`'s report of campaign `campaign` in `hour`: every such report
    /// has it, so a second is a duplicate of the first whatever its event id. sha256(key ‖ 0xFF ‖ device ‖ 0 ‖
    /// campaign ‖ hour): no UTF-8 id begins with 0xFF, so no event id can stand for it.
    func fingerprint(reportOf deviceId: String, campaign: Int64, hour: Int64) -> UInt64 {
        var hasher = keyed()
        withUnsafeBytes(of: UInt8(0xFF)) { hasher.update(bufferPointer: $0) }
        Self.update(&hasher, with: deviceId)
        withUnsafeBytes(of: UInt8(0)) { hasher.update(bufferPointer: $0) }
        withUnsafeBytes(of: campaign.littleEndian) { hasher.update(bufferPointer: $0) }
        withUnsafeBytes(of: hour.littleEndian) { hasher.update(bufferPointer: $0) }
        return Self.value(of: hasher)
    }

    // Fed straight from the key's and the texts' bytes: a report's events are fingerprinted on the client socket's
    // thread, and arrays made for each part cost an allocation apiece.
    private func keyed() -> SHA256 {
        var hasher = SHA256()
        bytes.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        return hasher
    }

    private static func update(_ hasher: inout SHA256, with text: String) {
        var text = text
        text.withUTF8 { hasher.update(bufferPointer: UnsafeRawBufferPointer($0)) }
    }

    private static func value(of hasher: SHA256) -> UInt64 {
        let value = hasher.finalize().withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
        return value == 0 ? 1 : value
    }
}
