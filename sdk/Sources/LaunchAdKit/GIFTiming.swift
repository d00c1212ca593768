import Foundation

/// The frame delays of an animated GIF, read from its bytes (each frame's Graphic Control Extension), so the core
/// schedules the frames itself and honours the GIF's own timing on every platform.
public enum GIFTiming {
    /// A delay of 10 ms or less is drawn as 100 ms, as browsers and ImageIO do (old GIFs write 0 to mean "as fast as
    /// you like", which would spin a CPU).
    public static let shortestDelay = 0.011
    public static let defaultDelay = 0.1

    /// Each frame's delay in seconds, in order; nil when `data` is not a well-formed GIF.
    public static func frameDelays(_ data: Data) -> [Double]? {
        let bytes = [UInt8](data)
        guard bytes.count >= 13, bytes[0] == 0x47, bytes[1] == 0x49, bytes[2] == 0x46 else { return nil }  // "GIF"
        var index = 13
        if bytes[10] & 0x80 != 0 { index += 3 << (Int(bytes[10] & 0x07) + 1) }  // the global colour table
        var delays: [Double] = []
        var pending: Double?
        /// Skips a run of sub-blocks (a size byte, that many bytes, ... a zero); false when it runs off the end.
        func skipSubBlocks() -> Bool {
            while index < bytes.count {
                let size = Int(bytes[index])
                index += 1
                if size == 0 { return true }
                index += size
            }
            return false
        }
        while index < bytes.count {
            switch bytes[index] {
            case 0x21:  // an extension
                guard index + 1 < bytes.count else { return nil }
                let label = bytes[index + 1]
                index += 2
                if label == 0xF9, index + 5 < bytes.count, bytes[index] == 4 {
                    let hundredths = Int(bytes[index + 2]) | Int(bytes[index + 3]) << 8
                    let delay = Double(hundredths) / 100
                    pending = delay < shortestDelay ? defaultDelay : delay
                }
                guard skipSubBlocks() else { return nil }
            case 0x2C:  // an image: its descriptor, a local colour table, the LZW code size, its data
                guard index + 10 < bytes.count else { return nil }
                let packed = bytes[index + 9]
                index += 10
                if packed & 0x80 != 0 { index += 3 << (Int(packed & 0x07) + 1) }
                index += 1
                guard skipSubBlocks() else { return nil }
                delays.append(pending ?? defaultDelay)
                pending = nil
            case 0x3B:  // the trailer
                return delays.isEmpty ? nil : delays
            default:
                return nil
            }
        }
        return delays.isEmpty ? nil : delays
    }
}
