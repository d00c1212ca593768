import JSONRPC
import LaunchAdDomain

/// Every campaign at one sequence number: what an edge starts from. Or one page of it: the campaigns after some id,
/// read at `seq`, with `next` set when more follow.
public struct Snapshot: Sendable, Codable, Hashable {
    public var epoch: String
    public var seq: Int64
    public var campaigns: [Campaign]
    /// On a page that more campaigns follow: the id to ask for the next page after (the last id of this one).
    public var next: Int64?

    public init(epoch: String, seq: Int64, campaigns: [Campaign], next: Int64? = nil) {
        self.epoch = epoch
        self.seq = seq
        self.campaigns = campaigns
        self.next = next
    }
}

/// Written directly, as its `Codable` conformance writes it: campaignd and relays answer snapshot pages of up to
/// 10,000 campaigns.
extension Snapshot: JSONWritable {
    public func write(json: inout JSONWriter) {
        json.writeObject { object in
            object.field("epoch", epoch)
            object.field("seq", Int(seq))
            object.field("campaigns") { $0.writeArray(campaigns) { $1.write(json: &$0) } }
            object.field("next", ifPresent: next.map { Int($0) })
        }
    }
}

extension Snapshot: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object([
            "epoch": .string("The database's random id; a new database is a new epoch.", minLength: 1),
            "seq": .integer("The sequence number of the last change the snapshot holds (0 before any).", minimum: 0),
            "campaigns": .array(of: .of(Campaign.self), "Every campaign, deleted ones included (as tombstones), in order of id; or a page of them."),
            "next": .integer("Only on a page that more campaigns follow: the id to ask for the next page after.", minimum: 1),
        ], required: ["epoch", "seq", "campaigns"], description: "Every campaign at one sequence number, or one page of them.")
    }
}
