import LaunchAdDomain

/// Why the store refused a write.
public enum StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    case notFound(Int64)
    case field(FieldError)
    case transition(TransitionError)
    /// The campaign breaks rules of its app's market.
    case market(MarketRefusal)

    public var description: String {
        switch self {
        case .notFound(let id): "no campaign \(id)"
        case .field(let error): error.description
        case .transition(let error): error.description
        case .market(let refusal): refusal.description
        }
    }
}
