import JSONRPC

/// The text of a JSON-RPC request (with `id`) or notification (without): `jsonrpc`, `id`, `method`, then the params
/// written by `params` (left out when `nil`), in that order. The RPC client's calls and notifications and the update
/// stream's messages are all written here.
func jsonRPCText(id: Int?, method: String, reservingCapacity: Int = 256, params: ((inout JSONWriter) -> Void)?) -> [UInt8] {
    var writer = JSONWriter(reservingCapacity: reservingCapacity)
    writer.writeObject { object in
        object.field("jsonrpc", "2.0")
        if let id { object.field("id", id) }
        object.field("method", method)
        if let params { object.field("params", params) }
    }
    return writer.bytes
}
