public enum PropagationError: Error, CustomStringConvertible {
    case admin(String)
    case edge(String, String)
    case timedOut(String, [String])

    public var description: String {
        switch self {
        case let .admin(reason): "campaignd: \(reason)"
        case let .edge(endpoint, reason): "edge \(endpoint): \(reason)"
        case let .timedOut(step, edges): "\(step): no change seen within the timeout on \(edges.joined(separator: ", "))"
        }
    }
}
