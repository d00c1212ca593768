import CZeroMQ

/// A CURVE key pair in Z85 text (40 characters each), as libzmq's options and key files use.
public struct CurveKeyPair: Sendable, Hashable, Codable {
    public let publicKey: String
    public let secretKey: String

    /// A new random key pair (`zmq_curve_keypair`).
    public static func generate() throws(ZMQError) -> CurveKeyPair {
        var publicKey = [CChar](repeating: 0, count: 41)
        var secretKey = [CChar](repeating: 0, count: 41)
        try check(zmq_curve_keypair(&publicKey, &secretKey), "zmq_curve_keypair")
        return CurveKeyPair(uncheckedPublicKey: keyText(publicKey), secretKey: keyText(secretKey))
    }

    /// The key pair of a secret key (its public key derived with `zmq_curve_public`).
    public init(secretKey: String) throws(CurveKeyError) {
        guard CurveKey.isValid(secretKey) else { throw CurveKeyError.invalid(secretKey.count) }
        var publicKey = [CChar](repeating: 0, count: 41)
        guard zmq_curve_public(&publicKey, secretKey) == 0 else { throw CurveKeyError.invalid(secretKey.count) }
        self.publicKey = keyText(publicKey)
        self.secretKey = secretKey
    }

    /// A key pair from its two halves, both validated.
    public init(publicKey: String, secretKey: String) throws(CurveKeyError) {
        let derived = try CurveKeyPair(secretKey: secretKey)
        guard derived.publicKey == publicKey else { throw CurveKeyError.mismatchedPair }
        self = derived
    }

    private init(uncheckedPublicKey publicKey: String, secretKey: String) {
        self.publicKey = publicKey
        self.secretKey = secretKey
    }
}

/// Why a CURVE key was refused.
public enum CurveKeyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not 40 characters of Z85 (the count is the length seen).
    case invalid(Int)
    /// The public key is not the one of the secret key.
    case mismatchedPair

    public var description: String {
        switch self {
        case .invalid(let length): "not a CURVE key: expected 40 Z85 characters, got \(length) characters"
        case .mismatchedPair: "the public key does not belong to the secret key"
        }
    }
}

/// Helpers for CURVE keys in Z85 text.
public enum CurveKey {
    /// Whether `key` is 40 characters of Z85 that decode to 32 bytes.
    public static func isValid(_ key: String) -> Bool {
        decode(key) != nil
    }

    /// The 32 bytes of a Z85 key, or `nil` if it is not one.
    public static func decode(_ key: String) -> [UInt8]? {
        guard key.utf8.count == 40 else { return nil }
        var bytes = [UInt8](repeating: 0, count: 32)
        let ok = bytes.withUnsafeMutableBufferPointer { buffer in zmq_z85_decode(buffer.baseAddress, key) != nil }
        return ok ? bytes : nil
    }

    /// The Z85 text of a 32-byte key.
    public static func encode(_ bytes: UnsafeRawBufferPointer) -> String? {
        guard bytes.count == 32 else { return nil }
        var text = [CChar](repeating: 0, count: 41)
        let ok = zmq_z85_encode(&text, bytes.bindMemory(to: UInt8.self).baseAddress, 32) != nil
        return ok ? keyText(text) : nil
    }
}

/// The text of a NUL-terminated C buffer that libzmq filled.
private func keyText(_ buffer: [CChar]) -> String {
    let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
    return String(decoding: bytes, as: UTF8.self)
}
