import Foundation

/// Where campaignd keeps its data, from `--database` (`CAMPAIGND_DATABASE`): absent or `sqlite` for the embedded
/// SQLite file in the data folder, or `postgres://USER[:PASS]@HOST[:PORT]/DB` for a PostgreSQL database that several
/// campaignd may share.
public enum DatabaseURL: Sendable, Hashable, CustomStringConvertible {
    case sqlite
    case postgres(PostgresLocation)

    /// A PostgreSQL server and database, and who to sign in as.
    public struct PostgresLocation: Sendable, Hashable {
        public var host: String
        public var port: Int
        public var user: String
        public var password: String?
        public var database: String

        public init(host: String, port: Int = 5432, user: String, password: String? = nil, database: String) {
            self.host = host
            self.port = port
            self.user = user
            self.password = password
            self.database = database
        }
    }

    /// Why a database URL was refused.
    public struct Invalid: Error, Sendable, Hashable, CustomStringConvertible {
        public let text: String
        public let reason: String
        public var description: String {
            "--database \(DatabaseURL.redacted(text)): \(reason) (expected sqlite or postgres://USER[:PASS]@HOST:PORT/DB)"
        }
    }

    /// Reads the flag's text; `nil` or empty is SQLite.
    public init(parsing text: String?) throws(Invalid) {
        guard let text, !text.isEmpty, text != "sqlite" else {
            self = .sqlite
            return
        }
        func invalid(_ reason: String) -> Invalid { Invalid(text: text, reason: reason) }
        guard let components = URLComponents(string: text), let scheme = components.scheme else {
            throw invalid("not a URL")
        }
        guard scheme == "postgres" || scheme == "postgresql" else { throw invalid("unknown scheme \(scheme)") }
        guard let host = components.host, !host.isEmpty else { throw invalid("no host") }
        guard let user = components.user, !user.isEmpty else { throw invalid("no user") }
        let port = components.port ?? 5432
        guard (1...65535).contains(port) else { throw invalid("port \(port) out of range") }
        var path = components.path
        if path.hasPrefix("/") { path.removeFirst() }
        guard !path.isEmpty, !path.contains("/") else { throw invalid("no database name") }
        guard components.query == nil, components.fragment == nil else { throw invalid("options after the database are not supported") }
        self = .postgres(PostgresLocation(host: host, port: port, user: user.removingPercentEncoding ?? user,
                                          password: components.password.map { $0.removingPercentEncoding ?? $0 },
                                          database: path.removingPercentEncoding ?? path))
    }

    /// The URL with its password hidden, for logs and errors.
    public var description: String {
        switch self {
        case .sqlite: "sqlite"
        case .postgres(let location):
            "postgres://\(location.user)\(location.password == nil ? "" : ":***")@\(location.host):\(location.port)/\(location.database)"
        }
    }

    static func redacted(_ text: String) -> String {
        guard var components = URLComponents(string: text), components.password != nil else { return text }
        components.password = "***"
        return components.string ?? "(unreadable)"
    }
}
