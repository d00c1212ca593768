import Foundation

/// The console's users, read from `--console-users`: one `name:token` a line (blank lines and lines starting with `#`
/// are skipped). A name is letters, digits, `.`, `_` or `-`; a token is 32 to 512 visible ASCII characters that are
/// not trivially guessed (``tokenWeakness(_:)``), such as `openssl rand -hex 24` writes.
public struct ConsoleUsers: Sendable {
    /// The shortest token accepted: 32 random hex digits are 128 bits; shorter ones are too easy to guess.
    public static let minimumTokenLength = 32
    /// The fewest different characters a token may have: 32 random hex digits have fewer than 8 once in 30 million.
    public static let minimumDistinctCharacters = 8

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
            guard Self.isValidName(name) else {
                throw ConsoleUsersError("\(place): the name must be 1 to 64 letters, digits, '.', '_' or '-'")
            }
            guard token.utf8.count >= Self.minimumTokenLength, token.utf8.count <= 512,
                  token.utf8.allSatisfy({ (0x21...0x7e).contains($0) }) else {
                throw ConsoleUsersError("\(place): the token of \(name) must be \(Self.minimumTokenLength) to 512 visible ASCII characters, without spaces")
            }
            if let weakness = Self.tokenWeakness(Array(token.utf8)) {
                throw ConsoleUsersError("\(place): the token of \(name) is too easy to guess: \(weakness) (make one with openssl rand -hex 24)")
            }
            guard !entries.contains(where: { $0.name == name }) else {
                throw ConsoleUsersError("\(place): \(name) is listed twice")
            }
            // A bearer token names its user, and the change log its actor: one token, one user.
            if let other = entries.first(where: { $0.token == Array(token.utf8) }) {
                throw ConsoleUsersError("\(place): the token of \(name) is \(other.name)'s too: give each user a token of their own")
            }
            entries.append((name, Array(token.utf8)))
        }
        guard !entries.isEmpty else { throw ConsoleUsersError("\(source) lists no user (expected name:token lines)") }
        self.entries = entries
    }

    /// Whether `name` is a user name as the file has them: 1 to 64 ASCII letters, digits, `.`, `_` or `-` (so that it
    /// prints and logs as it is).
    public static func isValidName(_ name: some StringProtocol) -> Bool {
        !name.isEmpty && name.utf8.count <= 64
            && name.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2E || $0 == 0x5F || $0 == 0x2D }
    }

    /// Why a token of visible ASCII is guessed far sooner than its length says, or `nil`: too few different
    /// characters (`aaaa…`, `abab…`), a shorter pattern repeated (`password1password1…`), or a run of neighbours
    /// (`abcdef…`, `98765…`) in more than half its steps.
    public static func tokenWeakness(_ token: [UInt8]) -> String? {
        let distinct = Set(token).count
        if distinct < minimumDistinctCharacters {
            return "it uses \(distinct) different character\(distinct == 1 ? "" : "s"), fewer than \(minimumDistinctCharacters)"
        }
        // The shortest period: the least p with token[i] == token[i - p] for every i; a repeat when it fits twice.
        if let period = (1...(token.count / 2)).first(where: { p in (p..<token.count).allSatisfy { token[$0] == token[$0 - p] } }) {
            return "it repeats a pattern of \(period) characters"
        }
        let steps = zip(token, token.dropFirst()).filter { abs(Int($0) - Int($1)) == 1 }.count
        if steps * 2 > token.count - 1 {
            return "\(steps) of its \(token.count - 1) steps go to the next or previous character"
        }
        return nil
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

    /// `name` when `token` is that user's token (compared in constant time, as ``user(token:)`` does).
    public func user(name: String, token: String) -> String? {
        let given = Array(token.utf8)
        var found: String?
        for entry in entries where ConstantTime.equals(entry.token, given) && entry.name == name {
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
