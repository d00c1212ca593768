import CampaignStore
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain

/// Domain and store errors in their JSON-RPC form (the mapping lives here, at the boundary).
extension StoreError: JSONRPCErrorConvertible {
    public var jsonRPCError: JSONRPCError {
        switch self {
        case .notFound(let id):
            JSONRPCError(code: APIError.campaignNotFound.code, message: "no campaign \(id)", data: ["id": .number(JSONNumber(id))])
        case .field(let error):
            .invalidParams(field: error.field, error.rule)
        case .transition(let error):
            JSONRPCError(code: APIError.invalidTransition.code, message: error.description,
                         data: ["state": .string(error.state.rawValue), "operation": .string(error.operation.rawValue)])
        case .market(let refusal):
            refusal.jsonRPCError
        }
    }
}

extension CreativeInspector.Refusal: JSONRPCErrorConvertible {
    public var jsonRPCError: JSONRPCError {
        JSONRPCError(code: APIError.creativeRefused.code, message: "creative refused: \(description)")
    }
}

extension BackupUnsupported: JSONRPCErrorConvertible {
    public var jsonRPCError: JSONRPCError {
        JSONRPCError(code: APIError.backupUnavailable.code, message: description)
    }
}

/// PostgreSQL away or too slow: an internal error that says so (the details, with the database's address, go to the
/// log, not to the caller).
extension DatabaseUnavailable: JSONRPCErrorConvertible {
    public var jsonRPCError: JSONRPCError {
        JSONRPCError(code: JSONRPCError.internalErrorCode,
                     message: "Internal error: the campaign store (PostgreSQL) cannot be reached or did not answer in time; campaignd reconnects by itself, so retry shortly")
    }
}

extension MarketRefusal: JSONRPCErrorConvertible {
    /// -32602 like every other field campaignd refuses: `data.field` and `data.reason` the first broken rule's field
    /// and rule (as a client reading any refusal finds them), the message "Invalid params: FIELD: REASON" followed by
    /// any other broken rule, `data.market` and `data.app` the market and its app, `data.breaches` every broken rule
    /// with its source.
    public var jsonRPCError: JSONRPCError {
        let breaches: [JSONValue] = breaches.map { breach in
            .object(["field": .string(breach.field), "market": .string(breach.market.rawValue), "rule": .string(breach.rule),
                     "source": .string(breach.source)])
        }
        guard let first = self.breaches.first else { return .invalidParams(field: nil, description) }
        let reason = "\(first.rule) in the \(market.rawValue) market, where the app \(app) is (\(first.source))"
        let others = self.breaches.dropFirst().map { "; \($0.field) \($0.rule) (\($0.source))" }.joined()
        return JSONRPCError(code: JSONRPCError.invalidParamsCode, message: "Invalid params: \(first.field): \(reason)\(others)",
                            data: ["field": .string(first.field), "reason": .string(reason), "market": .string(market.rawValue),
                                   "app": .string(app), "breaches": .array(breaches)])
    }
}
