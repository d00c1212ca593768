#if canImport(UIKit)
import ImageIO
import UIKit

/// An animated GIF read with ImageIO, one frame decoded at a time and not kept (a full-screen GIF's frames decoded
/// and cached together take hundreds of MB). Its delays are the core's (``GIFTiming``, from the same bytes).
@MainActor
final class AnimatedImage {
    private let source: CGImageSource
    let count: Int

    /// The GIF at `url`; `nil` when ImageIO cannot read it or it has no frame.
    init?(url: URL) {
        guard let source = CGImageSourceCreateWithURL(url as CFURL, nil) else { return nil }
        let count = CGImageSourceGetCount(source)
        guard count > 0 else { return nil }
        (self.source, self.count) = (source, count)
    }

    /// The frame at `index`, decoded now and not cached by ImageIO.
    func frame(_ index: Int) -> UIImage? {
        guard index >= 0, index < count else { return nil }
        let options = [kCGImageSourceShouldCache: false] as CFDictionary
        return CGImageSourceCreateImageAtIndex(source, index, options).map { UIImage(cgImage: $0) }
    }
}
#endif
