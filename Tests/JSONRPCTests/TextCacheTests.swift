import JSONRPC
import SeededRandomness
import Testing

@Suite("Short texts and names compared in place", .timeLimit(.minutes(1)))
struct TextCacheTests {
    /// Bytes at an offset from an 8-byte boundary, so word reads are tried unaligned too.
    static func withBytes<T>(_ bytes: [UInt8], offset: Int, _ body: (UnsafeRawBufferPointer) -> T) -> T {
        let padded = [UInt8](repeating: 0xAA, count: offset) + bytes + [UInt8](repeating: 0xAA, count: 8)
        return padded.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[offset..<(offset + bytes.count)])) }
    }

    static let names: [StaticString] = ["", "a", "id", "app", "shop", "cn-ea", "region", "jsonrpc", "platform", "deviceId1",
                                        "appVersion", "launch.query", "abcdefghijklmno", "abcdefghijklmnop",
                                        "backgroundSeconds", "abcdefghijklmnopqrstuvwx"]

    @Test("a name is equal to exactly its own bytes: every length, every byte changed, shorter and longer, unaligned")
    func equals() {
        for name in Self.names {
            let own = Array(UnsafeRawBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
            var candidates: [[UInt8]] = [own, own + [0x61], Array(own.dropLast()), Array(own.dropFirst())]
            for index in own.indices {
                for delta: UInt8 in [1, 0x20, 0x80] {
                    var changed = own
                    changed[index] ^= delta
                    candidates.append(changed)
                }
            }
            for candidate in candidates {
                for offset in 0..<8 {
                    let equal = Self.withBytes(candidate, offset: offset) { CompactReader.equals($0, name) }
                    #expect(equal == (candidate == own), "\(name) against \(candidate) at offset \(offset)")
                }
            }
        }
    }

    @Test("the cache gives what String(decoding:) gives: repeated, colliding, near and long texts, invalid UTF-8 (seeded)")
    func cache() {
        let cache = TextCache()
        var random = SeededRandom(seed: 7)
        // Texts the packing must tell apart: lengths differing only by trailing zero bytes, and the empty text.
        var texts: [[UInt8]] = [[], [0], [0, 0], [0x61], [0x61, 0], [0x61, 0, 0, 0, 0, 0, 0, 0, 0], Array(repeating: 0, count: 15)]
        // Many more texts than slots, so entries are replaced; each also with its last byte changed.
        for _ in 0..<3000 {
            let length = random.index(21)
            let text = (0..<length).map { _ in
                random.chance(0.1) ? UInt8(truncatingIfNeeded: random.next()) : UInt8(0x61 + random.index(4))
            }
            texts.append(text)
            if !text.isEmpty {
                var near = text
                near[near.count - 1] &+= 1
                texts.append(near)
            }
        }
        for round in 0..<3 {
            for (index, text) in texts.enumerated() {
                let offset = (index + round) % 8
                let (cached, made) = Self.withBytes(text, offset: offset) { (cache.string($0), String(decoding: $0, as: UTF8.self)) }
                #expect(cached == made && Array(cached.utf8) == Array(made.utf8), "\(text)")
            }
        }
    }

    @Test("a reader with a cache makes the same strings as one without")
    func readerText() {
        let cache = TextCache()
        let json = Array(#""shop","cn-east","shop","a-name-longer-than-fifteen-bytes","""#.utf8)
        let read = { (texts: TextCache?) -> [String] in
            json.withUnsafeBytes { bytes in
                var reader = CompactReader(bytes, texts: texts)
                var values: [String] = []
                repeat {
                    guard let value = reader.string() else { break }
                    values.append(reader.text(value))
                } while reader.take(UInt8(ascii: ","))
                return values
            }
        }
        let expected = ["shop", "cn-east", "shop", "a-name-longer-than-fifteen-bytes", ""]
        #expect(read(nil) == expected)
        #expect(read(cache) == expected)
        #expect(read(cache) == expected)
    }
}
