/// Animated GIFs and ISO media files (MP4, QuickTime, HEIF, AVIF) made byte by byte, with the frame delays, brands,
/// timescales and durations a test chooses: what campaignd reads of a creative's length is checked against files
/// whose length is known.
public enum MediaBytes {
    /// A GIF89a of `width`x`height` with one frame per entry of `delays`: a Graphic Control Extension with that delay
    /// in hundredths of a second (none for `nil`), then a 1x1 image of the global colour table's first colour (frames
    /// may be smaller than the screen), then the trailer. Browsers and ImageIO decode it.
    public static func gif(width: Int, height: Int, delays: [Int?]) -> [UInt8] {
        var bytes = Array("GIF89a".utf8) + le16(width) + le16(height) + [0x80, 0, 0] + [0, 0, 0, 255, 255, 255]
        // Loop for ever (NETSCAPE2.0), as launch GIFs do.
        bytes += [0x21, 0xFF, 11] + Array("NETSCAPE2.0".utf8) + [3, 1, 0, 0, 0]
        for delay in delays {
            if let delay { bytes += [0x21, 0xF9, 4, 0] + le16(delay) + [0, 0] }
            bytes += [0x2C] + le16(0) + le16(0) + le16(1) + le16(1) + [0]
            bytes += [2, 2, 0x44, 0x01, 0]  // LZW, minimum code size 2: clear, colour 0, end
        }
        return bytes + [0x3B]
    }

    /// One track of an ISO media file: its handler (`vide`, `soun`), its picture size (0 for sound) and its media
    /// duration in its own timescale.
    public struct Track: Sendable {
        public var handler: String
        public var width: Int
        public var height: Int
        public var timescale: UInt32
        public var duration: UInt64

        public init(handler: String = "vide", width: Int, height: Int, timescale: UInt32, duration: UInt64) {
            self.handler = handler
            self.width = width
            self.height = height
            self.timescale = timescale
            self.duration = duration
        }
    }

    /// An ISO media file: `ftyp` (`brand`, then `compatible`), an `mdat` of `mediaBytes` zero bytes written with a
    /// 64-bit size (a camera's layout: the media before the movie), then `moov` with `mvhd` (the movie's `timescale`
    /// and `duration`) and a `trak` per track (`tkhd`, `mdia` with `mdhd` and `hdlr`), each box in `version` 0 (32-bit
    /// times) or 1 (64-bit).
    public static func isoMedia(brand: String = "isom", compatible: [String] = ["isom", "iso2", "avc1", "mp41"], version: UInt8 = 0,
                                timescale: UInt32 = 1000, duration: UInt64, tracks: [Track], mediaBytes: Int = 16) -> [UInt8] {
        let ftyp = box("ftyp", Array(brand.utf8) + be32(512) + compatible.flatMap { Array($0.utf8) })
        let mdat = be32(1) + Array("mdat".utf8) + be64(UInt64(16 + mediaBytes)) + [UInt8](repeating: 0, count: mediaBytes)
        var trackBoxes: [UInt8] = []
        for (index, track) in tracks.enumerated() {
            let tkhd = box("tkhd", [version, 0, 0, 3] + times(version) + be32(UInt32(index + 1)) + be32(0) + time(version, track.duration)
                + [UInt8](repeating: 0, count: 8) + [0, 0, 0, 0, 0, 0, 0, 0] + matrix
                + be32(UInt32(track.width) << 16) + be32(UInt32(track.height) << 16))
            let mdhd = box("mdhd", [version, 0, 0, 0] + times(version) + be32(track.timescale) + time(version, track.duration) + [0x55, 0xC4, 0, 0])
            let hdlr = box("hdlr", [0, 0, 0, 0] + be32(0) + Array(track.handler.utf8) + [UInt8](repeating: 0, count: 12) + [0])
            trackBoxes += box("trak", tkhd + box("mdia", mdhd + hdlr))
        }
        let mvhd = box("mvhd", [version, 0, 0, 0] + times(version) + be32(timescale) + time(version, duration) + be32(0x0001_0000) + [1, 0]
            + [UInt8](repeating: 0, count: 10) + matrix + [UInt8](repeating: 0, count: 24) + be32(UInt32(tracks.count + 1)))
        return ftyp + mdat + box("moov", mvhd + trackBoxes)
    }

    /// A HEIF-family image's start: `ftyp` with `brand` and `compatible`, and an empty `meta` box.
    public static func heif(brand: String, compatible: [String]) -> [UInt8] {
        box("ftyp", Array(brand.utf8) + be32(0) + compatible.flatMap { Array($0.utf8) }) + box("meta", [0, 0, 0, 0])
    }

    /// A box of `type` around `body`, with a 32-bit size.
    public static func box(_ type: String, _ body: [UInt8]) -> [UInt8] {
        be32(UInt32(8 + body.count)) + Array(type.utf8) + body
    }

    /// The identity matrix of `mvhd` and `tkhd`.
    static let matrix: [UInt8] = be32(0x0001_0000) + be32(0) + be32(0) + be32(0) + be32(0x0001_0000) + be32(0) + be32(0) + be32(0) + be32(0x4000_0000)

    /// Creation and modification times.
    static func times(_ version: UInt8) -> [UInt8] { time(version, 3_900_000_000) + time(version, 3_900_000_000) }

    static func time(_ version: UInt8, _ value: UInt64) -> [UInt8] { version == 1 ? be64(value) : be32(UInt32(truncatingIfNeeded: value)) }

    static func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
    public static func be32(_ value: UInt32) -> [UInt8] { [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
    public static func be64(_ value: UInt64) -> [UInt8] { be32(UInt32(value >> 32)) + be32(UInt32(value & 0xFFFF_FFFF)) }
}
