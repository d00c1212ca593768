import JSONRPC

/// How both engines keep the relay path an edge acknowledged through (`via`): its JSON array, or NULL for an edge
/// that speaks to campaignd itself, so that `edge.list` names the path after a restart as before it.
enum RelayPathJSON {
    static func encode(_ via: [String]?) throws -> String? {
        guard let via, !via.isEmpty else { return nil }
        return String(decoding: try JSONValueEncoder().encodeJSON(via), as: UTF8.self)
    }

    static func decode(_ text: String?) throws -> [String]? {
        guard let text else { return nil }
        let via = try JSONValueDecoder().decode([String].self, fromJSON: Array(text.utf8))
        return via.isEmpty ? nil : via
    }
}
