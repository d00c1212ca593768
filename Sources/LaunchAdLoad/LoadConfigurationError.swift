/// A configuration that cannot run, with the flag at fault.
public enum LoadConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalid(String, String)

    public var description: String {
        switch self {
        case let .invalid(flag, reason): "\(flag): \(reason)"
        }
    }
}
