/// Reads what a creative is from its bytes: the content type by magic numbers, the pixel size from the image header
/// (or, for MP4, the video track's header), and how long it plays (an animated GIF's frame delays, an MP4's
/// duration). Pure parsing, no trust in declared types.
public enum CreativeInspector {
    public struct Facts: Sendable, Hashable {
        public var contentType: String
        public var width: Int
        public var height: Int
        /// How long the media plays once, in milliseconds: 0 for a still image (and a GIF of one frame).
        public var durationMs: Int

        public init(contentType: String, width: Int, height: Int, durationMs: Int = 0) {
            self.contentType = contentType
            self.width = width
            self.height = height
            self.durationMs = durationMs
        }
    }

    /// The longest a creative may play, in milliseconds: a day. A launch ad plays for seconds; a file that claims
    /// longer is not one, or its header lies, and a number that size would only mislead what reads it.
    public static let maxDurationMs = 86_400_000

    /// Why bytes were refused as a creative.
    public enum Refusal: Error, Sendable, Hashable, CustomStringConvertible {
        case unknownFormat
        case mismatch(declared: String, actual: String)
        case malformed(String)
        case badSize(width: Int, height: Int)
        case tooLong(durationMs: Int)
        /// A QuickTime movie (`ftyp` brand `qt  `): MP4's parent format, which Android's and browsers' players do
        /// not promise to play.
        case quickTime
        /// A HEIC or HEIF image (brand `heic`, `mif1`, ...): browsers do not show it, so the console could not preview
        /// it, nor does Android before 9.
        case heic(brand: String)
        /// An AVIF image (brand `avif` or `avis`): iOS decodes it from 16 on, and LaunchAdKit supports iOS 15.
        case avif(brand: String)
        /// An ISO media file of no MP4 brand (3GP, an audio-only M4A, ...).
        case notMP4(brand: String)

        public var description: String {
            switch self {
            case .unknownFormat: "not a JPEG, PNG, GIF, WebP or MP4 file"
            case .mismatch(let declared, let actual): "declared as \(declared) but the bytes are \(actual)"
            case .malformed(let detail): "malformed file: \(detail)"
            case .badSize(let width, let height): "pixel size \(width)x\(height) is out of range (1 to 16384 each way)"
            case .tooLong(let durationMs): "it plays for \(durationMs) ms, more than a day (\(CreativeInspector.maxDurationMs) ms): not a launch ad, or its header lies"
            case .quickTime:
                "a QuickTime movie (brand qt), not an MP4: Android and browsers do not promise to play it; upload it as MP4 "
                    + "(H.264 video, AAC sound if any), for example remuxed with ffmpeg -i ad.mov -c copy -movflags +faststart ad.mp4"
            case .heic(let brand):
                "a HEIC/HEIF image (brand \(brand)): browsers do not show it (the console could not preview it) nor does "
                    + "Android before 9; upload it as JPEG, PNG or WebP"
            case .avif(let brand):
                "an AVIF image (brand \(brand)): iOS decodes AVIF only from 16 on and LaunchAdKit supports iOS 15; upload "
                    + "it as JPEG, PNG or WebP"
            case .notMP4(let brand):
                "an ISO media file of brand \(brand) with no MP4 brand among its compatible ones (isom, mp41, mp42, ...); "
                    + "upload the video as MP4 (H.264)"
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
        guard facts.durationMs <= maxDurationMs else { throw .tooLong(durationMs: facts.durationMs) }
        return facts
    }

    /// How long stored bytes of `contentType` play, in milliseconds, read as an upload reads them but without refusing
    /// anything: for creatives stored before their duration was kept. 0 for a still image and for bytes that do not
    /// read, and at most ``maxDurationMs``.
    public static func durationMs(of bytes: [UInt8], contentType: String) -> Int {
        let duration: Int
        switch contentType {
        case "image/gif":
            duration = bytes.count >= 6 && (bytes[0..<6].elementsEqual("GIF87a".utf8) || bytes[0..<6].elementsEqual("GIF89a".utf8))
                ? GIFDuration.milliseconds(bytes) : 0
        case "video/mp4":
            let reader = MP4Reader(b: bytes)
            duration = reader.brands() == nil ? 0 : reader.movie().durationMs
        default:
            duration = 0
        }
        return min(duration, maxDurationMs)
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
        // GIF: signature, then the logical screen size; the frames' delays give its length.
        if b.count >= 10, ascii(0, "GIF87a") || ascii(0, "GIF89a") {
            return Facts(contentType: "image/gif", width: le16(6), height: le16(8), durationMs: GIFDuration.milliseconds(b))
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
        // ISO media (MP4, QuickTime, HEIF, AVIF): an ftyp box first, whose brands say which; the size and the length
        // come from the video track.
        let reader = MP4Reader(b: b)
        if let brands = reader.brands() {
            try checkMP4(brands)
            let movie = reader.movie()
            guard let size = movie.size else { throw .malformed("MP4 without a video track header") }
            return Facts(contentType: "video/mp4", width: size.width, height: size.height, durationMs: movie.durationMs)
        }
        if b.count >= 8, ascii(4, "ftyp") { throw .malformed("MP4 whose ftyp box is cut short") }
        throw .unknownFormat
    }

    /// Brands of MP4: ISO base media (`isom`, `iso2`...), MP4 versions 1 and 2, AVC, Apple's M4V, DASH.
    static let mp4Brands: Set<UInt32> = Set(["isom", "iso2", "iso3", "iso4", "iso5", "iso6", "iso7", "iso8", "iso9", "mp41", "mp42",
                                             "avc1", "M4V ", "M4VH", "M4VP", "mmp4", "MSNV", "dash"].map(MP4Reader.code))
    /// Brands of HEIF images (HEVC-coded `heic`..., and the structural `mif1`, `msf1`, `mif2`) and of AVIF.
    static let heifBrands: Set<UInt32> = Set(["heic", "heix", "heim", "heis", "hevc", "hevx", "hevm", "hevs", "mif1", "msf1", "mif2"]
        .map(MP4Reader.code))
    static let avifBrands: Set<UInt32> = Set(["avif", "avis", "avio"].map(MP4Reader.code))

    /// Refuses, each by its name, the ISO media files that are not MP4: QuickTime by its major brand; an image whose
    /// major brand is HEIF's or AVIF's (a `mif1` or `msf1` file compatible with AVIF is AVIF); anything with no MP4
    /// brand, major or compatible.
    static func checkMP4(_ brands: (major: UInt32, compatible: [UInt32])) throws(Refusal) {
        let major = brands.major
        if major == MP4Reader.code("qt  ") { throw .quickTime }
        if avifBrands.contains(major) { throw .avif(brand: brandName(major)) }
        if heifBrands.contains(major) {
            if let avif = brands.compatible.first(where: avifBrands.contains) { throw .avif(brand: brandName(avif)) }
            throw .heic(brand: brandName(major))
        }
        guard mp4Brands.contains(major) || brands.compatible.contains(where: mp4Brands.contains) else {
            throw .notMP4(brand: brandName(major))
        }
    }

    /// A brand as text: its four characters when they are printable ASCII (trailing spaces dropped), else in hex.
    static func brandName(_ brand: UInt32) -> String {
        let bytes = (0..<4).map { UInt8(truncatingIfNeeded: brand >> (24 - 8 * $0)) }
        guard bytes.allSatisfy({ (0x20...0x7E).contains($0) }) else { return "0x" + String(brand, radix: 16) }
        var name = String(decoding: bytes, as: UTF8.self)
        while name.hasSuffix(" ") { name.removeLast() }
        return name.isEmpty ? "0x20202020" : name
    }

    /// The smallest bytes ``inspect(_:declaredType:)`` reads as a PNG of `width` x `height` pixels: the signature and
    /// the IHDR chunk (8-bit RGBA), with `trailer` after them. For probes and tests that need an image of a size.
    public static func pngHeader(width: Int, height: Int, trailer: [UInt8] = []) -> [UInt8] {
        func be32(_ value: Int) -> [UInt8] { [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + be32(13) + Array("IHDR".utf8) + be32(width) + be32(height)
            + [8, 6, 0, 0, 0] + [0, 0, 0, 0] + trailer
    }
}
