import LaunchAdDomain
import LaunchAdTesting
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

    @Test("an animated GIF lasts the sum of its frames' delays, a delay of 10 ms or less and a missing one counting 100 ms; one frame is a still image",
          arguments: [
              ([10, 20, 30], 600), ([0, 1, 2], 220), ([nil, 50], 600), ([4, 4, 4, 4, 4, 4, 4, 4, 4, 4], 400), ([65_535, 65_535], 1_310_700),
              ([50], 0), ([nil], 0),
          ] as [([Int?], Int)])
    func gifDuration(_ delays: [Int?], _ durationMs: Int) throws {
        let gif = MediaBytes.gif(width: 640, height: 960, delays: delays)
        #expect(try CreativeInspector.inspect(gif, declaredType: "image/gif") == .init(contentType: "image/gif", width: 640, height: 960, durationMs: durationMs))
        #expect(CreativeInspector.durationMs(of: gif, contentType: "image/gif") == durationMs)
        // Cut in the middle of its last frame, the GIF is not read as frames (as LaunchAdKit reads it: a still image).
        #expect(try CreativeInspector.inspect(Array(gif.dropLast(4)), declaredType: "image/gif").durationMs == 0)
    }

    @Test("an MP4 lasts its video track's media duration (mdhd), else its movie's (mvhd), in version 0 and 1 boxes", arguments: [0, 1] as [UInt8])
    func mp4Duration(version: UInt8) throws {
        // 150 frames at 29.97 fps in the track; the movie's own duration (with an edit, say) a little longer.
        let video = MediaBytes.Track(width: 1080, height: 1920, timescale: 30_000, duration: 150_150)
        let sound = MediaBytes.Track(handler: "soun", width: 0, height: 0, timescale: 44_100, duration: 441_000)
        var file = MediaBytes.isoMedia(version: version, timescale: 600, duration: 3_030, tracks: [sound, video])
        #expect(try CreativeInspector.inspect(file, declaredType: "video/mp4") == .init(contentType: "video/mp4", width: 1080, height: 1920, durationMs: 5_005))
        #expect(CreativeInspector.durationMs(of: file, contentType: "video/mp4") == 5_005)
        // The track's duration unknown (all ones): the movie's, 5050 ms.
        var unknown = video
        unknown.duration = version == 1 ? .max : UInt64(UInt32.max)
        file = MediaBytes.isoMedia(version: version, timescale: 600, duration: 3_030, tracks: [unknown])
        #expect(try CreativeInspector.inspect(file, declaredType: "video/mp4").durationMs == 5_050)
        // A picture track whose handler is not video is taken when no track is video; a video track wins over it.
        var picture = video
        picture.handler = "pict"
        picture.width = 720
        picture.duration = 60_000
        file = MediaBytes.isoMedia(version: version, duration: 9_000, tracks: [picture])
        #expect(try CreativeInspector.inspect(file, declaredType: "video/mp4") == .init(contentType: "video/mp4", width: 720, height: 1920, durationMs: 2_000))
        file = MediaBytes.isoMedia(version: version, duration: 9_000, tracks: [picture, video])
        #expect(try CreativeInspector.inspect(file, declaredType: "video/mp4") == .init(contentType: "video/mp4", width: 1080, height: 1920, durationMs: 5_005))
        // Any MP4 brand among the compatible ones will do; a duration of more than a day is refused, not answered.
        file = MediaBytes.isoMedia(brand: "XAVC", compatible: ["XAVC", "mp42", "iso2"], version: version, duration: 1, tracks: [video])
        #expect(try CreativeInspector.inspect(file, declaredType: "video/mp4").durationMs == 5_005)
        var long = video
        long.timescale = 1
        long.duration = version == 1 ? UInt64(Int64.max) : 86_401
        file = MediaBytes.isoMedia(version: version, duration: 1, tracks: [long])
        #expect(throws: CreativeInspector.Refusal.tooLong(durationMs: version == 1 ? Int.max : 86_401_000)) {
            try CreativeInspector.inspect(file, declaredType: "video/mp4")
        }
        #expect(CreativeInspector.durationMs(of: file, contentType: "video/mp4") == CreativeInspector.maxDurationMs)
    }

    @Test("QuickTime, HEIC and AVIF are refused, each by name and with what to upload instead; other ISO brands as not MP4")
    func brands() throws {
        let video = MediaBytes.Track(width: 1080, height: 1920, timescale: 600, duration: 3_000)
        let movie = MediaBytes.isoMedia(brand: "qt  ", compatible: ["qt  "], duration: 3_000, tracks: [video])
        #expect(throws: CreativeInspector.Refusal.quickTime) { try CreativeInspector.inspect(movie, declaredType: "video/mp4") }
        #expect(throws: CreativeInspector.Refusal.quickTime) { try CreativeInspector.sniff(movie) }
        #expect(CreativeInspector.Refusal.quickTime.description.contains("QuickTime") && CreativeInspector.Refusal.quickTime.description.contains("upload it as MP4"))
        let images: [([UInt8], CreativeInspector.Refusal, String)] = [
            (MediaBytes.heif(brand: "heic", compatible: ["mif1", "heic"]), .heic(brand: "heic"), "HEIC"),
            (MediaBytes.heif(brand: "mif1", compatible: ["mif1", "heic"]), .heic(brand: "mif1"), "HEIC"),
            (MediaBytes.heif(brand: "msf1", compatible: ["msf1", "hevc"]), .heic(brand: "msf1"), "HEIC"),
            (MediaBytes.heif(brand: "avif", compatible: ["avif", "mif1", "miaf"]), .avif(brand: "avif"), "AVIF"),
            (MediaBytes.heif(brand: "avis", compatible: ["avis", "msf1"]), .avif(brand: "avis"), "AVIF"),
            (MediaBytes.heif(brand: "mif1", compatible: ["mif1", "avif", "miaf"]), .avif(brand: "avif"), "AVIF"),
        ]
        for (bytes, refusal, name) in images {
            #expect(throws: refusal) { try CreativeInspector.inspect(bytes, declaredType: "image/\(name.lowercased())") }
            #expect(refusal.description.contains(name) && refusal.description.contains("upload it as JPEG, PNG or WebP"))
        }
        #expect(CreativeInspector.Refusal.avif(brand: "avif").description.contains("iOS 15"))
        #expect(CreativeInspector.Refusal.heic(brand: "heic").description.contains("Android before 9"))
        let phone3G = MediaBytes.isoMedia(brand: "3gp4", compatible: ["3gp4", "3gp5"], duration: 3_000, tracks: [video])
        #expect(throws: CreativeInspector.Refusal.notMP4(brand: "3gp4")) { try CreativeInspector.inspect(phone3G, declaredType: "video/mp4") }
        let unprintable = MediaBytes.isoMedia(brand: "\u{1}\u{2}\u{3}\u{4}", compatible: [], duration: 3_000, tracks: [video])
        #expect(throws: CreativeInspector.Refusal.notMP4(brand: "0x1020304")) { try CreativeInspector.inspect(unprintable, declaredType: "video/mp4") }
    }

    @Test("boxes that lie end the walk: sizes past their parent or below their header, 64-bit sizes beyond the bytes, a cut ftyp")
    func lyingBoxes() throws {
        let video = MediaBytes.Track(width: 1080, height: 1920, timescale: 600, duration: 3_000)
        let good = MediaBytes.isoMedia(duration: 3_000, tracks: [video])
        #expect(try CreativeInspector.inspect(good, declaredType: "video/mp4").durationMs == 5_000)
        let ftyp = MediaBytes.box("ftyp", Array("isomisomavc1".utf8))
        let moov = Array(good[good.indices.first { good[$0..<min($0 + 4, good.count)].elementsEqual("moov".utf8) }! - 4..<good.count])
        let cases: [(String, [UInt8])] = [
            ("an mdat whose 64-bit size has its high bits set", ftyp + MediaBytes.be32(1) + Array("mdat".utf8) + MediaBytes.be64(1 << 40) + moov),
            ("an mdat whose 64-bit size wraps", ftyp + MediaBytes.be32(1) + Array("mdat".utf8) + MediaBytes.be64(.max) + moov),
            ("a box smaller than its header", ftyp + MediaBytes.be32(4) + Array("free".utf8) + moov),
            ("a 64-bit box smaller than its header", ftyp + MediaBytes.be32(1) + Array("free".utf8) + MediaBytes.be64(12) + moov),
            ("a box past the end", ftyp + MediaBytes.be32(0xFFFF_FFF0) + Array("free".utf8) + moov),
        ]
        for (name, bytes) in cases {
            #expect(throws: CreativeInspector.Refusal.malformed("MP4 without a video track header"), "\(name)") {
                try CreativeInspector.inspect(bytes, declaredType: "video/mp4")
            }
        }
        // A box that runs to the end (size 0) is read to the end.
        #expect(try CreativeInspector.inspect(ftyp + MediaBytes.be32(0) + Array(moov.dropFirst(4)), declaredType: "video/mp4").durationMs == 5_000)
        #expect(throws: CreativeInspector.Refusal.malformed("MP4 whose ftyp box is cut short")) {
            try CreativeInspector.inspect(MediaBytes.be32(64) + Array("ftypisom".utf8), declaredType: "video/mp4")
        }
    }
}

