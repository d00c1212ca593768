import ArgumentParser
import JSONRPC
import LaunchAdAPI

/// `adctl history [ID]`
struct History: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The change log: who changed which campaign, what and when.",
        discussion: """
            WHO is the operator key's name (admin/NAME.pub in campaignd's keys folder), local (no keys) or scheduler \
            (time started or ended the campaign); FIELDS are those the change altered.

            Examples:
              adctl history
              adctl history 7 --limit 20
              adctl --json history --after 120
            """)
    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "One campaign's id (default: every campaign).") var id: Int64?
    @Option(help: "Only the changes after this seq (the previous page's last).") var after: Int64?
    @Option(help: "The most changes to show, 1 to \(ChangeListParams.maxLimit).") var limit: Int = ChangeListParams.defaultLimit

    func validate() throws {
        guard (1...ChangeListParams.maxLimit).contains(limit) else { throw ValidationError("--limit must be between 1 and \(ChangeListParams.maxLimit)") }
        if let after, after < 0 { throw ValidationError("--after must not be negative") }
        if let id, id < 1 { throw ValidationError("the campaign id must be 1 or more") }
    }

    func run() async throws {
        try await connection.run { client in
            let result = try await client.call(AdminAPI.changeList, ChangeListParams(id: id, after: after, limit: limit))
            if connection.json {
                print(try JSONValueEncoder().encode(result).jsonText)
                return
            }
            Table.print(["SEQ", "ID", "OP", "WHO", "WHEN", "V", "FIELDS"], result.changes.map { entry in
                [String(entry.seq), String(entry.id), entry.op.rawValue, entry.actor, entry.at.rfc3339, String(entry.version),
                 entry.fields.joined(separator: ",")]
            })
            if let next = result.next { print("more: adctl history\(id.map { " \($0)" } ?? "") --after \(next)") }
        }
    }
}
