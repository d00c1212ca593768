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
        var hasher = SHA256()
        hasher.update(data: bytes)
        var id = id
        id.withUTF8 { hasher.update(bufferPointer: UnsafeRawBufferPointer($0)) }
        let value = hasher.finalize().withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
        return value == 0 ? 1 : value
    }
}
