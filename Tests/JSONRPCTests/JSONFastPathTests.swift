import JSONRPC
import LaunchAdTesting
import SeededRandomness
import Testing

/// Params read both ways: through Codable and through the JSONReadable fast path.
struct Screen: Codable, Equatable, Sendable {
    var width: Int
    var height: Int
}

struct QueryParams: Codable, Equatable, Sendable, JSONReadable {
    var app: String
    var version: Int?
    var screen: Screen?
    var tags: [String]?

    init(app: String, version: Int? = nil, screen: Screen? = nil, tags: [String]? = nil) {
        self.app = app
        self.version = version
        self.screen = screen
        self.tags = tags
    }

    init(json: JSONReader) throws {
        let object = try json.object(fields: ["app", "version", "screen", "tags"])
        app = try object.require("app").string()
        version = try object.optional("version")?.int()
        if let screen = object.optional("screen") {
            let fields = try screen.object(fields: ["width", "height"])
            self.screen = Screen(width: try fields.require("width").int(), height: try fields.require("height").int())
        }
        tags = try object.optional("tags")?.array().map { try $0.string() }
    }

    /// The fields declared once, as coding keys: the `Codable` conformance's keys and the slots of the reading below.
    enum CodingKeys: Int, JSONFieldKey {
        case app, version, screen, tags
    }
    enum ScreenKeys: Int, JSONFieldKey {
        case width, height
    }
    static let fields = JSONFields(CodingKeys.self)
    static let screenFields = JSONFields(ScreenKeys.self)

    /// The same reading with members found by their keys (each the slot of its case) instead of by name, strings
    /// and integers read straight from the slot.
    init(bySlot json: JSONReader) throws {
        let object = try json.object(Self.fields)
        app = try object.string(.app)
        version = try object.optionalInt(.version)
        if let screen = object.optional(.screen) {
            let fields = try screen.object(Self.screenFields)
            self.screen = Screen(width: try fields.int(.width), height: try fields.require(.height).int())
        }
        tags = try object.optional(.tags)?.array().map { try $0.string() }
    }
}

@Suite("JSON fast paths", .timeLimit(.minutes(1)))
struct JSONFastPathTests {
    static let interesting: [Unicode.Scalar] = ["a", "Z", "0", " ", "\"", "\\", "/", "\u{0}", "\u{1}", "\u{1F}", "\u{7F}",
                                                "\u{80}", "é", "中", "😀", "\n", "\t", "\u{2028}"]

    @Test("strings of every kind survive writing and parsing (randomized, seeded)")
    func stringRoundTrip() throws {
        var random = SeededRandom(seed: 42)
        for _ in 0..<2000 {
            let length = Int.random(in: 0...40, using: &random)
            var scalars = String.UnicodeScalarView()
            for _ in 0..<length { scalars.append(Self.interesting.randomElement(using: &random)!) }
            let string = String(scalars)
            var writer = JSONWriter()
            writer.write(string: string)
            let parsed = try JSONParser.parse(writer.bytes)
            #expect(parsed == .string(string))
            // Control characters never appear raw in the output.
            #expect(!writer.bytes.contains { $0 < 0x20 })
            // Two strings written as one literal are the literal of the joined string.
            let cut = Int.random(in: 0...string.unicodeScalars.count, using: &random)
            let scalarsArray = Array(string.unicodeScalars)
            let first = String(String.UnicodeScalarView(scalarsArray[..<cut])), second = String(String.UnicodeScalarView(scalarsArray[cut...]))
            var joined = JSONWriter()
            joined.write(string: first, second)
            #expect(joined.bytes == writer.bytes)
        }
    }

    @Test("object keys with escapes are compared by meaning for duplicates")
    func escapedDuplicates() {
        for text in [#"{"a":1,"\u0061":2}"#, #"{"\u0061":1,"a":2}"#, #"{"x":0,"ab":1,"b":2,"a\u0062":3}"#] {
            #expect(throws: JSONParseError.self, "\(text)") { try JSONParser.parse(text) }
        }
        #expect(throws: Never.self) { try JSONParser.parse(#"{"a":1,"b":2,"ab":3,"ba":4,"\u0063":5}"#) }
    }

    @Test("the fast reader accepts what Codable accepts, with the same values")
    func readerMatchesCodable() throws {
        let inputs = [
            #"{"app":"shop"}"#,
            #"{"app":"shop","version":3,"screen":{"width":1179,"height":2556},"tags":["a","b"]}"#,
            #"{"tags":[],"screen":{"height":2,"width":1},"app":"x\u00e9","version":null}"#,
            #"{"app":"","version":-7,"screen":{"width":0,"height":123456789012345678}}"#,
            #"{"app":"a","version":1e2,"screen":{"width":10.0,"height":2}}"#,
        ]
        let decoder = JSONValueDecoder()
        for input in inputs {
            let viaCodable = try decoder.decode(QueryParams.self, fromJSON: Array(input.utf8))
            let viaReader = try decoder.decode(FastOnly.self, fromJSON: Array(input.utf8)).params
            let viaSlots = try decoder.decode(FastBySlot.self, fromJSON: Array(input.utf8)).params
            #expect(viaCodable == viaReader, "\(input)")
            #expect(viaCodable == viaSlots, "\(input)")
        }
    }

    @Test("the fast reader refuses what Codable refuses, naming the same field", arguments: [
        (#"{"version":3}"#, "app"),
        (#"{"app":1}"#, "app"),
        (#"{"app":"a","screen":{"width":"w","height":1}}"#, "screen.width"),
        (#"{"app":"a","screen":{"width":1}}"#, "screen.height"),
        (#"{"app":"a","screen":{"width":1,"height":2,"depth":3}}"#, "screen.depth"),
        (#"{"app":"a","tags":["x",2]}"#, "tags[1]"),
        (#"{"app":"a","extra":true}"#, "extra"),
        (#"{"app":"a","version":1.5}"#, "version"),
        (#"{"app":"a","version":"1"}"#, "version"),
        (#"{"app":"a","version":12345678901234567890}"#, "version"),
        (#"{"app":"a","screen":{"width":null,"height":1}}"#, "screen.width"),
        (#"{"app":null}"#, "app"),
        (#"[1]"#, ""),
    ])
    func readerErrorsMatchCodable(_ input: String, _ field: String) throws {
        let decoder = JSONValueDecoder()
        var codableError: DecodingError?
        var readerError: DecodingError?
        var slotError: DecodingError?
        do { _ = try decoder.decode(QueryParams.self, fromJSON: Array(input.utf8)) } catch let error as DecodingError { codableError = error }
        do { _ = try decoder.decode(FastOnly.self, fromJSON: Array(input.utf8)) } catch let error as DecodingError { readerError = error }
        do { _ = try decoder.decode(FastBySlot.self, fromJSON: Array(input.utf8)) } catch let error as DecodingError { slotError = error }
        #expect(codableError?.fieldPath == field)
        #expect(readerError?.fieldPath == field)
        #expect(slotError?.fieldPath == field)
        #expect(codableError?.reason == readerError?.reason)
        #expect(codableError?.reason == slotError?.reason)
    }

    /// Goes through JSONReadable when decoded by JSONReader.decode, never through QueryParams' Codable.
    struct FastOnly: Decodable, JSONReadable {
        let params: QueryParams
        init(from decoder: any Decoder) throws { fatalError("the fast path must be used") }
        init(json: JSONReader) throws { params = try QueryParams(json: json) }
    }

    /// The same, reading members by slot.
    struct FastBySlot: Decodable, JSONReadable {
        let params: QueryParams
        init(from decoder: any Decoder) throws { fatalError("the fast path must be used") }
        init(json: JSONReader) throws { params = try QueryParams(bySlot: json) }
    }

    struct Nested: Codable, Equatable {
        struct Inner: Codable, Equatable {
            var name: String
            var values: [Double]
            var flag: Bool?
        }
        var id: Int
        var inner: Inner
        var list: [Inner]
        var empty: [Int]
        var map: [String: Int]
        var nothing: String?
    }

    @Test("the streaming encoder writes nested values, arrays of objects and maps, and leaves nil out")
    func streamingEncoder() throws {
        let value = Nested(id: -7, inner: .init(name: "a\"b", values: [1.5, -2, 1e-7], flag: true),
                           list: [.init(name: "x", values: [], flag: nil), .init(name: "y", values: [3], flag: false)],
                           empty: [], map: ["k": 1], nothing: nil)
        let bytes = try JSONValueEncoder().encodeJSON(value)
        let parsed = try JSONParser.parse(bytes)
        #expect(parsed["nothing"] == nil)
        #expect(parsed["list"]?.arrayValue?.count == 2)
        #expect(parsed["list"]?.arrayValue?.first?["flag"] == nil)
        #expect(try JSONValueDecoder().decode(Nested.self, fromJSON: bytes) == value)
    }

    struct Empty: Codable {}

    struct OutOfOrder: Encodable {
        func encode(to encoder: any Encoder) throws {
            var outer = encoder.container(keyedBy: PathKey.self)
            var inner = outer.nestedContainer(keyedBy: PathKey.self, forKey: PathKey(stringValue: "a"))
            try outer.encode(1, forKey: PathKey(stringValue: "b"))
            try inner.encode(2, forKey: PathKey(stringValue: "c"))  // the nested container was already closed
        }
    }

    @Test("the streaming encoder writes {} for an empty type and refuses containers filled out of order")
    func encoderEdges() throws {
        #expect(try JSONValueEncoder().encode(Empty()) == [:])
        #expect(try JSONValueEncoder().encode([Empty(), Empty()]) == [[:], [:]])
        #expect(throws: EncodingError.self) { try JSONValueEncoder().encodeJSON(OutOfOrder()) }
    }

    struct Answer: Encodable, JSONWritable {
        var ok: Bool
        var id: Int
        var url: String
        var note: String?
        func write(json: inout JSONWriter) {
            json.writeObject { object in
                object.field("ok", ok)
                object.field("id", id)
                object.field("url", url)
                object.field("note", ifPresent: note)
            }
        }
    }

    @Test("a JSONWritable writes what its Encodable conformance writes")
    func writableMatchesEncodable() throws {
        for answer in [Answer(ok: true, id: -12, url: "http://x/\"q\"", note: nil), Answer(ok: false, id: 0, url: "", note: "é\n")] {
            var writer = JSONWriter()
            answer.write(json: &writer)
            #expect(try JSONParser.parse(writer.bytes) == JSONValueEncoder().encode(answer))
        }
    }

    @Test("integers are written exactly, at the extremes too")
    func integers() throws {
        for value in [0, 9, 10, -1, -10, 1234567890, Int.max, Int.min] {
            var writer = JSONWriter()
            writer.write(int: value)
            #expect(String(decoding: writer.bytes, as: UTF8.self) == String(value))
        }
    }
}
