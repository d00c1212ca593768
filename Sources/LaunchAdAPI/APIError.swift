import JSONRPC
import LaunchAdDomain

/// Application error codes (-32000 to -32099), the same on every socket.
public enum APIError {
    public static let campaignNotFound = RPCErrorInfo(code: -32001, message: "no such campaign", name: "CampaignNotFound")
    public static let invalidTransition = RPCErrorInfo(code: -32002, message: "the campaign's state does not allow this operation",
                                                       name: "InvalidTransition")
    public static let creativeRefused = RPCErrorInfo(code: -32003, message: "the creative was refused (type, size or content)",
                                                     name: "CreativeRefused")
    public static let creativeNotFound = RPCErrorInfo(code: -32004, message: "no such creative", name: "CreativeNotFound")
    public static let changesUnavailable = RPCErrorInfo(code: -32005, message: "those changes are no longer kept (or the epoch differs): take a snapshot",
                                                        name: "ChangesUnavailable")

    public static let busy = RPCErrorInfo(code: -32006, message: "the server holds too many large replies that its peers have not read yet: retry later",
                                          name: "Busy")

    public static let edgeKeyMismatch = RPCErrorInfo(code: -32007, message: "this CURVE key does not speak for that edge id: campaignd's keys folder lists it as edges/EDGE_ID.pub for another edge",
                                                     name: "EdgeKeyMismatch")

    public static let sealRefused = RPCErrorInfo(code: -32008, message: "with CURVE, an acknowledgement or report is taken only sealed by its own edge's key (campaignd's edges/EDGE_ID.pub), an acknowledgement once and near campaignd's clock: data.field names mac or sentAt",
                                                 name: "SealRefused")

    public static let backupUnavailable = RPCErrorInfo(code: -32010, message: "no such backup: it was never made, or it is gone (kept for a while after its last read), or this campaignd's database is not SQLite",
                                                       name: "BackupUnavailable")

    public static let notAnswered = RPCErrorInfo(code: -32011, message: "the campaign is not answered to this device: launch.why explains only a campaign the edge's decision answers the device (the one it chose, another of the same tier its rotation or draw takes turns with, or one held back by the device's own cap); data.field names id",
                                                 name: "NotAnswered")

    /// Every application error code.
    public static let all = [campaignNotFound, invalidTransition, creativeRefused, creativeNotFound, changesUnavailable, busy, edgeKeyMismatch,
                             sealRefused, backupUnavailable, notAnswered]
}

extension ReplyBudget {
    /// A budget of `limit` bytes of large replies (64 KiB and more) held for a socket's peers, whose calls past it are
    /// answered ``APIError/busy``: what keeps a peer that asks and never reads from growing a server's memory.
    public static func busy(limit: Int) -> ReplyBudget {
        ReplyBudget(limit: limit, error: JSONRPCError(code: APIError.busy.code, message: APIError.busy.message))
    }
}
