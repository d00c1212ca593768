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

    @Test("a short ASCII text made in place is the string String(decoding:) makes, every length, every ASCII byte; others are not")
    func inlineASCII() {
        var random = SeededRandom(seed: 5)
        for length in 0...TextCache.longest {
            for round in 0..<64 {
                // Every ASCII byte somewhere (NUL and controls too: they are ASCII), at every offset.
                let text = (0..<length).map { UInt8(($0 * 17 + round * 7 + random.index(128)) % 128) }
                for offset in 0..<8 {
                    let (inline, made) = Self.withBytes(text, offset: offset) { (TextCache.inlineASCII($0), String(decoding: $0, as: UTF8.self)) }
                    #expect(inline == made, "\(text) at \(offset)")
                    #expect(inline.map { Array($0.utf8) } == text && inline?.utf8.count == length && inline?.isEmpty == (length == 0))
                    // The same string as the library's own: equal, hashed alike, and joined and compared as text.
                    #expect(inline?.hashValue == made.hashValue && inline.map { $0 + "!" } == made + "!" && inline.map { $0 < made + "\u{0}" } == true)
                }
            }
            guard length > 0 else { continue }
            // A byte of 0x80 or more anywhere: not plain ASCII, left to decoding.
            for index in 0..<length {
                var text = [UInt8](repeating: 0x61, count: length)
                text[index] = 0x80 | UInt8(random.index(128))
                #expect(Self.withBytes(text, offset: index % 8) { TextCache.inlineASCII($0) } == nil)
            }
        }
        // Longer texts are not made in place.
        let long = [UInt8](repeating: 0x61, count: TextCache.longest + 1)
        #expect(long.withUnsafeBytes { TextCache.inlineASCII($0) } == nil)
    }

    @Test("every byte of a cached text counts: a text with any one byte changed is not taken for it, every length")
    func everyByteCounts() {
        let cache = TextCache()
        for length in 1...TextCache.longest {
            let text = (0..<length).map { UInt8(0x61 + $0) }
            for index in 0..<length {
                var changed = text
                changed[index] ^= 0x20
                for offset in 0..<8 {
                    _ = Self.withBytes(text, offset: offset) { cache.string($0) }
                    let read = Self.withBytes(changed, offset: offset) { cache.string($0) }
                    #expect(Array(read.utf8) == changed, "length \(length), byte \(index), offset \(offset)")
                }
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

    @Test("calls read through one scratch, its cache hit and replaced, are answered as the general way answers them")
    func throughOneScratch() {
        struct Params: Codable, Sendable { var app: String; var region: String? }
        let compactReads = CompactCallTests.Counter()
        var table = MethodTable()
        table.register(RPCMethod<Params, String>("echo", summary: "The params back."), reading: { json in
            try json.decode(Params.self)
        }, checking: { $0 }, compact: { reader in
            guard reader.take(UInt8(ascii: "{")), let key = reader.key(), CompactReader.equals(key, "app"), let app = reader.string()
            else { return nil }
            var region: String?
            if reader.take(UInt8(ascii: ",")) {
                guard let key = reader.key(), CompactReader.equals(key, "region"), let text = reader.string() else { return nil }
                region = reader.text(text)
            }
            guard reader.take(UInt8(ascii: "}")) else { return nil }
            compactReads.add()
            return Params(app: reader.text(app), region: region)
        }, writing: { params, _, json in
            json.write(string: params.app + "|" + (params.region ?? "-"))
        })
        let info = OpenRPCInfo(title: "texts", version: "1")
        let compact = JSONRPCDispatcher(methods: table, info: info), general = JSONRPCDispatcher(methods: table, info: info, compactCalls: false)
        let scratch = JSONRPCDispatcher.Scratch()
        var random = SeededRandom(seed: 11)
        // Few apps and regions (the cache hits), and many more of them than its slots (it replaces), some too long.
        let apps = (0..<600).map { "app\($0 % 37 == 0 ? String(repeating: "x", count: 20) : "")\($0)" }
        let regions = ["cn-east", "cn-north", "eu-west", "us"] + (0..<300).map { "r\($0)" }
        for id in 0..<20_000 {
            let app = random.chance(0.8) ? apps[random.index(4)] : apps[random.index(apps.count)]
            let region = random.chance(0.3) ? nil : random.chance(0.8) ? regions[random.index(4)] : regions[random.index(regions.count)]
            let params = region.map { #"{"app":"\#(app)","region":"\#($0)"}"# } ?? #"{"app":"\#(app)"}"#
            let message = Array(#"{"jsonrpc":"2.0","id":\#(id),"method":"echo","params":\#(params)}"#.utf8)
            let fast = message.withUnsafeBytes { bytes -> [UInt8]? in
                if case .reply(let writer) = compact.dispatch(bytes, context: RPCContext(), scratch: scratch) { return writer.bytes }
                return nil
            }
            let slow = message.withUnsafeBytes { bytes -> [UInt8]? in
                if case .reply(let writer) = general.dispatch(bytes, context: RPCContext()) { return writer.bytes }
                return nil
            }
            #expect(fast != nil && fast == slow, "\(String(decoding: message, as: UTF8.self))")
            #expect(fast.map { String(decoding: $0, as: UTF8.self).contains("\"\(app)|\(region ?? "-")\"") } == true)
            if fast == nil || fast != slow { return }
        }
        #expect(compactReads.count == 20_000)  // every call took the compact way
    }
}
