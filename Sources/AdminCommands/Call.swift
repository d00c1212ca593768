import ArgumentParser
import JSONRPC

/// Calls any method with JSON params and prints the result: for scripts and for what has no command yet.
struct Call: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Call a method with JSON params and print its result as JSON.",
        discussion: """
            Example:
              adctl call campaign.get '{"id": 7}'
              adctl call --endpoint tcp://127.0.0.1:7200 launch.query '{"app":"shop","platform":"ios","appVersion":"5.2.0"}'
            """)

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The method's name.")
    var method: String
    @Argument(help: "The params, a JSON object or array (default: none).")
    var params: String?

    func run() async throws {
        let value = try Self.parseParams(params)
        try await connection.run { client in
            print(try await client.call(method, params: value).jsonText)
        }
    }

    /// The params as JSON: none, an object or an array.
    static func parseParams(_ text: String?) throws(CommandFailure) -> JSONValue? {
        guard let text else { return nil }
        let value: JSONValue
        do {
            value = try JSONParser.parse(text)
        } catch {
            throw CommandFailure("params are not JSON: \(error)")
        }
        guard value.objectValue != nil || value.arrayValue != nil else { throw CommandFailure("params must be a JSON object or array") }
        return value
    }
}
