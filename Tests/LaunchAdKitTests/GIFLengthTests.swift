import Foundation
import LaunchAdDomain
import LaunchAdKit
import LaunchAdTesting
import Testing

/// The length campaignd answers for a GIF (`durationMs`) is what LaunchAdKit plays: the two read the frames apart
/// (the server in LaunchAdDomain, the phone in the SDK's own package), so they are held to the same answer here.
@Suite("GIF length, on the server and on the phone", .timeLimit(.minutes(1)))
struct GIFLengthTests {
    @Test("campaignd's durationMs of a GIF is the sum of the delays LaunchAdKit animates it with; 0 where the phone shows a still image",
          arguments: [[10, 20, 30], [0, 1, 2, 3], [nil, 50], [nil, nil, nil], [7, 65_535], [50], [nil]] as [[Int?]])
    func same(delays: [Int?]) throws {
        let whole = MediaBytes.gif(width: 640, height: 960, delays: delays)
        // Whole, without its trailer, and cut inside its last frame.
        for gif in [whole, Array(whole.dropLast()), Array(whole.dropLast(4))] {
            let frames = GIFTiming.frameDelays(Data(gif))
            let played = frames.map { $0.count > 1 ? Int(($0.reduce(0, +) * 1000).rounded()) : 0 } ?? 0
            #expect(try CreativeInspector.inspect(gif, declaredType: "image/gif").durationMs == played, "\(delays), \(gif.count) bytes")
        }
        let length = try CreativeInspector.inspect(whole, declaredType: "image/gif").durationMs
        #expect(delays.count < 2 || length > 0)
    }
}
