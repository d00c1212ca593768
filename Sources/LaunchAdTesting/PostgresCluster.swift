import Foundation

/// A real PostgreSQL server for tests: Debian's `postgresql` binaries (`deploy/local/ensure-deps.sh` installs them),
/// a new cluster made by `initdb` in a temporary folder, started by `pg_ctl` on a free loopback port, and stopped and
/// removed when the scope ends. PostgreSQL refuses to run as root, so under root (as CI runs) every command runs as
/// the `postgres` user the package creates (or, where there is none, a system user `launchad-pg` made for it), and
/// the folder is handed to that user.
public final class PostgresCluster: Sendable {
    public let directory: URL
    public let port: Int
    /// The role tests connect as (trusted on loopback: no password).
    public let user = "launchad"
    private let binaries: URL

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    /// The cluster of the running suite, set by ``Trait/sharedPostgresCluster``.
    @TaskLocal public static var shared: PostgresCluster?

    init(directory: URL, port: Int, binaries: URL) {
        self.directory = directory
        self.port = port
        self.binaries = binaries
    }

    var dataDirectory: URL { directory.appendingPathComponent("data") }

    /// `postgres://launchad@127.0.0.1:PORT/NAME`.
    public func url(database: String) -> String { "postgres://\(user)@127.0.0.1:\(port)/\(database)" }

    /// Makes a new, empty database and answers its URL.
    public func makeDatabase(_ prefix: String = "campaigns") throws -> String {
        let name = "\(prefix)_\(UUID().uuidString.prefix(8).lowercased())"
        try run("createdb", ["-h", "127.0.0.1", "-p", "\(port)", "-U", user, name])
        return url(database: name)
    }

    /// Runs `sql` with `psql` in the database of `url` (one of ``makeDatabase(_:)``'s), stopping at the first error: a
    /// database shaped as an older campaignd left it, say.
    public func execute(_ sql: String, database url: String) throws {
        let name = String(url.split(separator: "/").last ?? "")
        try run("psql", ["-h", "127.0.0.1", "-p", "\(port)", "-U", user, "-d", name, "-v", "ON_ERROR_STOP=1", "-q", "-c", sql])
    }

    /// Starts the server (again, after ``stop(immediately:)``), waiting until it accepts connections. `fsync` is off:
    /// the tests stop the server, never the machine, so what it wrote is in the page cache either way.
    public func start() throws {
        try run("pg_ctl", ["-D", dataDirectory.path, "-l", directory.appendingPathComponent("server.log").path, "-w", "-t", "30",
                           "-o", "-p \(port) -k \(directory.path) -c listen_addresses=127.0.0.1 -c fsync=off", "start"])
    }

    /// Stops the server: `immediately` is a crash (no checkpoint; recovery on the next start), otherwise a fast stop.
    public func stop(immediately: Bool = false) throws {
        try run("pg_ctl", ["-D", dataDirectory.path, "-w", "-t", "30", "-m", immediately ? "immediate" : "fast", "stop"])
    }

    /// What the server logged.
    public var log: String { (try? String(contentsOf: directory.appendingPathComponent("server.log"), encoding: .utf8)) ?? "" }

    /// Runs one of PostgreSQL's programs, as the server's user when we are root; throws with its output when it fails.
    /// Its output goes to a file, not a pipe: the server `pg_ctl` starts keeps the descriptors it inherited open, so
    /// a pipe would not end with `pg_ctl`.
    func run(_ program: String, _ arguments: [String]) throws {
        let executable = program == "cp" ? "/bin/cp" : binaries.appendingPathComponent(program).path
        let command = getuid() == 0 ? ["/usr/sbin/runuser", "-u", try Self.serverUser().name, "--", executable] + arguments
                                    : [executable] + arguments
        let outputFile = directory.appendingPathComponent("\(program)-\(UUID().uuidString.prefix(8)).out")
        defer { try? FileManager.default.removeItem(at: outputFile) }
        let ended = try SpawnedProcess(command[0], Array(command.dropFirst()), output: .file(outputFile)).waitForExit()
        guard ended == .exited(0) else {
            let text = (try? String(contentsOf: outputFile, encoding: .utf8)) ?? ""
            throw Failure(description: "\(program) \(arguments.joined(separator: " ")) failed (\(ended)): \(text)")
        }
    }

    /// The newest installed PostgreSQL's programs: Debian's `/usr/lib/postgresql/N/bin`, else the folder of the
    /// `initdb` found on `PATH`.
    static func findBinaries() throws -> URL {
        let root = URL(fileURLWithPath: "/usr/lib/postgresql")
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []).compactMap(Int.init).sorted()
        if let newest = versions.last, FileManager.default.isExecutableFile(atPath: root.appendingPathComponent("\(newest)/bin/initdb").path) {
            return root.appendingPathComponent("\(newest)/bin")
        }
        for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let initdb = URL(fileURLWithPath: String(folder)).appendingPathComponent("initdb")
            if FileManager.default.isExecutableFile(atPath: initdb.path) {
                return initdb.resolvingSymlinksInPath().deletingLastPathComponent()
            }
        }
        throw Failure(description: "PostgreSQL is not installed (no initdb in /usr/lib/postgresql/N/bin or on PATH): run deploy/local/ensure-deps.sh")
    }

    /// Under root, the user PostgreSQL's programs run as: `postgres` (made by Debian's package), or else `launchad-pg`,
    /// a system user made here for the purpose.
    static func serverUser() throws -> (name: String, uid: uid_t, gid: gid_t) {
        for name in ["postgres", "launchad-pg"] {
            if let entry = getpwnam(name) { return (name, entry.pointee.pw_uid, entry.pointee.pw_gid) }
        }
        let made = try SpawnedProcess.run("/usr/sbin/useradd", ["--system", "--user-group", "--no-create-home", "--shell", "/usr/sbin/nologin",
                                                                "launchad-pg"])
        guard let entry = getpwnam("launchad-pg") else {
            throw Failure(description: "running as root, there is no postgres user to run PostgreSQL as, and useradd launchad-pg failed (\(made.termination)): \(made.error)")
        }
        return ("launchad-pg", entry.pointee.pw_uid, entry.pointee.pw_gid)
    }

    /// A cluster made once by `initdb` (slow: many seconds on a busy machine) and copied for each test, kept in the
    /// temporary folder for later runs; made under another name and renamed, so runs racing for it never see half.
    static func template(binaries: URL) throws -> URL {
        let template = URL(fileURLWithPath: "/tmp/launchad-pg-template-\(binaries.deletingLastPathComponent().lastPathComponent)")
        if FileManager.default.fileExists(atPath: template.appendingPathComponent("data/PG_VERSION").path) {
            return template.appendingPathComponent("data")
        }
        let making = URL(fileURLWithPath: "/tmp/launchad-pg-making-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: making, withIntermediateDirectories: true)
        defer { removeTemporaryDirectory(making) }
        try handToPostgres(making)
        let maker = PostgresCluster(directory: making, port: 0, binaries: binaries)
        try maker.run("initdb", ["-D", maker.dataDirectory.path, "-U", maker.user, "--auth=trust", "-E", "UTF8", "--no-sync"])
        if rename(making.path, template.path) != 0 && !FileManager.default.fileExists(atPath: template.path) {
            throw Failure(description: "cannot keep the template cluster at \(template.path): \(String(cString: strerror(errno)))")
        }
        return template.appendingPathComponent("data")
    }

    /// Under root, gives `directory` to the user that runs PostgreSQL's programs.
    static func handToPostgres(_ directory: URL) throws {
        guard getuid() == 0 else { return }
        let owner = try serverUser()
        guard chown(directory.path, owner.uid, owner.gid) == 0 else {
            throw Failure(description: "cannot hand \(directory.path) to \(owner.name)")
        }
    }

    /// A loopback TCP port nobody listens on now.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(fd, address, length) == 0 && getsockname(fd, address, &length) == 0
            }
        }
        guard bound else { throw Failure(description: "no free port: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// Runs `body` with a new, empty database: on the cluster the suite shares (``Trait/sharedPostgresCluster``) when
/// there is one, else on a cluster of its own, made for `body` and removed after. `body` gets the database's URL.
public func withPostgresDatabase<T>(_ body: (String, PostgresCluster) async throws -> T) async throws -> T {
    if let cluster = PostgresCluster.shared {
        return try await body(try cluster.makeDatabase(), cluster)
    }
    return try await withPostgresCluster { cluster in try await body(try cluster.makeDatabase(), cluster) }
}

/// Runs `body` with a new PostgreSQL cluster of its own, started on a free loopback port; stops and removes it after.
public func withPostgresCluster<T>(_ body: (PostgresCluster) async throws -> T) async throws -> T {
    let binaries = try PostgresCluster.findBinaries()
    let directory = URL(fileURLWithPath: "/tmp").appendingPathComponent("launchad-pg-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { removeTemporaryDirectory(directory) }
    try PostgresCluster.handToPostgres(directory)
    let port = try PostgresCluster.freePort()
    let cluster = PostgresCluster(directory: directory, port: port, binaries: binaries)
    try cluster.run("cp", ["-a", try PostgresCluster.template(binaries: binaries).path, cluster.dataDirectory.path])
    try cluster.start()
    do {
        let result = try await body(cluster)
        try? cluster.stop(immediately: true)
        return result
    } catch {
        try? cluster.stop(immediately: true)
        throw error
    }
}

