import JSONRPC
import LaunchAdDomain

// The JSON Schemas of what the store hands out, for the OpenRPC documents.

extension Change: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object([
            "seq": .integer("The change's sequence number: the next after the one before, without gaps.", minimum: 1),
            "op": CampaignOperation.jsonSchema,
            "id": .integer("The campaign's id.", minimum: 1),
            "campaign": .of(Campaign.self).described("The campaign after the change."),
            "at": Timestamp.jsonSchema.described("When it was committed."),
            "actor": .string("Who made it: an operator's CURVE public key (Z85), local, or scheduler."),
        ], required: ["seq", "op", "id", "campaign", "at", "actor"], description: "One committed change.")
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

extension CreativeInfo: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object([
            "sha256": .sha256("The creative's name: the sha256 of its bytes."),
            "size": .integer("Bytes.", minimum: 1),
            "contentType": .oneOf(CreativeInspector.contentTypes.sorted(), "Read from the bytes' magic numbers."),
            "width": .integer("Pixels, read from the file's header.", minimum: 1, maximum: 16_384),
            "height": .integer("Pixels, read from the file's header.", minimum: 1, maximum: 16_384),
        ], required: ["sha256", "size", "contentType", "width", "height"], description: "A stored creative.")
    }
}

extension CampaignStats: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object([
            "id": .integer("The campaign's id.", minimum: 1),
            "impressions": .integer(minimum: 0),
            "clicks": .integer(minimum: 0),
            "skips": .integer(minimum: 0),
        ], required: ["id", "impressions", "clicks", "skips"], description: "Events counted for one campaign.")
    }
}
