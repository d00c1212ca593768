import Foundation
import LaunchAdTesting
import Testing

/// The harness's own way of starting children (in place of Foundation's `Process`, whose `run()` crashed test runs
/// now and then on Linux): what a child ends with, sees and is given, and that none is left behind.
@Suite("spawned processes", .timeLimit(.minutes(2)))
struct SpawnedProcessTests {
    /// The descriptors a shell has open, each checked after the glob (the folder it read to list them is closed).
    static let openDescriptors = #"for f in /proc/$$/fd/*; do [ -e "$f" ] && echo "${f##*/}"; done; true"#

    /// Whether `pid` is gone, reaped: a zombie still answers `kill(pid, 0)`.
    static func gone(_ pid: pid_t) -> Bool { kill(pid, 0) == -1 && errno == ESRCH }

    @Test("an exit status, a signal that ended the child and one sent to it are told apart; the child is reaped exactly once")
    func exitAndSignal() async throws {
        let exited = try SpawnedProcess("sh", ["-c", "exit 7"])
        #expect(exited.waitForExit() == .exited(7))
        #expect(exited.termination?.status == 7 && !exited.isRunning)
        // Reaped already: nothing is left for another waitpid, and asking again answers the same.
        #expect(waitpid(exited.pid, nil, WNOHANG) == -1 && errno == ECHILD)
        #expect(exited.waitForExit() == .exited(7))

        let killedItself = try SpawnedProcess("sh", ["-c", "kill -TERM $$"])
        #expect(killedItself.waitForExit() == .signaled(SIGTERM))
        #expect(await killedItself.exitStatus() == 128 + SIGTERM)

        let sleeper = try SpawnedProcess("sleep", ["600"])
        #expect(sleeper.isRunning && sleeper.termination == nil)
        #expect(await sleeper.exitStatus(timeout: .milliseconds(100)) == nil)
        sleeper.signal(SIGKILL)
        #expect(await sleeper.exitStatus() == 128 + SIGKILL)
        #expect(sleeper.termination == .signaled(SIGKILL))
        sleeper.signal(SIGKILL)  // after the reaping: sent nowhere, as the id may be another process's by now

        #expect(throws: SpawnedProcess.Failure.self) { try SpawnedProcess("/nonexistent/program", []) }
    }

    @Test("the child sees the parent's environment with the overrides laid over it")
    func environment() throws {
        let path = try #require(ProcessInfo.processInfo.environment["PATH"])
        let finished = try SpawnedProcess.run("sh", ["-c", #"printf '%s|%s|%s' "$LAUNCHAD_SPAWN_PROBE" "$HOME" "$PATH""#],
                                              environment: ["LAUNCHAD_SPAWN_PROBE": "a value = with spaces", "HOME": "/elsewhere"])
        #expect(finished.termination == .exited(0))
        #expect(finished.output == "a value = with spaces|/elsewhere|\(path)")
    }

    @Test("output and errors are captured apart, a megabyte of errors before any output included; ChildProcess's file has both")
    func output() async throws {
        // Errors first: read one pipe after the other, the child would block on a full error pipe for ever.
        let finished = try SpawnedProcess.run("sh", ["-c", "head -c 1048576 /dev/zero | tr '\\0' e >&2; head -c 300000 /dev/zero | tr '\\0' o"])
        #expect(finished.termination == .exited(0))
        #expect(finished.error.utf8.count == 1_048_576 && finished.error.allSatisfy { $0 == "e" })
        #expect(finished.output.utf8.count == 300_000 && finished.output.allSatisfy { $0 == "o" })

        let folder = try makeTemporaryDirectory("spawn-output")
        defer { removeTemporaryDirectory(folder) }
        let child = try ChildProcess(executable: URL(fileURLWithPath: "/bin/sh"), ["-c", "echo to-output; echo to-errors >&2; exit 3"],
                                     directory: folder)
        #expect(await child.exitStatus() == 3)
        #expect(child.terminationStatus == 3 && !child.isRunning)
        #expect(child.log == "to-output\nto-errors\n")
    }

    @Test("a child still running when its ChildProcess goes is killed and reaped, no zombie left")
    func outlivedChildKilled() throws {
        let folder = try makeTemporaryDirectory("spawn-outlived")
        defer { removeTemporaryDirectory(folder) }
        var pid: pid_t = 0
        do {
            let child = try ChildProcess(executable: URL(fileURLWithPath: "/bin/sleep"), ["600"], directory: folder)
            pid = child.pid
            #expect(child.isRunning && !Self.gone(pid))
        }
        #expect(Self.gone(pid), "\(pid) still there")
    }

    @Test("no descriptor of the parent reaches the child, and it starts with no signal blocked")
    func nothingInherited() async throws {
        // A descriptor opened without close-on-exec, as libraries in the test process do: a plain spawn would pass it on.
        let leaky = open("/dev/null", O_RDONLY)
        #expect(leaky > 2)
        defer { close(leaky) }
        let finished = try SpawnedProcess.run("sh", ["-c", Self.openDescriptors])
        #expect(finished.output.split(separator: "\n") == ["0", "1", "2"], "\(finished.output)")

        let folder = try makeTemporaryDirectory("spawn-descriptors")
        defer { removeTemporaryDirectory(folder) }
        let child = try ChildProcess(executable: URL(fileURLWithPath: "/bin/sh"), ["-c", Self.openDescriptors], directory: folder)
        #expect(await child.exitStatus() == 0)
        #expect(child.log.split(separator: "\n") == ["0", "1", "2"], "\(child.log)")

        // SIGUSR1 blocked on this thread while it spawns: the child would inherit the mask.
        var blocked = sigset_t(), previous = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGUSR1)
        pthread_sigmask(SIG_BLOCK, &blocked, &previous)
        // grep reads its own mask (a shell's would show what it blocks itself while it waits for a command).
        let masked = Result { try SpawnedProcess.run("grep", ["^SigBlk", "/proc/self/status"]) }
        pthread_sigmask(SIG_SETMASK, &previous, nil)
        let mask = try masked.get().output
        #expect(mask == "SigBlk:\t0000000000000000\n", "\(mask)")
    }

    @Test("200 children started from parallel tasks all end as they should, each reaped")
    func manyInParallel() async throws {
        let folder = try makeTemporaryDirectory("spawn-many")
        defer { removeTemporaryDirectory(folder) }
        let started = ContinuousClock.now
        let results = try await withThrowingTaskGroup(of: (index: Int, pid: pid_t, status: Int32?, output: String).self) { group in
            for index in 0..<200 {
                group.addTask {
                    let script = "echo \(index); exit \(index % 50)"
                    if index.isMultiple(of: 2) {
                        let finished = try SpawnedProcess.run("sh", ["-c", script])
                        return (index, 0, finished.termination.status, finished.output)
                    }
                    let child = try ChildProcess(executable: URL(fileURLWithPath: "/bin/sh"), ["-c", script], directory: folder)
                    let status = await child.exitStatus(timeout: .seconds(60))
                    return (index, child.pid, status, child.log)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let took = ContinuousClock.now - started
        #expect(results.count == 200)
        for result in results {
            #expect(result.status == Int32(result.index % 50) && result.output == "\(result.index)\n", "\(result)")
            if result.pid != 0 { #expect(Self.gone(result.pid)) }
        }
        print("200 spawns in parallel tasks: \(took)")
    }
}
