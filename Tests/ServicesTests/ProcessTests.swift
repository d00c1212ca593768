import Foundation
import JSONRPC
import LaunchAdRuntime
import LaunchAdTesting
import Testing
import ZMQRPC
import ZeroMQ

@Suite("The services as processes", .timeLimit(.minutes(2)))
struct ProcessTests {
    static let ephemeral = ["--admin-endpoint", "tcp://127.0.0.1:0", "--sync-endpoint", "tcp://127.0.0.1:0",
                            "--updates-endpoint", "tcp://127.0.0.1:0", "--http-address", "127.0.0.1:0"]

    @Test("campaignd binds ephemeral ports, names them in its ready file, serves, and exits 0 on SIGTERM")
    func campaigndLifecycle() async throws {
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let ready = directory.appendingPathComponent("ready.json")
        let campaignd = try ChildProcess("campaignd", Self.ephemeral + ["--data-dir", directory.appendingPathComponent("data").path,
                                                                        "--ready-file", ready.path], directory: directory)
        let endpoints = try await ChildProcess.waitForReadyFile(ready)
        #expect(Set(endpoints.keys).isSuperset(of: ["admin", "sync", "updates"]))
        for name in ["admin", "sync"] {
            let endpoint = try #require(endpoints[name])
            #expect(!endpoint.hasSuffix(":0"))
            let context = try ZMQContext()
            let client = try RPCClient(context: context, configuration: RPCClientConfiguration(endpoint: endpoint))
            let document = try await client.call("rpc.discover", params: nil)
            #expect(document["openrpc"] == "1.3.2")
            await client.close()
        }
        campaignd.signal(SIGTERM)
        #expect(await campaignd.exitStatus() == 0, "\(campaignd.log)")
    }

    @Test("a non-loopback bind without keys is refused unless --insecure")
    func refusesInsecureBind() async throws {
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let campaignd = try ChildProcess("campaignd", Self.ephemeral + ["--admin-endpoint", "tcp://0.0.0.0:0",
                                                                        "--data-dir", directory.path], directory: directory)
        #expect(await campaignd.exitStatus() == 1)
        #expect(campaignd.log.contains("refusing to bind the admin socket"))
        #expect(!campaignd.log.contains("Usage"))
    }

    @Test("with keys, adctl with a listed key reaches the admin socket; an unlisted key does not")
    func curveAdmin() async throws {
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let keys = directory.appendingPathComponent("keys")
        let server = try KeysDirectory.generate(name: "campaignd", in: keys.path)
        let admin = try KeysDirectory.generate(name: "adctl", in: keys.appendingPathComponent("admin").path)
        // adctl's own folder: its key and the server's public key.
        let adctlKeys = directory.appendingPathComponent("adctl-keys")
        try FileManager.default.createDirectory(at: adctlKeys, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: keys.appendingPathComponent("admin/adctl.key"), to: adctlKeys.appendingPathComponent("adctl.key"))
        try Data((server.publicKey + "\n").utf8).write(to: adctlKeys.appendingPathComponent("campaignd.pub"))
        let strangerKeys = directory.appendingPathComponent("stranger")
        try KeysDirectory.generate(name: "adctl", in: strangerKeys.path)
        try Data((server.publicKey + "\n").utf8).write(to: strangerKeys.appendingPathComponent("campaignd.pub"))
        #expect(!admin.publicKey.isEmpty)

        let ready = directory.appendingPathComponent("ready.json")
        let campaignd = try ChildProcess("campaignd", Self.ephemeral + ["--data-dir", directory.appendingPathComponent("data").path,
                                                                        "--keys-dir", keys.path, "--ready-file", ready.path],
                                         directory: directory)
        let endpoint = try #require(try await ChildProcess.waitForReadyFile(ready)["admin"])

        // The connection flags before the command, as DESIGN writes them.
        let good = try ChildProcess("adctl", ["--json", "--endpoint", endpoint, "--keys-dir", adctlKeys.path, "discover"], directory: directory)
        #expect(await good.exitStatus() == 0, "\(good.log)")
        #expect(good.log.contains("\"openrpc\""))

        let stranger = try ChildProcess("adctl", ["discover", "--timeout", "1", "--endpoint", endpoint, "--keys-dir", strangerKeys.path],
                                        directory: directory)
        #expect(await stranger.exitStatus() == 1)
        #expect(stranger.log.contains("unreachable"))

        let plain = try ChildProcess("adctl", ["discover", "--timeout", "1", "--endpoint", endpoint], directory: directory)
        #expect(await plain.exitStatus() == 1)

        campaignd.signal(SIGTERM)
        #expect(await campaignd.exitStatus() == 0)
    }

    @Test("deliveryd serves its client socket and exits 0 on SIGTERM")
    func deliverydLifecycle() async throws {
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let ready = directory.appendingPathComponent("ready.json")
        let deliveryd = try ChildProcess("deliveryd", ["--client-endpoint", "tcp://127.0.0.1:0", "--http-address", "127.0.0.1:0",
                                                       "--cache-dir", directory.path, "--ready-file", ready.path], directory: directory)
        let endpoint = try #require(try await ChildProcess.waitForReadyFile(ready)["client"])
        let context = try ZMQContext()
        let peer = try TestPeer(context, type: .req, endpoint: endpoint)
        #expect(try await peer.request(#"{"jsonrpc":"2.0","method":"rpc.discover","id":1}"#)?["result"]?["openrpc"] == "1.3.2")
        deliveryd.signal(SIGTERM)
        #expect(await deliveryd.exitStatus() == 0, "\(deliveryd.log)")
    }
}

@Suite("Runtime helpers", .timeLimit(.minutes(1)))
struct RuntimeTests {
    @Test("key files: generated with owner-only secret, read back, refused when malformed or already there")
    func keys() throws {
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let pair = try KeysDirectory.generate(name: "edge", in: directory.path)
        let attributes = try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent("edge.key").path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let keys = try KeysDirectory(path: directory.path)
        #expect(try keys.keyPair("edge") == pair)
        #expect(try keys.publicKey("edge") == pair.publicKey)
        #expect(throws: RuntimeError.self) { try KeysDirectory.generate(name: "edge", in: directory.path) }
        #expect(throws: RuntimeError.self) { try KeysDirectory.generate(name: "../x", in: directory.path) }
        try Data("not a key".utf8).write(to: directory.appendingPathComponent("bad.pub"))
        #expect(throws: RuntimeError.self) { try keys.publicKey("bad") }
        #expect(try keys.allowlist("absent").isEmpty)
    }

    @Test("the ready file is written whole, as JSON")
    func readyFile() throws {
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let path = directory.appendingPathComponent("ready.json").path
        try ReadyFile.write(["admin": "tcp://127.0.0.1:1", "http": "127.0.0.1:2"], to: path)
        let parsed = try JSONParser.parse([UInt8](FileManager.default.contents(atPath: path)!))
        #expect(parsed == ["admin": "tcp://127.0.0.1:1", "http": "127.0.0.1:2"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["ready.json"])
    }

    @Test("binding beyond loopback needs keys or --insecure")
    func bindPolicy() throws {
        #expect(throws: Never.self) { try BindPolicy.check([("admin", "tcp://127.0.0.1:0")], curve: false, insecure: false) }
        #expect(throws: RuntimeError.self) { try BindPolicy.check([("admin", "tcp://*:7100")], curve: false, insecure: false) }
        #expect(throws: Never.self) { try BindPolicy.check([("admin", "tcp://*:7100")], curve: true, insecure: false) }
        #expect(throws: Never.self) { try BindPolicy.check([("admin", "tcp://*:7100")], curve: false, insecure: true) }
    }
}
