import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import Logging

/// With CURVE, which edge id each edge's key speaks for (from the keys folder's `edges/EDGE_ID.pub`): an
/// acknowledgement or a report from a key for another edge id is refused and logged, so that one edge's key cannot
/// make campaignd believe another edge applied a change, nor add counts in its name. A relay (relayd) checks the
/// keys of the edges and relays below it the same way.
public final class EdgeKeys: Sendable {
    private let edgeIds: [String: String]
    /// Which relay id each relay's key speaks for (`relays/RELAY_ID.pub`).
    private let relayIds: [String: String]
    private let logger: Logger
    /// The refusals logged so far (method, key and claimed id), so that an edge retrying every second logs each once.
    private let logged = RefusalLog()

    public init(edgeIds: [String: String], relayIds: [String: String] = [:], logger: Logger) {
        self.edgeIds = edgeIds
        self.relayIds = relayIds
        self.logger = logger
    }

    /// Throws ``APIError/edgeKeyMismatch`` unless `key` is listed for `edgeId`.
    public func check(_ key: String?, speaksFor edgeId: String, method: String) throws {
        let own = key.flatMap { edgeIds[$0] ?? relayIds[$0] }
        guard let own, own == edgeId else { throw refusal(key: key ?? "none", own: own, claimed: edgeId, method: method) }
    }

    /// Throws unless `key` may send what `edgeId` acknowledged or counted through the relays `via` (the nearest
    /// campaignd first): the edge's own key when `via` is empty, else the key of the relay `via` begins with.
    public func check(_ key: String?, speaksFor edgeId: String, via: [String]?, method: String) throws {
        guard let relay = via?.first else { return try check(key, speaksFor: edgeId, method: method) }
        let own = key.flatMap { relayIds[$0] }
        guard let own, own == relay else { throw refusal(key: key ?? "none", own: own, claimed: relay, method: method) }
    }

    private func refusal(key: String, own: String?, claimed: String, method: String) -> JSONRPCError {
        let first = logged.isFirst(method + " " + key + " " + claimed)
        if first {
            logger.warning("refused an edge's call for another edge id than its key's", metadata: [
                "method": "\(method)", "key": "\(key)", LogField.edgeId: "\(claimed)", "key_edge_id": "\(own ?? "none")",
            ])
        }
        return JSONRPCError(code: APIError.edgeKeyMismatch.code,
                            message: "the key \(key) speaks for edge \(own ?? "none"), not \(claimed)")
    }
}

extension EdgeKeys {
    /// Checks an acknowledgement's fields (`field` prefixes their names in errors) and, with CURVE (`keys`), that
    /// `key` speaks for it: what campaignd and relayd take on `edge.ack` and `edge.acks`.
    public static func validate(_ ack: EdgeAck, field: String, key: String?, keys: EdgeKeys?, method: String) throws {
        try EdgeID.validate(ack.edgeId, field: field + "edgeId")
        try Region.validate(ack.region, field: field + "region")
        try validate(via: ack.via, field: field)
        try keys?.check(key, speaksFor: ack.edgeId, via: ack.via, method: method)
    }

    /// Checks a report's sender (its edge id, region and relay path) and, with CURVE (`keys`), that `key` speaks for it: what
    /// campaignd and relayd take on `edge.report`.
    public static func validate(_ report: EdgeReport, key: String?, keys: EdgeKeys?, method: String) throws {
        try EdgeID.validate(report.edgeId, field: "edgeId")
        if let region = report.region { try Region.validate(region, field: "region") }
        try validate(via: report.via, field: "")
        try keys?.check(key, speaksFor: report.edgeId, via: report.via, method: method)
    }

    /// Checks a relay path: at most 16 relays, each id as ``EdgeID`` says.
    public static func validate(via: [String]?, field: String) throws {
        guard let via else { return }
        guard via.count <= 16 else { throw JSONRPCError.invalidParams(field: field + "via", "must list at most 16 relays") }
        guard via.allSatisfy(EdgeID.isValid) else {
            throw JSONRPCError.invalidParams(field: field + "via", "each relay id must be \(EdgeID.rule)")
        }
    }
}
