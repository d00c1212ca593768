import Foundation
import Locking

/// A program started with `posix_spawn` and waited for with `waitpid`: how the test harness starts every child.
///
/// Not Foundation's `Process`: on Linux its `run()` lists /proc/self/fd by copying each entry's whole 256-byte name,
/// past the end of glibc's buffer when an entry sits at its end, and now and then that crashes the whole test run
/// (swift-corelibs-foundation #5472, fixed after the toolchain this project builds with).
///
/// The child gets the parent's environment with `environment` laid over it, standard input from /dev/null, no
/// descriptor of the parent beyond 0, 1 and 2, no signal blocked and every signal at its default (as a shell starts
/// a program: the test process's own handling does not leak into what is tested). It is reaped exactly once, by
/// whichever of ``isRunning``, ``termination``, ``exitStatus(timeout:)`` or ``waitForExit()`` first sees it gone;
/// one still running when the last reference goes is killed and reaped, so no test leaves a zombie or an orphan.
public final class SpawnedProcess: Sendable {
    /// Where the child's standard output and error go.
    public enum Output: Sendable {
        /// Both to /dev/null.
        case discarded
        /// Both to this file, made or emptied first.
        case file(URL)
    }

    /// How a child ended.
    public enum Termination: Sendable, Equatable, CustomStringConvertible {
        /// It exited with this status.
        case exited(Int32)
        /// A signal ended it.
        case signaled(Int32)

        /// What a shell's `$?` says: the exit status, or 128 plus the signal's number.
        public var status: Int32 {
            switch self {
            case .exited(let status): status
            case .signaled(let signal): 128 + signal
            }
        }

        public var description: String {
            switch self {
            case .exited(let status): "exit status \(status)"
            case .signaled(let signal): "signal \(signal)"
            }
        }
    }

    /// A program that could not be started.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// What a program run to its end with ``run(_:_:environment:)`` printed.
    public struct Finished: Sendable {
        public let termination: Termination
        public let output: String
        public let error: String
    }

    /// The child's process id.
    public let pid: pid_t
    /// `nil` until the child has been reaped. The lock is held from the check to the `kill` of ``signal(_:)``, so a
    /// signal never reaches another process given the id after the reaping.
    private let ended = Locked<Termination?>(nil)

    /// Starts `executable` (a path, or a name looked up on the test process's `PATH`) with `arguments`; its output goes to `output`.
    public convenience init(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
                            output: Output = .discarded) throws {
        var redirections = [Redirection.open(0, "/dev/null", O_RDONLY)]
        switch output {
        case .discarded: redirections.append(.open(1, "/dev/null", O_WRONLY))
        case .file(let url): redirections.append(.open(1, url.path, O_WRONLY | O_CREAT | O_TRUNC))
        }
        redirections.append(.duplicate(1, as: 2))
        try self.init(executable, arguments, environment: environment, redirections: redirections)
    }

    /// What the child's descriptors 0, 1 and 2 are made of, done in the child between the fork and the exec.
    enum Redirection {
        case open(Int32, String, Int32)
        case duplicate(Int32, as: Int32)
    }

    init(_ executable: String, _ arguments: [String], environment: [String: String], redirections: [Redirection]) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for redirection in redirections {
            switch redirection {
            case .open(let descriptor, let path, let flags): posix_spawn_file_actions_addopen(&actions, descriptor, path, flags, 0o644)
            case .duplicate(let descriptor, let target): posix_spawn_file_actions_adddup2(&actions, descriptor, target)
            }
        }
        // Without this the child would inherit every descriptor of the test process not opened close-on-exec (a
        // listening socket of a service run in process, a pipe of another child), holding them open past their end.
        guard let closeFrom = Self.addCloseFrom else {
            throw Failure(description: "cannot start \(executable): glibc 2.34 or later is needed (posix_spawn_file_actions_addclosefrom_np)")
        }
        let closing = closeFrom(&actions, 3)
        guard closing == 0 else { throw Failure(description: "cannot start \(executable): \(String(cString: strerror(closing)))") }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // The threads of Swift's concurrency pool block most signals (SIGTERM, SIGINT and SIGHUP among them): a child
        // would inherit the mask of the one that started it, and take a test's SIGTERM only if it unblocked it itself.
        var signals = sigset_t()
        sigemptyset(&signals)
        posix_spawnattr_setsigmask(&attributes, &signals)
        sigfillset(&signals)
        posix_spawnattr_setsigdefault(&attributes, &signals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        var merged = ProcessInfo.processInfo.environment
        merged.merge(environment) { _, override in override }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid = pid_t()
        // glibc's posix_spawn returns once the child has run its exec (or failed to): a file it opens exists by then.
        let spawned = executable.contains("/") ? posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
                                               : posix_spawnp(&pid, executable, &actions, &attributes, argv, envp)
        guard spawned == 0 else { throw Failure(description: "cannot start \(executable): \(String(cString: strerror(spawned)))") }
        self.pid = pid
    }

    deinit {
        if termination == nil {
            kill(pid, SIGKILL)
            waitForExit()
        }
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), found at run time: Swift's Glibc module is
    /// imported without `_GNU_SOURCE`, which its declaration is behind.
    private static let addCloseFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32)? = {
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32).self)
    }()

    /// How the child ended, or `nil` while it runs (a stopped child runs); reaps it the first time it is seen gone.
    public var termination: Termination? {
        ended.withLock { ended in
            if let ended { return ended }
            var status: Int32 = 0
            var reaped = waitpid(pid, &status, WNOHANG)
            while reaped == -1 && errno == EINTR { reaped = waitpid(pid, &status, WNOHANG) }
            switch reaped {
            case 0: return nil
            // Reaped by someone else (a waitpid(-1) elsewhere in the process): gone, how is unknown.
            case -1: ended = .exited(-1)
            // The low 7 bits are the signal that ended it, 0 when it exited; its exit status is the byte above.
            default: ended = status & 0x7f == 0 ? .exited((status >> 8) & 0xff) : .signaled(status & 0x7f)
            }
            return ended
        }
    }

    /// Whether the child has not ended yet.
    public var isRunning: Bool { termination == nil }

    /// Sends `number` to the child, unless it has been reaped.
    public func signal(_ number: Int32) {
        ended.withLock { ended in
            if ended == nil { kill(pid, number) }
        }
    }

    /// Blocks the calling thread until the child ends; how it ended.
    @discardableResult
    public func waitForExit() -> Termination {
        while true {
            if let termination { return termination }
            // Waits for the end without reaping it (WNOWAIT), outside the lock: reaping stays with `termination`.
            var info = siginfo_t()
            _ = waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT)
        }
    }

    /// Waits, polling, for the child to end: ``Termination/status``, or `nil` if it still runs after `timeout`.
    public func exitStatus(timeout: Duration = .seconds(10)) async -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let termination { return termination.status }
            if ContinuousClock.now >= deadline { return nil }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Runs a program to its end, blocking the calling thread; what it printed on standard output and error.
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws -> Finished {
        let output = try PipeEnds(), error = try PipeEnds()
        defer { output.close(); error.close() }
        let process = try SpawnedProcess(executable, arguments, environment: environment, redirections: [
            .open(0, "/dev/null", O_RDONLY), .duplicate(output.writing, as: 1), .duplicate(error.writing, as: 2),
        ])
        output.closeWriting()
        error.closeWriting()
        let (printed, errors) = drain(output.reading, error.reading)
        return Finished(termination: process.waitForExit(), output: String(decoding: printed, as: UTF8.self),
                        error: String(decoding: errors, as: UTF8.self))
    }

    /// Reads two descriptors to their ends together: a child that fills one pipe while the other is read waits for
    /// nobody.
    private static func drain(_ first: Int32, _ second: Int32) -> ([UInt8], [UInt8]) {
        var read: [[UInt8]] = [[], []]
        var open = [first, second]
        var buffer = [UInt8](repeating: 0, count: 65536)
        while open.contains(where: { $0 >= 0 }) {
            var polled = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            if poll(&polled, nfds_t(polled.count), -1) < 0 {
                if errno == EINTR { continue }
                break
            }
            for index in polled.indices where polled[index].fd >= 0 && polled[index].revents != 0 {
                let count = Glibc.read(polled[index].fd, &buffer, buffer.count)
                if count > 0 {
                    read[index].append(contentsOf: buffer[..<count])
                } else if count == 0 || errno != EINTR {
                    open[index] = -1
                }
            }
        }
        return (read[0], read[1])
    }

    /// A pipe whose two ends are close-on-exec in this process (the child gets its end through a duplicate).
    private final class PipeEnds {
        private(set) var reading: Int32 = -1
        private(set) var writing: Int32 = -1

        init() throws {
            var ends: [Int32] = [-1, -1]
            guard Glibc.pipe(&ends) == 0 else { throw Failure(description: "cannot make a pipe: \(String(cString: strerror(errno)))") }
            (reading, writing) = (ends[0], ends[1])
            // Not atomic (Glibc hides pipe2 behind _GNU_SOURCE): a child spawned meanwhile here closes it anyway.
            _ = fcntl(reading, F_SETFD, FD_CLOEXEC)
            _ = fcntl(writing, F_SETFD, FD_CLOEXEC)
        }

        func closeWriting() {
            if writing >= 0 { Glibc.close(writing) }
            writing = -1
        }

        func close() {
            closeWriting()
            if reading >= 0 { Glibc.close(reading) }
            reading = -1
        }
    }
}
