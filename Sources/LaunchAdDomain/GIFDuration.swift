/// How long an animated GIF plays once, read from its frames' Graphic Control Extensions by the rule LaunchAdKit
/// plays it by (`GIFTiming` in sdk/Sources/LaunchAdKit): a frame's delay of 10 ms or less (0 or 1 hundredth) is drawn
/// as 100 ms, a frame without a delay lasts 100 ms, and a GIF of one frame (or one LaunchAdKit cannot read as
/// frames) is a still image. Kept to the same rule so that the duration campaignd answers is the one the phone plays.
enum GIFDuration {
    /// A frame's delay when its GIF gives none, or gives one of 10 ms or less, in milliseconds.
    static let defaultDelayMs = 100

    /// The sum of the frames' delays in milliseconds when `b` (a GIF, its signature already checked) has more than one
    /// frame; 0 for a still image or bytes that do not read as frames. One pass, each step moving forward: linear in
    /// the bytes whatever their blocks claim.
    static func milliseconds(_ b: [UInt8]) -> Int {
        guard b.count >= 13 else { return 0 }
        var index = 13
        if b[10] & 0x80 != 0 { index += 3 << (Int(b[10] & 0x07) + 1) }  // the global colour table
        var frames = 0
        var total = 0
        var pending: Int?
        /// Skips a run of sub-blocks (a size byte, that many bytes, ... a zero); false when it runs off the end.
        func skipSubBlocks() -> Bool {
            while index < b.count {
                let size = Int(b[index])
                index += 1
                if size == 0 { return true }
                index += size
            }
            return false
        }
        scan: while index < b.count {
            switch b[index] {
            case 0x21:  // an extension
                guard index + 1 < b.count else { return 0 }
                let label = b[index + 1]
                index += 2
                if label == 0xF9, index + 5 < b.count, b[index] == 4 {
                    let hundredths = Int(b[index + 2]) | Int(b[index + 3]) << 8
                    pending = hundredths <= 1 ? defaultDelayMs : hundredths * 10
                }
                guard skipSubBlocks() else { return 0 }
            case 0x2C:  // an image: its descriptor, a local colour table, the LZW code size, its data
                guard index + 10 < b.count else { return 0 }
                let packed = b[index + 9]
                index += 10
                if packed & 0x80 != 0 { index += 3 << (Int(packed & 0x07) + 1) }
                index += 1
                guard skipSubBlocks() else { return 0 }
                frames += 1
                // At most 655 350 ms a frame and fewer frames than bytes: no overflow, whatever the count.
                total += pending ?? defaultDelayMs
                pending = nil
            case 0x3B:  // the trailer
                break scan
            default:
                return 0
            }
        }
        return frames > 1 ? total : 0
    }
}
