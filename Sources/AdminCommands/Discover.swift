import ArgumentParser
import LaunchAdDomain

/// Lists the methods of the admin API (from its OpenRPC document).
struct Discover: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the admin API's methods (rpc.discover).",
        discussion: "Example:\n  adctl discover --endpoint tcp://127.0.0.1:7100")

    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        try await connection.run { client in
            let document = try await client.call("rpc.discover", params: nil, idempotent: true)
            if connection.json {
                print(document.jsonText)
                return
            }
            print(DisplayText.escaped("\(document["info"]?["title"]?.stringValue ?? "API") \(document["info"]?["version"]?.stringValue ?? "")"))
            for method in document["methods"]?.arrayValue ?? [] {
                print(DisplayText.escaped("  \(method["name"]?.stringValue ?? "?")  \(method["summary"]?.stringValue ?? "")"))
            }
        }
    }
}
