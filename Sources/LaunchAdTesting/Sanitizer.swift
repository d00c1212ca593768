import Foundation

/// The sanitizer the tests run under, if any: `deploy/local/sanitize.sh` names it in `LAUNCHAD_SANITIZER`, and the
/// services the tests start are built with it too.
///
/// A sanitizer run looks for races and memory errors, not for speed: every instrumented access costs several times
/// its plain cost. Tests whose bounds are about time (a deadline, a latency, a client's timeout) widen them by
/// ``slowdown`` so that a sanitizer run fails for what the sanitizer finds, not for the time it takes. Plain runs keep
/// the bounds as written.
public enum Sanitizer: String, Sendable {
    case address
    case thread

    /// The sanitizer of this run, or nil for a plain run.
    public static let current: Sanitizer? = ProcessInfo.processInfo.environment["LAUNCHAD_SANITIZER"].flatMap(Sanitizer.init(rawValue:))

    /// How many times slower this run is taken to be: 1 plain, 3 under AddressSanitizer, 5 under ThreadSanitizer
    /// (what the suites' own timings show on this project's code).
    public static var slowdown: Int {
        switch current {
        case nil: 1
        case .address: 3
        case .thread: 5
        }
    }

    /// `bound`, widened by ``slowdown``.
    public static func scaled(_ bound: Duration) -> Duration {
        bound * slowdown
    }
}
