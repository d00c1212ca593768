import JSONRPC
import LaunchAdDomain

/// `change.list` params: one campaign's changes or every campaign's, a page at a time in `seq` order.
public struct ChangeListParams: Codable, Sendable {
    /// One campaign's changes (default: every campaign's).
    public var id: Int64?
    /// The changes after this `seq` (default 0: from the first); the previous page's `next`.
    public var after: Int64?
    /// The most changes on the page (default ``defaultLimit``, at most ``maxLimit``).
    public var limit: Int?

    public static let defaultLimit = 100
    public static let maxLimit = 1000

    public init(id: Int64? = nil, after: Int64? = nil, limit: Int? = nil) {
        self.id = id
        self.after = after
        self.limit = limit
    }
}

/// One change of the log as operators read it: who, what, when.
public struct ChangeEntry: Codable, Sendable, Hashable {
    public var seq: Int64
    /// The campaign's id.
    public var id: Int64
    public var op: CampaignOperation
    /// Who made it: the name of an operator's key (its file in the keys folder's `admin/`, or the key itself when no
    /// file names it), `local` (an admin client without keys) or `scheduler` (time started or ended the campaign).
    public var actor: String
    public var at: Timestamp
    /// The campaign's fields whose value the change altered, by their wire names, in the campaign's field order
    /// (`version` and `updatedAt`, which every change moves, are left out; empty for `created`).
    public var fields: [String]
    /// The campaign's version after the change.
    public var version: Int

    public init(seq: Int64, id: Int64, op: CampaignOperation, actor: String, at: Timestamp, fields: [String], version: Int) {
        self.seq = seq
        self.id = id
        self.op = op
        self.actor = actor
        self.at = at
        self.fields = fields
        self.version = version
    }

    /// The entry of a change, given the campaign before it (`nil` when the change created it).
    public init(change: Change, actor: String, before: Campaign?) {
        self.init(seq: change.seq, id: change.id, op: change.op, actor: actor, at: change.at,
                  fields: before.map { Self.changedFields(from: $0, to: change.campaign) } ?? [], version: change.campaign.version)
    }

    /// The fields that differ between two versions of a campaign, as the wire names them; computed from the two
    /// stored versions (the log keeps the campaign after each change), so a field added later is covered unasked.
    public static func changedFields(from before: Campaign, to after: Campaign) -> [String] {
        let encoder = JSONValueEncoder()
        guard let old = (try? encoder.encode(before))?.objectValue, let new = (try? encoder.encode(after))?.objectValue else { return [] }
        var names = new.keys.filter { !bookkeeping.contains($0) && old[$0] != new[$0] }
        names += old.keys.filter { !bookkeeping.contains($0) && new[$0] == nil }
        return names
    }

    /// What every change moves, so it tells nothing.
    static let bookkeeping: Set<String> = ["version", "updatedAt", "createdAt", "id"]
}

/// `change.list` answer: a page of the log, and where the next one starts.
public struct ChangeListResult: Codable, Sendable {
    public var changes: [ChangeEntry]
    /// The `after` of the next page, when the page was full (more may follow).
    public var next: Int64?

    public init(changes: [ChangeEntry], next: Int64? = nil) {
        self.changes = changes
        self.next = next
    }
}

extension ChangeListParams: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object([
            "id": campaignIDSchema.described("One campaign's changes (default: every campaign's)."),
            "after": .integer("The changes after this sequence number (default 0); the previous page's `next`.", minimum: 0),
            "limit": .integer("The most changes on the page (default \(defaultLimit)).", minimum: 1, maximum: Int64(maxLimit)),
        ])
    }
}

extension ChangeEntry: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object([
            "seq": .integer("The change's sequence number.", minimum: 1),
            "id": campaignIDSchema,
            "op": CampaignOperation.jsonSchema,
            "actor": .string("Who made it: an operator key's name (admin/NAME.pub in campaignd's keys folder, or the key itself), `local` (no keys) or `scheduler` (time)."),
            "at": Timestamp.jsonSchema.described("When it was committed."),
            "fields": .array(of: .string(), "The campaign's fields the change altered (not version or updatedAt; none for created)."),
            "version": .integer("The campaign's version after the change.", minimum: 1),
        ], required: ["seq", "id", "op", "actor", "at", "fields", "version"], description: "One change of the log: who, what, when.")
    }
}

extension ChangeListResult: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object([
            "changes": .array(of: ChangeEntry.jsonSchema, "In sequence order."),
            "next": .integer("Set when the page is full: pass it as `after` for the next page.", minimum: 1),
        ], required: ["changes"])
    }
}
