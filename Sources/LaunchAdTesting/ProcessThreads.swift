import Foundation
import Testing

/// A thread of a running process, as /proc shows it.
public struct ProcessThread: Sendable, CustomStringConvertible {
    public let tid: Int
    /// Its name (at most 15 bytes: what `pthread_setname_np` set, or the program's name).
    public let name: String
    public let nice: Int

    public var description: String { "\(name) (\(tid)) at nice \(nice)" }

    /// The threads of process `pid` (`"self"`: this one), from /proc/PID/task/TID/stat; empty once it has exited.
    public static func list(_ pid: String = "self") -> [ProcessThread] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.compactMap { task in
            guard let tid = Int(task),
                  let stat = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/stat", encoding: .utf8),
                  let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")") else { return nil }
            // After the name: the state, then 15 more fields; the 19th field of the line is the nice value.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 16, let nice = Int(fields[16]) else { return nil }
            return ProcessThread(tid: tid, name: String(stat[stat.index(after: open)..<close]), nice: nice)
        }
    }

    /// Whether a thread of this process, or of a child it starts (the same user, capabilities and limits), may lower
    /// its nice to `target`: root, `CAP_SYS_NICE` or an `RLIMIT_NICE` that reaches it. Tried on a thread of its own,
    /// put at 19 first (always allowed) so that going to `target` is a lowering; the thread ends after.
    public static func mayLowerNice(to target: Int) async -> Bool {
        (try? await onThread { () -> Bool in
            let which = __priority_which_t(PRIO_PROCESS.rawValue)
            return setpriority(which, 0, 19) == 0 && setpriority(which, 0, Int32(target)) == 0
        }) ?? false
    }
}

extension ProcessThread {
    /// Says in the test's output, as a warning (which fails nothing), that a test of a raised priority checked only
    /// its fallback: where the process may not lower a nice (not root, no `CAP_SYS_NICE`, no `RLIMIT_NICE` that
    /// reaches it) a thread can only keep the process's nice, so a run there does not show that the raise works.
    public static func noteFallbackOnly(_ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        Issue.record("only the fallback was checked: this process may not lower a thread's nice, so \(what)",
                     severity: .warning, sourceLocation: sourceLocation)
    }
}
