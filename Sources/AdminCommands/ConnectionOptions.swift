import ArgumentParser
import JSONRPC
import LaunchAdAPI
import LaunchAdRuntime
import ZeroMQ
import ZMQRPC

/// Options every command that talks to campaignd shares.
struct ConnectionOptions: ParsableArguments {
    @Option(help: "campaignd's admin endpoint, or several campaignd's, comma-separated (calls go to whichever answers). [ADCTL_ENDPOINT]")
    var endpoint = Environment.string("ADCTL_ENDPOINT", default: DefaultEndpoints.campaignAdmin)
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
        return try RPCClient(context: Self.context.get(), configuration: configuration)
    }

    /// One context for the process (contexts are thread-safe), or why there is none.
    static let context = Result { try ZMQContext() }

    /// Runs `body` with a client, closed afterwards; any failure becomes a ``CommandFailure`` with the one line an
    /// operator reads.
    func run(_ body: (RPCClient) async throws -> Void) async throws(CommandFailure) {
        do {
            let client = try client()
            do {
                try await body(client)
            } catch {
                await client.close()
                throw error
            }
            await client.close()
        } catch {
            throw CommandFailure(explain(error))
        }
    }

    /// Turns an error into the one line an operator reads.
    func explain(_ error: any Error) -> String {
        switch error {
        case let error as CommandFailure:
            return error.reason
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
