import Foundation

/// The console's users, read from `--console-users`: one `name:token` a line (blank lines and lines starting with `#`
/// are skipped). A name is letters, digits, `.`, `_` or `-`; a token is at least 16 visible ASCII characters.
public struct ConsoleUsers: Sendable {
    /// The shortest token accepted: shorter ones are too easy to guess.
    public static let minimumTokenLength = 16

    private let entries: [(name: String, token: [UInt8])]

    /// The user names, in file order.
    public var names: [String] { entries.map(\.name) }

    /// Users given directly (tests); each is checked as a line of the file would be.
    public init(_ users: [(name: String, token: String)]) throws(ConsoleUsersError) {
        try self.init(text: users.map { "\($0.name):\($0.token)" }.joined(separator: "\n"), source: "users")
    }

    /// Reads and checks the file at `path`.
    public init(contentsOf path: String) throws(ConsoleUsersError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConsoleUsersError("console users file \(path) cannot be read")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ConsoleUsersError("console users file \(path) is not UTF-8 text")
        }
        try self.init(text: text, source: path)
    }

    /// Parses `text`; errors name `source` and the line.
    public init(text: String, source: String) throws(ConsoleUsersError) {
        var entries: [(name: String, token: [UInt8])] = []
        // A Character, "\r\n" is one newline, as "\n" is.
        for (number, line) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            let place = "\(source) line \(number + 1)"
            guard let colon = line.firstIndex(of: ":") else {
                throw ConsoleUsersError("\(place): expected name:token")
            }
            let name = String(line[..<colon])
            let token = String(line[line.index(after: colon)...])
            guard !name.isEmpty, name.utf8.count <= 64,
                  name.unicodeScalars.allSatisfy({ $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "._-".unicodeScalars.contains($0)) }) else {
                throw ConsoleUsersError("\(place): the name must be 1 to 64 letters, digits, '.', '_' or '-'")
            }
            guard token.utf8.count >= Self.minimumTokenLength, token.utf8.count <= 512,
                  token.utf8.allSatisfy({ (0x21...0x7e).contains($0) }) else {
                throw ConsoleUsersError("\(place): the token of \(name) must be \(Self.minimumTokenLength) to 512 visible ASCII characters, without spaces")
            }
            guard !entries.contains(where: { $0.name == name }) else {
                throw ConsoleUsersError("\(place): \(name) is listed twice")
            }
            entries.append((name, Array(token.utf8)))
        }
        guard !entries.isEmpty else { throw ConsoleUsersError("\(source) lists no user (expected name:token lines)") }
        self.entries = entries
    }

    /// The user whose token `token` is, comparing with every user's token in constant time (no early exit, so the
    /// time taken says nothing about how much of a token matched, nor which user it was).
    public func user(token: String) -> String? {
        let given = Array(token.utf8)
        var found: String?
        for entry in entries where ConstantTime.equals(entry.token, given) {
            found = entry.name
        }
        return found
    }
}

/// A console users file that cannot be used, with the reason.
public struct ConsoleUsersError: Error, CustomStringConvertible, Sendable {
    public let description: String
    init(_ description: String) { self.description = description }
}
