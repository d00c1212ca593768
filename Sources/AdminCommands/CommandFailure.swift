/// Why a command failed, in the one line an operator reads (`adctl: ` goes before it); the exit status is 1.
///
/// Commands throw it instead of exiting, so that clients are closed on the way out and tests can read the reason.
struct CommandFailure: Error, Equatable, CustomStringConvertible {
    var reason: String

    init(_ reason: String) { self.reason = reason }

    var description: String { reason }
}
