/// Reads what a creative is from its bytes: the content type by magic numbers, and the pixel size from the
/// image header (or, for MP4, the first video track's header). Pure parsing, no trust in declared types.
public enum CreativeInspector {
    public struct Facts: Sendable, Hashable {
        public var contentType: String
        public var width: Int
        public var height: Int

        public init(contentType: String, width: Int, height: Int) {
            self.contentType = contentType
            self.width = width
            self.height = height
        }
    }

    /// Why bytes were refused as a creative.
    public enum Refusal: Error, Sendable, Hashable, CustomStringConvertible {
        case unknownFormat
        case mismatch(declared: String, actual: String)
        case malformed(String)
        case badSize(width: Int, height: Int)

        public var description: String {
            switch self {
            case .unknownFormat: "not a JPEG, PNG, GIF, WebP or MP4 file"
            case .mismatch(let declared, let actual): "declared as \(declared) but the bytes are \(actual)"
            case .malformed(let detail): "malformed file: \(detail)"
            case .badSize(let width, let height): "pixel size \(width)x\(height) is out of range (1 to 16384 each way)"
            }
        }
    }

    public static let contentTypes: Set<String> = ["image/jpeg", "image/png", "image/gif", "image/webp", "video/mp4"]

    /// Inspects `bytes` declared as `declaredType`.
    public static func inspect(_ bytes: [UInt8], declaredType: String) throws(Refusal) -> Facts {
        let facts = try inspect(bytes)
        let declared = declaredType.lowercased() == "image/jpg" ? "image/jpeg" : declaredType.lowercased()
        guard declared == facts.contentType else { throw .mismatch(declared: declaredType, actual: facts.contentType) }
        guard (1...16_384).contains(facts.width), (1...16_384).contains(facts.height) else {
            throw .badSize(width: facts.width, height: facts.height)
        }
        return facts
    }

    /// The content type of `bytes`, from their magic numbers.
    public static func sniff(_ bytes: [UInt8]) throws(Refusal) -> String {
        try inspect(bytes).contentType
    }

    static func inspect(_ b: [UInt8]) throws(Refusal) -> Facts {
        func be16(_ i: Int) -> Int { Int(b[i]) << 8 | Int(b[i + 1]) }
        func le16(_ i: Int) -> Int { Int(b[i]) | Int(b[i + 1]) << 8 }
        func be32(_ i: Int) -> Int { Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3]) }
        func le24(_ i: Int) -> Int { Int(b[i]) | Int(b[i + 1]) << 8 | Int(b[i + 2]) << 16 }
        func ascii(_ i: Int, _ text: String) -> Bool {
            let t = Array(text.utf8)
            return i + t.count <= b.count && Array(b[i..<i + t.count]) == t
        }

        // PNG: signature, then IHDR with width and height.
        if b.count >= 24, b[0..<8] == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] {
            guard ascii(12, "IHDR") else { throw .malformed("PNG without IHDR") }
            return Facts(contentType: "image/png", width: be32(16), height: be32(20))
        }
        // GIF: signature, then the logical screen size.
        if b.count >= 10, ascii(0, "GIF87a") || ascii(0, "GIF89a") {
            return Facts(contentType: "image/gif", width: le16(6), height: le16(8))
        }
        // WebP: RIFF....WEBP, then VP8, VP8L or VP8X.
        if b.count >= 30, ascii(0, "RIFF"), ascii(8, "WEBP") {
            if ascii(12, "VP8 ") {
                guard b[23] == 0x9D, b[24] == 0x01, b[25] == 0x2A else { throw .malformed("WebP VP8 without a key frame") }
                return Facts(contentType: "image/webp", width: le16(26) & 0x3FFF, height: le16(28) & 0x3FFF)
            }
            if ascii(12, "VP8L") {
                guard b[20] == 0x2F else { throw .malformed("WebP VP8L without its signature") }
                let bits = Int(b[21]) | Int(b[22]) << 8 | Int(b[23]) << 16 | Int(b[24]) << 24
                return Facts(contentType: "image/webp", width: (bits & 0x3FFF) + 1, height: ((bits >> 14) & 0x3FFF) + 1)
            }
            if ascii(12, "VP8X") {
                return Facts(contentType: "image/webp", width: le24(24) + 1, height: le24(27) + 1)
            }
            throw .malformed("WebP without a known chunk")
        }
        // JPEG: SOI, then segments until a start-of-frame marker gives the size.
        if b.count >= 4, b[0] == 0xFF, b[1] == 0xD8, b[2] == 0xFF {
            var i = 2
            while i + 9 < b.count {
                guard b[i] == 0xFF else { throw .malformed("JPEG segment without a marker") }
                let marker = b[i + 1]
                if marker == 0xFF { i += 1; continue }
                if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) { i += 2; continue }
                let length = be16(i + 2)
                guard length >= 2 else { throw .malformed("JPEG segment of length \(length)") }
                if (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC {
                    return Facts(contentType: "image/jpeg", width: be16(i + 7), height: be16(i + 5))
                }
                i += 2 + length
            }
            throw .malformed("JPEG without a frame header")
        }
        // MP4: an ftyp box first; the size comes from the first track header with a picture.
        if b.count >= 12, ascii(4, "ftyp") {
            var size: (Int, Int)?
            func walk(_ start: Int, _ end: Int, depth: Int) {
                var i = start
                while size == nil, i + 8 <= end, depth < 8 {
                    var boxSize = be32(i)
                    var header = 8
                    if boxSize == 1, i + 16 <= end {  // 64-bit size
                        boxSize = be32(i + 12)
                        header = 16
                    } else if boxSize == 0 {
                        boxSize = end - i
                    }
                    guard boxSize >= header, i + boxSize <= end else { return }
                    if ascii(i + 4, "moov") || ascii(i + 4, "trak") {
                        walk(i + header, i + boxSize, depth: depth + 1)
                    } else if ascii(i + 4, "tkhd"), boxSize >= header + 84 {
                        let version = Int(b[i + header])
                        let offset = i + header + (version == 1 ? 88 : 76)
                        if offset + 8 <= i + boxSize {
                            let width = be32(offset) >> 16
                            let height = be32(offset + 4) >> 16
                            if width > 0 && height > 0 { size = (width, height) }
                        }
                    }
                    i += boxSize
                }
            }
            walk(0, b.count, depth: 0)
            guard let size else { throw .malformed("MP4 without a video track header") }
            return Facts(contentType: "video/mp4", width: size.0, height: size.1)
        }
        throw .unknownFormat
    }

    /// The smallest bytes ``inspect(_:declaredType:)`` reads as a PNG of `width` x `height` pixels: the signature and
    /// the IHDR chunk (8-bit RGBA), with `trailer` after them. For probes and tests that need an image of a size.
    public static func pngHeader(width: Int, height: Int, trailer: [UInt8] = []) -> [UInt8] {
        func be32(_ value: Int) -> [UInt8] { [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + be32(13) + Array("IHDR".utf8) + be32(width) + be32(height)
            + [8, 6, 0, 0, 0] + [0, 0, 0, 0] + trailer
    }
}
