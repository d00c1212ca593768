import ArgumentParser
import Foundation
import JSONRPC
import LaunchAdRuntime

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
            throw CommandFailure("\(error)")
        }
    }
}
