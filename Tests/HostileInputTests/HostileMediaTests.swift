import Foundation
import LaunchAdDomain
import LaunchAdTesting
import SeededRandomness
import Testing

/// Creatives are uploads: campaignd reads their headers, frames and boxes, so a file made to lie must neither crash it
/// nor cost it more than one pass over its bytes.
@Suite("Hostile media", .timeLimit(.minutes(2)))
struct HostileMediaTests {
    static let video = MediaBytes.Track(width: 1080, height: 1920, timescale: 30_000, duration: 150_150)
    static let samples: [(type: String, bytes: [UInt8])] = [
        ("image/gif", MediaBytes.gif(width: 640, height: 960, delays: [10, nil, 1, 30])),
        ("video/mp4", MediaBytes.isoMedia(duration: 5_005, tracks: [video])),
        ("video/mp4", MediaBytes.isoMedia(version: 1, duration: 5_005, tracks: [MediaBytes.Track(handler: "soun", width: 0, height: 0, timescale: 48_000, duration: 1), video])),
        ("video/mp4", MediaBytes.isoMedia(brand: "qt  ", compatible: ["qt  "], duration: 5_005, tracks: [video])),
        ("image/heic", MediaBytes.heif(brand: "heic", compatible: ["mif1", "heic"])),
    ]

    /// What must hold of any bytes: facts within their bounds when they are taken, a duration within its bounds always.
    static func check(_ bytes: [UInt8], _ type: String) -> String? {
        if let facts = try? CreativeInspector.inspect(bytes, declaredType: type) {
            guard (1...16_384).contains(facts.width), (1...16_384).contains(facts.height),
                  (0...CreativeInspector.maxDurationMs).contains(facts.durationMs) else { return "took \(facts)" }
        }
        let stored = CreativeInspector.durationMs(of: bytes, contentType: type)
        guard (0...CreativeInspector.maxDurationMs).contains(stored) else { return "a stored duration of \(stored)" }
        return nil
    }

    @Test("seeded random mutations of real GIF and ISO media files (bytes changed, sizes planted, cuts) keep the bounds for about two seconds")
    func mutations() async throws {
        let seed = ProcessInfo.processInfo.environment["MEDIA_PROPERTY_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 0...UInt64.max)
        let (checked, failures) = try await onThread { () -> (Int, [String]) in
            var random = SeededRandom(seed: seed)
            let deadline = ContinuousClock.now + .seconds(2)
            var checked = 0
            var failures: [String] = []
            while ContinuousClock.now < deadline && failures.count < 5 {
                let (type, original) = Self.samples[Int(random.next() % UInt64(Self.samples.count))]
                var bytes = original
                for _ in 0..<(1 + random.next() % 4) {
                    let at = Int(random.next() % UInt64(bytes.count))
                    switch random.next() % 4 {
                    case 0: bytes[at] = UInt8(truncatingIfNeeded: random.next())
                    case 1:  // a size that lies: huge, tiny, 0, 1 (64-bit follows) or just past the end
                        let sizes: [UInt32] = [0, 1, 7, 8, 0xFFFF_FFFF, 0x8000_0000, UInt32(bytes.count - at + 1)]
                        let size = MediaBytes.be32(sizes[Int(random.next() % UInt64(sizes.count))])
                        bytes.replaceSubrange(at..<min(at + 4, bytes.count), with: size)
                    case 2: bytes.removeLast(Int(random.next() % UInt64(bytes.count)))
                    default: bytes.insert(contentsOf: MediaBytes.be64(random.next()), at: at)
                    }
                    if bytes.isEmpty { bytes = [0] }
                }
                if let broken = Self.check(bytes, type) {
                    failures.append("seed \(seed), input #\(checked) \(bytes.prefix(64)): \(broken)")
                }
                checked += 1
            }
            return (checked, failures)
        }
        for failure in failures { Issue.record(Comment(rawValue: failure)) }
        #expect(checked > 200, "only \(checked) inputs in two seconds")
        print("hostile media: \(checked) mutated files checked, seed \(seed)")
    }

    @Test("a million boxes, a million frames: read in one pass, in seconds, and a length beyond a day refused")
    func linearTime() async throws {
        // 1 048 576 empty trak boxes in moov (8 MiB), then the one track with a picture: each box is visited once.
        let single = MediaBytes.isoMedia(duration: 5_005, tracks: [Self.video])
        let trak = Array(single[(single.count - Self.trakLength(single))...])
        let empty = MediaBytes.box("trak", [])
        var empties: [UInt8] = []
        empties.reserveCapacity(empty.count << 20)
        for _ in 0..<(1 << 20) { empties += empty }
        let manyTracks = MediaBytes.box("ftyp", Array("isom\0\0\0\0isom".utf8)) + MediaBytes.box("moov", empties + trak)
        // 1 000 000 frames of the longest delay: 15 MB, and 655 350 000 ms.
        let frame: [UInt8] = [0x21, 0xF9, 4, 0, 0xFF, 0xFF, 0, 0, 0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x44, 0x01, 0]
        var manyFrames = MediaBytes.gif(width: 10, height: 10, delays: [])
        manyFrames.removeLast()
        manyFrames.reserveCapacity(manyFrames.count + frame.count * 1_000_000 + 1)
        for _ in 0..<1_000_000 { manyFrames += frame }
        manyFrames.append(0x3B)
        let frames = manyFrames

        let (mp4, gif, mp4Time, gifTime) = try await onThread { () -> (Result<CreativeInspector.Facts, CreativeInspector.Refusal>,
                                                                     Result<CreativeInspector.Facts, CreativeInspector.Refusal>, Duration, Duration) in
            let clock = ContinuousClock()
            var mp4: Result<CreativeInspector.Facts, CreativeInspector.Refusal>!
            let mp4Time = clock.measure { mp4 = Result { () throws(CreativeInspector.Refusal) in try CreativeInspector.inspect(manyTracks, declaredType: "video/mp4") } }
            var gif: Result<CreativeInspector.Facts, CreativeInspector.Refusal>!
            let gifTime = clock.measure { gif = Result { () throws(CreativeInspector.Refusal) in try CreativeInspector.inspect(frames, declaredType: "image/gif") } }
            return (mp4, gif, mp4Time, gifTime)
        }
        #expect(try mp4.get() == .init(contentType: "video/mp4", width: 1080, height: 1920, durationMs: 5_005))
        #expect(throws: CreativeInspector.Refusal.tooLong(durationMs: 655_350_000_000)) { try gif.get() }
        // A walk that went back over the boxes it passed would take hours here, not seconds.
        #expect(mp4Time < .seconds(20) && gifTime < .seconds(20), "\(mp4Time), \(gifTime)")
        print("hostile media: \(manyTracks.count) bytes of 2^20 boxes read in \(mp4Time), \(manyFrames.count) bytes of 10^6 frames in \(gifTime)")
    }

    /// The length of the last `trak` box of `file` (the builder writes the tracks last).
    static func trakLength(_ file: [UInt8]) -> Int {
        let start = file.indices.last { file[$0..<min($0 + 4, file.count)].elementsEqual("trak".utf8) }! - 4
        return file.count - start
    }
}
