import LaunchAdDomain
import Testing

@Suite("Display text: what may be shown to people, and its escaping", .timeLimit(.minutes(1)))
struct DisplayTextTests {
    func problem(_ text: String) -> String? { DisplayText.problem(in: text, maxCharacters: 20, maxBytes: 40) }

    @Test("Controls, line breaks and bidirectional controls are refused by name; invisible-only text is empty; bytes and characters are both bounded")
    func rule() {
        for scalar: Unicode.Scalar in ["\u{0}", "\t", "\n", "\r", "\u{1B}", "\u{7F}", "\u{80}", "\u{9B}", "\u{9F}", "\u{2028}", "\u{2029}"] {
            #expect(problem("a\(scalar)b") == "must not contain control characters or line breaks (it has \(DisplayText.escape(scalar)))")
        }
        for value in [0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069, 0x200E, 0x200F, 0x061C] {
            let scalar = Unicode.Scalar(UInt32(value))!
            #expect(problem("a\(scalar)b") == "must not contain bidirectional controls (it has \(DisplayText.escape(scalar)))")
        }
        let empty = "must not be empty (spaces and invisible characters alone do not count)"
        for text in ["", "   ", "\u{200B}", "\u{FEFF}\u{2060}", "\u{00A0}\u{3000}", "\u{3164}\u{115F}", "\u{2800}", "\u{0301}\u{0301}", "\u{FE0F}", "\u{E0041}"] {
            #expect(problem(text) == empty, "\(text.unicodeScalars.map(\.value))")
        }
        #expect(problem("e" + String(repeating: "\u{0301}", count: 30)) == "must be at most 40 bytes of UTF-8 (it has 61)")
        #expect(problem(String(repeating: "x", count: 21)) == "must be at most 20 characters")
        for fine in ["Double 12", "双十二", "👨‍👩‍👧", "é", "a\u{200B}b", "עברית 12", "x: 5% off!", String(repeating: "x", count: 20)] {
            #expect(problem(fine) == nil, "\(fine)")
        }
        #expect(throws: FieldError("name", empty)) { try DisplayText.validate("\u{200D}", field: "name", maxCharacters: 5, maxBytes: 5) }
    }

    @Test("Escaping shows exactly the refused characters as \\u{...} and leaves everything else as it is")
    func escaping() {
        #expect(DisplayText.escaped("Sale\n\u{1B}[2J\u{202E}gpj.exe\u{0}") == #"Sale\u{0A}\u{1B}[2J\u{202E}gpj.exe\u{00}"#)
        #expect(DisplayText.escaped("双十二 👨‍👩‍👧 a\u{200B}b \\u{41}") == "双十二 👨‍👩‍👧 a\u{200B}b \\u{41}")
        #expect(DisplayText.escaped("\u{85}\u{2029}\u{7F}") == #"\u{85}\u{2029}\u{7F}"#)
    }
}
