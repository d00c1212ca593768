import ArgumentParser
import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdRuntime
import ZMQRPC
import ZeroMQ

/// `adctl`: the operators' tool for the campaign service.
@main
struct ADCtl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "adctl",
        abstract: "Operate the launch-ad campaign service.",
        discussion: """
            Talks to campaignd's admin socket (--endpoint, or ADCTL_ENDPOINT). Tables for people by default; \
            --json prints stable JSON for scripts. Exit status 0 on success, 1 with a one-line reason otherwise.
            """,
        subcommands: [CampaignCommand.self, CreativeCommand.self, Edges.self, Stats.self, Call.self, Discover.self, Keygen.self])

    /// DESIGN puts the connection flags before the command (`adctl --endpoint E --json campaign list`): move them
    /// after it, where each command reads them.
    static func main() async {
        await main(reorderingGlobalFlags(Array(CommandLine.arguments.dropFirst())))
    }

    static let globalValueFlags: Set<String> = ["--endpoint", "--timeout", "--keys-dir", "--server-key"]
    static let globalFlags: Set<String> = ["--json"]

    static func reorderingGlobalFlags(_ arguments: [String]) -> [String] {
        var global: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            let name = argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument
            if globalFlags.contains(argument) {
                global.append(argument)
                index += 1
            } else if globalValueFlags.contains(name) {
                global.append(argument)
                if !argument.contains("="), index + 1 < arguments.count {
                    global.append(arguments[index + 1])
                    index += 1
                }
                index += 1
            } else {
                break
            }
        }
        // The command's words, then the global flags, then the rest.
        var rest = Array(arguments[index...])
        var words: [String] = []
        while let first = rest.first, !first.hasPrefix("-") {
            words.append(first)
            rest.removeFirst()
            if !Self.commandWords.contains(first) { break }
        }
        return words + global + rest
    }

    /// Words that name a command group, after which another command word follows.
    static let commandWords: Set<String> = ["creative", "campaign"]
}

/// Options every command that talks to campaignd shares.
struct ConnectionOptions: ParsableArguments {
    @Option(help: "campaignd's admin endpoint. [ADCTL_ENDPOINT]")
    var endpoint = Environment.string("ADCTL_ENDPOINT", default: "tcp://127.0.0.1:7100")
    @Option(help: "Seconds to wait for an answer.")
    var timeout: Double = 5
    @Flag(help: "Print JSON instead of tables.")
    var json = false
    @Option(help: "CURVE keys: adctl.key and campaignd.pub. [ADCTL_KEYS_DIR]")
    var keysDir: String?
    @Option(help: "campaignd's public key (overrides campaignd.pub in --keys-dir).")
    var serverKey: String?

    func validate() throws {
        guard timeout > 0, timeout <= 3600 else { throw ValidationError("--timeout must be between 0 and 3600 seconds") }
    }

    /// A client for the admin socket.
    func client() throws -> RPCClient {
        var configuration = RPCClientConfiguration(endpoint: endpoint)
        configuration.timeout = .milliseconds(Int(timeout * 1000))
        configuration.name = "adctl"
        if let keysPath = keysDir ?? Environment.value("ADCTL_KEYS_DIR") {
            let keys = try KeysDirectory(path: keysPath)
            let serverKey = try self.serverKey ?? keys.publicKey("campaignd")
            guard CurveKey.isValid(serverKey) else { throw RuntimeError.keys("--server-key is not a CURVE public key") }
            configuration.curve = CurveClientOptions(serverKey: serverKey, keyPair: try keys.keyPair("adctl"))
        }
        return try RPCClient(context: Self.context, configuration: configuration)
    }

    /// One context for the process (contexts are thread-safe).
    static let context: ZMQContext = {
        do { return try ZMQContext() } catch { exitWithError("adctl", "\(error)") }
    }()

    /// Turns an error into the one line an operator reads.
    func explain(_ error: any Error) -> String {
        switch error {
        case let error as RPCClientError:
            if case .timeout = error { return "campaignd unreachable at \(endpoint): no answer in \(timeout) s (is it running? right endpoint and keys?)" }
            return error.description
        case let error as JSONRPCError:
            return error.message.hasPrefix("Invalid params: ") ? String(error.message.dropFirst("Invalid params: ".count)) : error.message
        case let error as RuntimeError:
            return error.description
        default:
            return "\(error)"
        }
    }
}

/// Lists the methods of the admin API (from its OpenRPC document).
struct Discover: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the admin API's methods (rpc.discover).",
        discussion: "Example:\n  adctl discover --endpoint tcp://127.0.0.1:7100")

    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        do {
            let client = try connection.client()
            let document = try await client.call("rpc.discover", params: nil, idempotent: true)
            await client.close()
            if connection.json {
                print(document.jsonText)
                return
            }
            print("\(document["info"]?["title"]?.stringValue ?? "API") \(document["info"]?["version"]?.stringValue ?? "")")
            for method in document["methods"]?.arrayValue ?? [] {
                print("  \(method["name"]?.stringValue ?? "?")  \(method["summary"]?.stringValue ?? "")")
            }
        } catch {
            exitWithError("adctl", connection.explain(error))
        }
    }
}

/// Writes a CURVE key pair in the files the services read.
struct Keygen: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a CURVE key pair (NAME.key, NAME.pub).",
        discussion: """
            campaignd reads campaignd.key and admits the keys in admin/*.pub and edges/*.pub; deliveryd reads \
            edge.key and campaignd.pub; adctl reads adctl.key and campaignd.pub.

            Example:
              adctl keygen --name campaignd --out keys/
            """)

    @Option(help: "The key's name: the files are NAME.key and NAME.pub.")
    var name: String
    @Option(help: "The folder to write into.")
    var out = "."
    @Flag(help: "Print JSON.")
    var json = false

    func run() throws {
        do {
            let pair = try KeysDirectory.generate(name: name, in: out)
            let folder = URL(fileURLWithPath: out)
            if json {
                print(JSONValue.object(["publicKey": .string(pair.publicKey),
                                        "secretKeyFile": .string(folder.appendingPathComponent("\(name).key").path),
                                        "publicKeyFile": .string(folder.appendingPathComponent("\(name).pub").path)]).jsonText)
            } else {
                print("wrote \(folder.appendingPathComponent("\(name).key").path) and \(name).pub")
                print("public key: \(pair.publicKey)")
            }
        } catch {
            exitWithError("adctl", "\(error)")
        }
    }
}

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
        var value: JSONValue?
        if let params {
            do {
                value = try JSONParser.parse(params)
            } catch {
                exitWithError("adctl", "params are not JSON: \(error)")
            }
            guard value?.objectValue != nil || value?.arrayValue != nil else { exitWithError("adctl", "params must be a JSON object or array") }
        }
        do {
            let client = try connection.client()
            let result = try await client.call(method, params: value)
            await client.close()
            print(result.jsonText)
        } catch {
            exitWithError("adctl", connection.explain(error))
        }
    }
}

/// `adctl creative ...`
struct CreativeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "creative", abstract: "Manage creatives.",
                                                    subcommands: [Upload.self])

    /// Uploads a file; its content type is read from its bytes, not its name.
    struct Upload: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Upload an image or video; prints its sha256, type and pixel size.",
            discussion: "Example:\n  adctl creative upload splash-1179x2556.jpg")

        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The file to upload (JPEG, PNG, GIF, WebP or MP4).")
        var file: String

        func run() async throws {
            guard let data = FileManager.default.contents(atPath: file) else { exitWithError("adctl", "cannot read \(file)") }
            let bytes = [UInt8](data)
            let contentType: String
            do {
                contentType = try CreativeInspector.sniff(bytes)
            } catch {
                exitWithError("adctl", "\(file): \(error)")
            }
            do {
                let client = try connection.client()
                let info = try await client.call(AdminAPI.creativeUpload, CreativeUploadParams(contentType: contentType, data: data.base64EncodedString()))
                await client.close()
                if connection.json {
                    print(try JSONValueEncoder().encode(info).jsonText)
                } else {
                    print("sha256  \(info.sha256)")
                    print("type    \(info.contentType)")
                    print("size    \(info.width)x\(info.height), \(info.size) bytes")
                }
            } catch {
                exitWithError("adctl", connection.explain(error))
            }
        }
    }
}
