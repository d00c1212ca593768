#if canImport(UIKit)
import ImageIO
import UIKit

/// An animated GIF's frames, decoded with ImageIO. Their delays are the core's (``GIFTiming``, from the same bytes).
enum AnimatedImage {
    /// Every frame of the image at `url`, in order; empty when ImageIO cannot read it.
    static func frames(at url: URL) -> [UIImage] {
        guard let source = CGImageSourceCreateWithURL(url as CFURL, nil) else { return [] }
        return (0..<CGImageSourceGetCount(source)).compactMap { index in
            CGImageSourceCreateImageAtIndex(source, index, nil).map { UIImage(cgImage: $0) }
        }
    }
}
#endif
