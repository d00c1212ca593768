import Crypto

extension Digest {
    var hex: String { String(decoding: hexBytes, as: UTF8.self) }

    /// The digest in lowercase hexadecimal, as ASCII bytes.
    var hexBytes: [UInt8] {
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
