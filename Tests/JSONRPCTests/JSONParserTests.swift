import JSONRPC
import Testing

@Suite("JSON parser and writer", .timeLimit(.minutes(1)))
struct JSONParserTests {
    @Test("parses every JSON type")
    func parsesTypes() throws {
        let value = try JSONParser.parse(#" {"a": [1, -2.5e3, true, false, null], "b": {"c": "d\n\u00e9\ud83d\ude00"}, "e": 0} "#)
        #expect(value["a"] == [1, .number(JSONNumber(text: "-2.5e3")!), true, false, nil])
        #expect(value["b"]?["c"] == .string("d\né😀"))
        #expect(value["e"]?.intValue == 0)
    }

    @Test("keeps number literals exactly", arguments: ["1", "-0", "1.50", "12345678901234567890123", "1E+2", "0.000001"])
    func keepsNumbers(_ literal: String) throws {
        let value = try JSONParser.parse(literal)
        guard case .number(let number) = value else {
            Issue.record("not a number")
            return
        }
        #expect(number.text == literal)
        #expect(value.jsonText == literal)
    }

    @Test("refuses what RFC 8259 refuses", arguments: [
        "", " ", "{", "[1,]", "{\"a\":1,}", "01", "1.", ".5", "-", "+1", "1e", "tru", "nul", "\"abc", "'a'",
        "{a:1}", "[1 2]", "\"\\x\"", "\"\t\"", "1 2", "NaN", "Infinity", "{\"a\" 1}", "\"\\ud800\"", "\"\\udc00x\"",
    ])
    func refusesInvalid(_ text: String) {
        #expect(throws: JSONParseError.self) { try JSONParser.parse(text) }
    }

    @Test("refuses invalid UTF-8 inside strings")
    func refusesInvalidUTF8() {
        let cases: [[UInt8]] = [
            [0x22, 0xFF, 0x22],  // "\xFF"
            [0x22, 0xC3, 0x22],  // truncated sequence
            [0x22, 0xED, 0xA0, 0x80, 0x22],  // encoded surrogate
            [0x22, 0xC0, 0xAF, 0x22],  // overlong
        ]
        for bytes in cases {
            #expect {
                try JSONParser.parse(bytes)
            } throws: { error in
                (error as? JSONParseError)?.reason == .invalidUTF8
            }
        }
        #expect(throws: JSONParseError.self) { try JSONParser.parse([0xFF]) }
    }

    @Test("refuses nesting beyond the limit without exhausting the stack")
    func refusesDeepNesting() throws {
        let deep = String(repeating: "[", count: 100_000)
        #expect {
            try JSONParser.parse(deep)
        } throws: { error in
            (error as? JSONParseError)?.reason == .tooDeep(limit: JSONParser.defaultMaxDepth)
        }
        let ok = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        _ = try JSONParser.parse(ok)
        let tooDeep = String(repeating: "{\"a\":", count: 65) + "1" + String(repeating: "}", count: 65)
        #expect(throws: JSONParseError.self) { try JSONParser.parse(tooDeep) }
    }

    @Test("refuses duplicate keys, also in large objects")
    func refusesDuplicateKeys() {
        #expect(throws: JSONParseError.self) { try JSONParser.parse(#"{"a":1,"a":2}"#) }
        // Compared one by one below 32 members, hashed from there on: a key repeated in either part, or across them.
        for count in [20, 31, 40] {
            let many = (0..<count).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
            #expect(throws: JSONParseError.self) { try JSONParser.parse("{\(many),\"k3\":0}") }
            #expect(throws: JSONParseError.self) { try JSONParser.parse("{\(many),\"k\(count - 1)\":0}") }
            #expect(throws: Never.self) { try JSONParser.parse("{\(many)}") }
        }
    }

    @Test("writes what it parses")
    func roundTrips() throws {
        let text = #"{"s":"q\"b\\s\/c\u0001\t","n":[1,2.5,-3e-7],"o":{},"a":[],"t":true,"z":null}"#
        let value = try JSONParser.parse(text)
        let again = try JSONParser.parse(value.jsonBytes)
        #expect(again == value)
        #expect(value["s"]?.stringValue == "q\"b\\s/c\u{01}\t")
        #expect(value.jsonText.contains(#"\u0001"#))
    }

    @Test("objects compare without regard to member order")
    func objectEquality() throws {
        #expect(try JSONParser.parse(#"{"a":1,"b":[2]}"#) == JSONParser.parse(#"{"b":[2],"a":1}"#))
        #expect(try JSONParser.parse(#"{"a":1}"#) != JSONParser.parse(#"{"a":2}"#))
        #expect(try JSONParser.parse("1.0") == JSONParser.parse("1"))
    }
}

@Suite("Codable over JSON values", .timeLimit(.minutes(1)))
struct JSONCodableTests {
    struct Screen: Codable, Equatable { var width: Int; var height: Int }
    struct Query: Codable, Equatable {
        var app: String
        var screen: Screen?
        var cached: [String]?
        var ratio: Double?
        var flag: Bool?
    }

    @Test("round-trips a nested value and leaves out nil optionals")
    func roundTrip() throws {
        let query = Query(app: "shop", screen: Screen(width: 1179, height: 2556), cached: ["a", "b"], ratio: 0.5, flag: nil)
        let value = try JSONValueEncoder().encode(query)
        #expect(value["flag"] == nil)
        #expect(value["screen"]?["width"] == 1179)
        #expect(try JSONValueDecoder().decode(Query.self, from: value) == query)
    }

    @Test("names the field of a type mismatch")
    func namesField() throws {
        let value = try JSONParser.parse(#"{"app":"shop","screen":{"width":"wide","height":1}}"#)
        do {
            _ = try JSONValueDecoder().decode(Query.self, from: value)
            Issue.record("decoded")
        } catch let error as DecodingError {
            #expect(error.fieldPath == "screen.width")
            #expect(error.reason == "expected an integer, got string")
        }
    }

    @Test("names a missing field")
    func namesMissingField() throws {
        do {
            _ = try JSONValueDecoder().decode(Query.self, from: ["screen": ["width": 1, "height": 2]])
            Issue.record("decoded")
        } catch let error as DecodingError {
            #expect(error.fieldPath == "app")
            #expect(error.reason == "is required")
        }
    }

    @Test("refuses unknown fields when strict, ignores them otherwise")
    func unknownFields() throws {
        let value: JSONValue = ["app": "shop", "scren": ["width": 1, "height": 2]]
        do {
            _ = try JSONValueDecoder().decode(Query.self, from: value)
            Issue.record("decoded")
        } catch let error as DecodingError {
            #expect(error.fieldPath == "scren")
            #expect(error.reason == "is not a known field")
        }
        #expect(try JSONValueDecoder(rejectUnknownKeys: false).decode(Query.self, from: value).app == "shop")
    }

    @Test("integers must be exact and in range; strings are never numbers")
    func strictNumbers() throws {
        #expect(throws: DecodingError.self) { try JSONValueDecoder().decode(Int.self, from: .number(JSONNumber(text: "1.5")!)) }
        #expect(throws: DecodingError.self) { try JSONValueDecoder().decode(Int8.self, from: 300) }
        #expect(throws: DecodingError.self) { try JSONValueDecoder().decode(Int.self, from: .number(JSONNumber(text: "1e400")!)) }
        #expect(throws: DecodingError.self) { try JSONValueDecoder().decode(Int.self, from: "1") }
        #expect(throws: DecodingError.self) { try JSONValueDecoder().decode(Double.self, from: "1") }
        #expect(try JSONValueDecoder().decode(Int.self, from: .number(JSONNumber(text: "1e3")!)) == 1000)
    }

    @Test("refuses to encode numbers JSON cannot express")
    func nonFinite() {
        #expect(throws: EncodingError.self) { try JSONValueEncoder().encode([Double.nan]) }
        #expect(throws: EncodingError.self) { try JSONValueEncoder().encode(["x": Double.infinity]) }
    }
}
