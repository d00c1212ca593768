import JSONRPC

/// The rule for an edge's or a relay's id, wherever one comes in: deliveryd's `--edge-id`, relayd's `--relay-id`, the
/// names of the key files (`edges/EDGE_ID.pub`, `relays/RELAY_ID.pub`), acknowledgements, reports and relay paths.
/// Operators read ids in `adctl edges` and the console, so an id is display text (``DisplayText``).
public enum EdgeID {
    public static let maxBytes = 128
    /// What an error says the id must be.
    public static let rule = "1 to \(maxBytes) bytes, with a visible character and no control characters or bidirectional controls"

    public static func isValid(_ id: String) -> Bool {
        DisplayText.problem(in: id, maxCharacters: maxBytes, maxBytes: maxBytes) == nil
    }

    /// Checks an id given in `field` of a call's params.
    public static func validate(_ id: String, field: String) throws(JSONRPCError) {
        guard isValid(id) else { throw JSONRPCError.invalidParams(field: field, "must be \(rule)") }
    }
}
