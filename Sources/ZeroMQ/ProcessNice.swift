import Foundation

/// The CPU priority (nice value) the process was started with, for the threads it makes itself.
///
/// Linux keeps a nice value per thread, and a new thread takes its creator's. libdispatch sets the nice of each of
/// its worker threads from the queue's quality of service, whatever the process's was, so a thread made from a Swift
/// task would run at the nice of its quality of service (0 for most), not at the one `nice`, `renice` on the process
/// or systemd's `Nice=` gave it. The main thread keeps the process's: its thread id is the process id.
public enum ProcessNice {
    /// The main thread's nice value; 0 if it cannot be read.
    public static let value: Int32 = {
        errno = 0
        let nice = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(getpid()))
        return errno == 0 ? nice : 0
    }()

    /// Sets the calling thread's nice to the process's. Raising a thread's nice is always allowed; lowering it (a
    /// process at -10, a thread made from a task at 0) takes `CAP_SYS_NICE` or an `RLIMIT_NICE` that allows it, and
    /// without either the thread keeps its own.
    public static func applyToCurrentThread() {
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, value)
    }

    /// Puts the calling thread `steps` nice values below the process's (ahead of its other threads for the CPU), at
    /// -20 at most. Lowering a nice takes `CAP_SYS_NICE` or an `RLIMIT_NICE` that reaches the new value (systemd's
    /// `LimitNICE=`); without them the thread keeps its nice and this returns false.
    @discardableResult
    public static func raiseCurrentThread(by steps: Int32) -> Bool {
        setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, max(-20, value - steps)) == 0
    }

    /// The calling thread's nice value.
    public static var currentThread: Int32 {
        getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
    }
}
