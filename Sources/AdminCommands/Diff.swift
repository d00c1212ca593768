import JSONRPC
import LaunchAdDomain

/// What a write would change, field by field.
enum Diff {
    static func print(from current: Campaign, to next: Campaign, json: Bool) throws {
        let before = try JSONValueEncoder().encode(current).objectValue ?? JSONObject()
        let after = try JSONValueEncoder().encode(next).objectValue ?? JSONObject()
        var changes: [JSONValue] = []
        for key in Set(before.keys).union(after.keys).sorted() where !["updatedAt", "version"].contains(key) && before[key] != after[key] {
            changes.append(["field": .string(key), "from": before[key] ?? .null, "to": after[key] ?? .null])
        }
        if json {
            Swift.print(JSONValue.object(["id": .number(JSONNumber(current.id)), "changes": .array(changes)]).jsonText)
        } else if changes.isEmpty {
            Swift.print("campaign \(current.id): nothing would change")
        } else {
            Swift.print("campaign \(current.id) would change:")
            Table.print(["FIELD", "FROM", "TO"], changes.map { [$0["field"]?.stringValue ?? "", $0["from"]?.jsonText ?? "", $0["to"]?.jsonText ?? ""] })
        }
    }
}
