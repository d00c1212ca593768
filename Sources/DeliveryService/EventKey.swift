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
        fingerprint(of: [Array(id.utf8)])
    }

    /// The fingerprint standing for device `deviceId`'s report of campaign `campaign` in `hour`: every such report
    /// has it, so a second is a duplicate of the first whatever its event id. sha256(key ‖ 0xFF ‖ device ‖ 0 ‖
    /// campaign ‖ hour): no UTF-8 id begins with 0xFF, so no event id can stand for it.
    func fingerprint(reportOf deviceId: String, campaign: Int64, hour: Int64) -> UInt64 {
        fingerprint(of: [[0xFF], Array(deviceId.utf8), [0], withUnsafeBytes(of: campaign.littleEndian, Array.init),
                         withUnsafeBytes(of: hour.littleEndian, Array.init)])
    }

    private func fingerprint(of parts: [[UInt8]]) -> UInt64 {
        var hasher = SHA256()
        hasher.update(data: bytes)
        for part in parts { hasher.update(data: part) }
        let value = hasher.finalize().withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
        return value == 0 ? 1 : value
    }
}
