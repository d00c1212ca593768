import LaunchAdDomain

/// Why the store refused a write.
public enum StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    case notFound(Int64)
    case field(FieldError)
    case transition(TransitionError)

    public var description: String {
        switch self {
        case .notFound(let id): "no campaign \(id)"
        case .field(let error): error.description
        case .transition(let error): error.description
        }
    }
}
