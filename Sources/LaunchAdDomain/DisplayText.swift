/// The rule for text that comes from outside and is shown to people (a campaign's name, an edge's id or region, a
/// test device's id), and the escaping of what breaks it for printing. Held in one place, so that campaignd,
/// relayd, deliveryd, adctl and the console refuse and escape the same characters.
///
/// Refused: control characters (C0, DEL, C1: a newline forges a table row, an escape sequence drives the reader's
/// terminal), line and paragraph separators, and the invisible characters that change the direction of the text
/// around them (bidirectional embeddings, overrides, isolates and marks: U+202E turns "exe.txt" into "txt.exe").
/// Text made only of spaces and invisible characters (zero-width, format characters, fillers) counts as empty.
/// Lengths are bounded in characters, as people count them, and in UTF-8 bytes, as memory and the wire do: one letter
/// with a million combining accents is one character and megabytes.
public enum DisplayText {
    /// Why `text` cannot be shown as it is, as the rule it breaks; `nil` when it may. The bytes are counted first, so
    /// a huge text is refused before anything walks it.
    public static func problem(in text: String, maxCharacters: Int, maxBytes: Int) -> String? {
        let bytes = text.utf8.count
        guard bytes <= maxBytes else { return "must be at most \(maxBytes) bytes of UTF-8 (it has \(bytes))" }
        var visible = false
        for scalar in text.unicodeScalars {
            if isControl(scalar) { return "must not contain control characters or line breaks (it has \(escape(scalar)))" }
            if isBidirectional(scalar) { return "must not contain bidirectional controls (it has \(escape(scalar)))" }
            if !visible { visible = isVisible(scalar) }
        }
        guard visible else { return "must not be empty (spaces and invisible characters alone do not count)" }
        guard text.count <= maxCharacters else { return "must be at most \(maxCharacters) characters" }
        return nil
    }

    /// Throws the rule `text` breaks as the error of `field`.
    public static func validate(_ text: String, field: String, maxCharacters: Int, maxBytes: Int) throws(FieldError) {
        if let rule = problem(in: text, maxCharacters: maxCharacters, maxBytes: maxBytes) { throw FieldError(field, rule) }
    }

    /// Whether `scalar` may never be shown raw: a control character, a line break or a bidirectional control.
    public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool { isControl(scalar) || isBidirectional(scalar) }

    /// `text` with every unsafe character written as a visible escape (`\u{1B}`), for a terminal or a log line:
    /// values stored before the rule, or sent by a peer that does not keep it, print safely too.
    public static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isUnsafe) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isUnsafe(scalar) { out.append(contentsOf: escape(scalar).unicodeScalars) } else { out.append(scalar) }
        }
        return String(out)
    }

    /// `\u{1B}`: the scalar's code in hexadecimal, as Swift writes it.
    public static func escape(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "\\u{" + (hex.count < 2 ? "0" + hex : hex) + "}"
    }

    /// C0, DEL and C1 (general category Cc), and the line and paragraph separators.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028 || scalar.value == 0x2029
    }

    /// Embeddings and overrides (U+202A to U+202E), isolates (U+2066 to U+2069) and the marks (U+200E, U+200F, and
    /// the Arabic letter mark U+061C): invisible, and each can reorder what is shown next to it.
    static func isBidirectional(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C: true
        default: false
        }
    }

    /// A letter, digit, punctuation mark or symbol that draws something: not a space, a combining mark on its own, a
    /// format character, a default-ignorable one (fillers, variation selectors) or the blank braille pattern.
    static func isVisible(_ scalar: Unicode.Scalar) -> Bool {
        let properties = scalar.properties
        guard !properties.isDefaultIgnorableCodePoint, scalar.value != 0x2800 else { return false }
        switch properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
             .decimalNumber, .letterNumber, .otherNumber,
             .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation, .initialPunctuation,
             .finalPunctuation, .otherPunctuation,
             .mathSymbol, .currencySymbol, .modifierSymbol, .otherSymbol:
            return true
        default:
            return false
        }
    }
}
