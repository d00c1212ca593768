import Foundation

/// A real PostgreSQL server for tests: Debian's `postgresql` binaries (`deploy/local/ensure-deps.sh` installs them),
/// a new cluster made by `initdb` in a temporary folder, started by `pg_ctl` on a free loopback port, and stopped and
/// removed when the scope ends. PostgreSQL refuses to run as root, so under root (as CI runs) every command runs as
/// the `postgres` user the package creates, and the folder is handed to it.
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

    /// Runs one of PostgreSQL's programs, as `postgres` when we are root; throws with its output when it fails.
    func run(_ program: String, _ arguments: [String]) throws {
        let process = Process()
        let executable = program == "cp" ? "/bin/cp" : binaries.appendingPathComponent(program).path
        if getuid() == 0 {
            process.executableURL = URL(fileURLWithPath: "/usr/sbin/runuser")
            process.arguments = ["-u", "postgres", "--", executable] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(description: "\(program) \(arguments.joined(separator: " ")) failed (\(process.terminationStatus)): \(text)")
        }
    }

    /// The newest installed PostgreSQL's programs.
    static func findBinaries() throws -> URL {
        let root = URL(fileURLWithPath: "/usr/lib/postgresql")
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []).compactMap(Int.init).sorted()
        guard let newest = versions.last else {
            throw Failure(description: "PostgreSQL is not installed (no /usr/lib/postgresql/N/bin): run deploy/local/ensure-deps.sh")
        }
        return root.appendingPathComponent("\(newest)/bin")
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

    /// Under root, gives `directory` to the `postgres` user, which runs PostgreSQL's programs.
    static func handToPostgres(_ directory: URL) throws {
        guard getuid() == 0 else { return }
        guard let owner = getpwnam("postgres") else {
            throw Failure(description: "running as root and there is no postgres user to run PostgreSQL as")
        }
        guard chown(directory.path, owner.pointee.pw_uid, owner.pointee.pw_gid) == 0 else {
            throw Failure(description: "cannot hand \(directory.path) to postgres")
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

