import Crypto
import Foundation

extension Digest {
    /// The digest in lowercase hexadecimal: how creatives are named.
    public var hex: String { String(decoding: hexBytes, as: UTF8.self) }

    /// The digest in lowercase hexadecimal, as ASCII bytes.
    public var hexBytes: [UInt8] {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(Self.byteCount * 2)
        for byte in self {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return out
    }
}

extension CreativeFiles {
    /// The name of a creative with these bytes: the sha256 of them, in lowercase hexadecimal.
    public static func name(of bytes: some DataProtocol) -> String {
        SHA256.hash(data: bytes).hex
    }
}

/// The sha256 of a file's bytes, read a piece at a time.
public enum FileDigest {
    public static func sha256(of url: URL) throws -> String {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var hasher = SHA256()
        while let piece = try handle.read(upToCount: 1 << 20), !piece.isEmpty {
            hasher.update(data: piece)
        }
        return hasher.finalize().hex
    }
}
