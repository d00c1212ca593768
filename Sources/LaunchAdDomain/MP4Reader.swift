/// Reads an ISO base media file (MP4 and its siblings: QuickTime, HEIF, AVIF all begin with an `ftyp` box): its
/// brands, the picture size of its video track and how long it plays. The bytes are an upload's, so nothing they
/// claim is trusted: every box must lie inside its parent (a 64-bit size beyond the bytes, a size smaller than its
/// own header, a size that wraps end the walk), the walk goes down a fixed path of boxes (`moov`, `trak`, `mdia`,
/// `mvex`) and never back, and it keeps only the first tracks it needs: linear time and constant memory whatever the
/// boxes say.
struct MP4Reader {
    let b: [UInt8]

    /// What the walk found.
    struct Movie {
        /// The picture size and media duration (its `mdhd`) of the first video track (`hdlr` `vide`) with a picture
        /// size in its `tkhd`, or else of the first track with one.
        var size: (width: Int, height: Int)?
        var trackDurationMs: Int?
        /// The movie's own duration (`mvhd`), and the whole duration of a fragmented movie (`mvex`'s `mehd`).
        var movieDurationMs: Int?
        var fragmentedDurationMs: Int?

        /// The track's duration when it has one, else the movie's: how long the video plays; 0 when none is known.
        var durationMs: Int { trackDurationMs ?? movieDurationMs ?? fragmentedDurationMs ?? 0 }
    }

    /// A box: its four-character type and where its body lies.
    struct Box {
        let type: UInt32
        let body: Range<Int>
    }

    /// A four-character code as a number, for comparing types and brands without making strings.
    static func code(_ text: String) -> UInt32 {
        text.utf8.reduce(0) { $0 << 8 | UInt32($1) }
    }

    static let ftyp = code("ftyp"), moov = code("moov"), mvhd = code("mvhd"), mvex = code("mvex"), mehd = code("mehd")
    static let trak = code("trak"), tkhd = code("tkhd"), mdia = code("mdia"), mdhd = code("mdhd"), hdlr = code("hdlr")
    static let vide = code("vide")
    /// The most compatible brands read from an `ftyp` box.
    static let maxCompatibleBrands = 64

    func be32(_ i: Int) -> UInt32 { UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3]) }
    func be64(_ i: Int) -> UInt64 { UInt64(be32(i)) << 32 | UInt64(be32(i + 4)) }

    /// The boxes one after another in `range`, until the range ends or a box's size lies; `visit` returns false to stop.
    func forEachBox(in range: Range<Int>, _ visit: (Box) -> Bool) {
        var i = range.lowerBound
        while range.upperBound - i >= 8 {
            let room = UInt64(range.upperBound - i)
            var size = UInt64(be32(i))
            var header = 8
            if size == 1 {  // a 64-bit size follows the type
                guard room >= 16 else { return }
                size = be64(i + 8)
                header = 16
            } else if size == 0 {  // the box runs to the end of its parent
                size = room
            }
            guard size >= UInt64(header), size <= room else { return }
            let end = i + Int(size)
            guard visit(Box(type: be32(i + 4), body: i + header..<end)) else { return }
            i = end
        }
    }

    /// The first box of `type` in `range`.
    func first(_ type: UInt32, in range: Range<Int>) -> Box? {
        var found: Box?
        forEachBox(in: range) { box in
            if box.type == type { found = box }
            return found == nil
        }
        return found
    }

    /// The `ftyp` box at the start: its major brand and its compatible brands; nil when the bytes do not start with one.
    func brands() -> (major: UInt32, compatible: [UInt32])? {
        guard b.count >= 8, be32(4) == Self.ftyp else { return nil }
        var result: (UInt32, [UInt32])?
        forEachBox(in: 0..<b.count) { box in
            guard box.type == Self.ftyp, box.body.count >= 8 else { return false }
            // The compatible brands fill the rest of the box, four bytes each; real files list a handful, so a box
            // that claims the whole file is read no further than its first 64.
            let end = min(box.body.upperBound, box.body.lowerBound + 8 + 4 * Self.maxCompatibleBrands)
            let compatible = stride(from: box.body.lowerBound + 8, through: end - 4, by: 4).map(be32)
            result = (be32(box.body.lowerBound), compatible)
            return false
        }
        return result
    }

    /// The movie's picture size and durations, from its `moov` box.
    func movie() -> Movie {
        var movie = Movie()
        guard let moov = first(Self.moov, in: 0..<b.count) else { return movie }
        var mvhd: Box?, mehd: Box?, sawMvex = false
        var pictured: (size: (Int, Int), durationMs: Int?)?
        forEachBox(in: moov.body) { box in
            switch box.type {
            case Self.mvhd where mvhd == nil:
                mvhd = box
            case Self.mvex where !sawMvex:
                sawMvex = true
                mehd = first(Self.mehd, in: box.body)
            case Self.trak where movie.size == nil:
                let track = self.track(box.body)
                guard let size = track.size else { break }
                if track.isVideo {
                    movie.size = size
                    movie.trackDurationMs = track.durationMs
                } else if pictured == nil {
                    pictured = (size, track.durationMs)
                }
            default:
                break
            }
            return true
        }
        if movie.size == nil, let pictured {
            movie.size = pictured.size
            movie.trackDurationMs = pictured.durationMs
        }
        if let mvhd {
            movie.movieDurationMs = mediaDuration(mvhd.body)
            if let mehd { movie.fragmentedDurationMs = fragmentDuration(mehd.body, timescale: timescale(mvhd.body)) }
        }
        return movie
    }

    /// A track's picture size (its `tkhd`, in whole pixels), whether its handler is video, and its media duration.
    func track(_ range: Range<Int>) -> (size: (Int, Int)?, isVideo: Bool, durationMs: Int?) {
        var size: (Int, Int)?
        if let tkhd = first(Self.tkhd, in: range), tkhd.body.count >= 84 {
            let offset = tkhd.body.lowerBound + (b[tkhd.body.lowerBound] == 1 ? 88 : 76)
            if offset + 8 <= tkhd.body.upperBound {
                let width = Int(be32(offset) >> 16), height = Int(be32(offset + 4) >> 16)
                if width > 0 && height > 0 { size = (width, height) }
            }
        }
        var isVideo = false
        var durationMs: Int?
        if let mdia = first(Self.mdia, in: range) {
            if let hdlr = first(Self.hdlr, in: mdia.body), hdlr.body.count >= 12 {
                isVideo = be32(hdlr.body.lowerBound + 8) == Self.vide
            }
            if let mdhd = first(Self.mdhd, in: mdia.body) { durationMs = mediaDuration(mdhd.body) }
        }
        return (size, isVideo, durationMs)
    }

    /// An `mvhd`'s or `mdhd`'s duration in milliseconds (the two share the layout of their first fields: version and
    /// flags, creation and modification times, timescale, duration; times of 8 bytes in version 1, of 4 in version 0).
    /// nil when the box is short, its timescale 0, or its duration unknown (all ones) or 0.
    func mediaDuration(_ body: Range<Int>) -> Int? {
        guard body.count >= 4 else { return nil }
        let start = body.lowerBound
        let (timescale, duration): (UInt32, UInt64)
        if b[start] == 1 {
            guard body.count >= 32 else { return nil }
            timescale = be32(start + 20)
            duration = be64(start + 24)
            guard duration != .max else { return nil }
        } else {
            guard body.count >= 20 else { return nil }
            timescale = be32(start + 12)
            duration = UInt64(be32(start + 16))
            guard duration != UInt64(UInt32.max) else { return nil }
        }
        return Self.milliseconds(duration, timescale: timescale)
    }

    /// An `mvhd`'s timescale, in which a `mehd`'s duration is counted; 0 when the box is short.
    func timescale(_ body: Range<Int>) -> UInt32 {
        guard body.count >= 4 else { return 0 }
        let start = body.lowerBound
        if b[start] == 1 { return body.count >= 24 ? be32(start + 20) : 0 }
        return body.count >= 16 ? be32(start + 12) : 0
    }

    /// A `mehd`'s fragment duration (8 bytes in version 1, 4 in version 0) in milliseconds.
    func fragmentDuration(_ body: Range<Int>, timescale: UInt32) -> Int? {
        guard body.count >= 8 else { return nil }
        let start = body.lowerBound
        if b[start] == 1 {
            guard body.count >= 12 else { return nil }
            return Self.milliseconds(be64(start + 4), timescale: timescale)
        }
        return Self.milliseconds(UInt64(be32(start + 4)), timescale: timescale)
    }

    /// `duration / timescale` seconds in whole milliseconds (rounded down), `Int.max` when that overflows; nil for a
    /// timescale or a duration of 0.
    static func milliseconds(_ duration: UInt64, timescale: UInt32) -> Int? {
        guard timescale > 0, duration > 0 else { return nil }
        let scale = UInt64(timescale)
        let (whole, overflow) = (duration / scale).multipliedReportingOverflow(by: 1000)
        // The remainder is below 2^32, so its thousand times cannot overflow.
        let (ms, carry) = whole.addingReportingOverflow(duration % scale * 1000 / scale)
        guard !overflow, !carry, ms <= UInt64(Int.max) else { return .max }
        return Int(ms)
    }
}
