import JSONRPC
import LaunchAdAPI
import LaunchAdRuntime
import Locking
import Logging

/// With CURVE, which edge id each edge's key speaks for (from the keys folder's `edges/EDGE_ID.pub`): an
/// acknowledgement or a report from a key for another edge id is refused and logged, so that one edge's key cannot
/// make campaignd believe another edge applied a change, nor add counts in its name.
final class EdgeKeys: Sendable {
    private let edgeIds: [String: String]
    private let logger: Logger
    /// The refusals logged so far (method, key and claimed id), so that an edge retrying every second logs each once.
    private let logged = Locked<Set<String>>([])
    /// The most refusals remembered as logged; past it every refusal is logged.
    private static let loggedLimit = 1000

    init(edgeIds: [String: String], logger: Logger) {
        self.edgeIds = edgeIds
        self.logger = logger
    }

    /// Throws ``APIError/edgeKeyMismatch`` unless `key` is listed for `edgeId`.
    func check(_ key: String?, speaksFor edgeId: String, method: String) throws {
        let own = key.flatMap { edgeIds[$0] }
        guard let own, own == edgeId else { throw refusal(key: key ?? "none", own: own, claimed: edgeId, method: method) }
    }

    private func refusal(key: String, own: String?, claimed: String, method: String) -> JSONRPCError {
        let first = logged.withLock { logged in
            guard logged.count < Self.loggedLimit else { return true }
            return logged.insert(method + " " + key + " " + claimed).inserted
        }
        if first {
            logger.warning("refused an edge's call for another edge id than its key's", metadata: [
                "method": "\(method)", "key": "\(key)", LogField.edgeId: "\(claimed)", "key_edge_id": "\(own ?? "none")",
            ])
        }
        return JSONRPCError(code: APIError.edgeKeyMismatch.code,
                            message: "the key \(key) speaks for edge \(own ?? "none"), not \(claimed)")
    }
}
