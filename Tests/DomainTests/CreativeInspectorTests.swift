import LaunchAdDomain
import Testing

@Suite("Creative inspection", .timeLimit(.minutes(1)))
struct CreativeInspectorTests {
    static func be16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    static func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    static func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
    static func le24(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF)] }

    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + be32(13) + Array("IHDR".utf8) + be32(1179) + be32(2556) + [8, 6, 0, 0, 0]
    static let gif: [UInt8] = Array("GIF89a".utf8) + le16(640) + le16(960) + [0, 0, 0]
    static let jpeg: [UInt8] = [0xFF, 0xD8] + [0xFF, 0xE0] + be16(16) + Array("JFIF\0".utf8) + Array(repeating: 0, count: 9)
        + [0xFF, 0xC0] + be16(17) + [8] + be16(2340) + be16(1080) + [3] + Array(repeating: 0, count: 9)
    static let webpLossy: [UInt8] = Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBPVP8 ".utf8) + [0, 0, 0, 0] + [0, 0, 0] + [0x9D, 0x01, 0x2A] + le16(750) + le16(1334) + [0, 0]
    static let webpExtended: [UInt8] = Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBPVP8X".utf8) + [10, 0, 0, 0] + [0, 0, 0, 0] + le24(1079) + le24(1919) + [0, 0]
    static var mp4: [UInt8] {
        let ftyp = be32(16) + Array("ftypisom".utf8) + [0, 0, 2, 0]
        var tkhdBody = [UInt8](repeating: 0, count: 84)
        tkhdBody.replaceSubrange(76..<80, with: be32(720 << 16))
        tkhdBody.replaceSubrange(80..<84, with: be32(1280 << 16))
        let tkhd = be32(8 + tkhdBody.count) + Array("tkhd".utf8) + tkhdBody
        let trak = be32(8 + tkhd.count) + Array("trak".utf8) + tkhd
        let moov = be32(8 + trak.count) + Array("moov".utf8) + trak
        return ftyp + moov
    }

    @Test("reads type and pixel size from the bytes", arguments: [
        (png, "image/png", 1179, 2556), (gif, "image/gif", 640, 960), (jpeg, "image/jpeg", 1080, 2340),
        (webpLossy, "image/webp", 750, 1334), (webpExtended, "image/webp", 1080, 1920),
    ])
    func facts(_ bytes: [UInt8], _ type: String, _ width: Int, _ height: Int) throws {
        let facts = try CreativeInspector.inspect(bytes, declaredType: type)
        #expect(facts == CreativeInspector.Facts(contentType: type, width: width, height: height))
    }

    @Test("reads an MP4's size from its first track header")
    func video() throws {
        #expect(try CreativeInspector.inspect(Self.mp4, declaredType: "video/mp4") == .init(contentType: "video/mp4", width: 720, height: 1280))
    }

    @Test("refuses a declared type that the bytes contradict, unknown bytes, and absurd sizes")
    func refusals() {
        #expect(throws: CreativeInspector.Refusal.mismatch(declared: "image/jpeg", actual: "image/png")) {
            try CreativeInspector.inspect(Self.png, declaredType: "image/jpeg")
        }
        #expect(throws: CreativeInspector.Refusal.unknownFormat) { try CreativeInspector.inspect(Array("<svg></svg>".utf8), declaredType: "image/svg+xml") }
        #expect(throws: CreativeInspector.Refusal.self) { try CreativeInspector.inspect(Array(Self.jpeg.prefix(12)), declaredType: "image/jpeg") }
        let huge: [UInt8] = Array("GIF89a".utf8) + Self.le16(0) + Self.le16(10) + [0, 0, 0]
        #expect(throws: CreativeInspector.Refusal.badSize(width: 0, height: 10)) { try CreativeInspector.inspect(huge, declaredType: "image/gif") }
        #expect(throws: CreativeInspector.Refusal.self) { try CreativeInspector.inspect(Array(Self.mp4.prefix(20)), declaredType: "video/mp4") }
    }
}
