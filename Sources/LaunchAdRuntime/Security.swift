import Foundation
import LaunchAdAPI
import LaunchAdDomain
import ZMQRPC
import ZeroMQ

/// Refuses to expose a socket beyond loopback without CURVE unless the operator said `--insecure`.
public enum BindPolicy {
    /// Checks the endpoints a process is about to bind.
    public static func check(_ endpoints: [(name: String, endpoint: String)], curve: Bool, insecure: Bool) throws {
        guard !curve, !insecure else { return }
        if let exposed = endpoints.first(where: { !isLoopbackEndpoint($0.endpoint) }) {
            throw RuntimeError.insecureBind(
                "refusing to bind the \(exposed.name) socket to \(exposed.endpoint) without CURVE keys: give --keys-dir, or --insecure to accept an unauthenticated socket")
        }
    }

    /// Whether an HTTP address (`host:port`) is reachable only from this machine.
    public static func isLoopbackAddress(_ address: String) -> Bool {
        isLoopbackEndpoint("tcp://" + address)
    }
}

/// A folder of CURVE keys: `NAME.key` holds a secret key and `NAME.pub` its public key (Z85 text), and
/// sub-folders of `*.pub` files list the public keys admitted to a socket (in `edges/`, each file is named for the edge
/// id its key speaks for).
public struct KeysDirectory: Sendable {
    public let url: URL

    public init(path: String) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw RuntimeError.keys("keys directory \(path) does not exist")
        }
        url = URL(fileURLWithPath: path)
    }

    /// The key pair `NAME.key` (its public half derived from the secret).
    public func keyPair(_ name: String) throws -> CurveKeyPair {
        let file = url.appendingPathComponent("\(name).key")
        let secret = try Self.readKey(file)
        do {
            return try CurveKeyPair(secretKey: secret)
        } catch {
            throw RuntimeError.keys("\(file.path): \(error)")
        }
    }

    /// The public key `NAME.pub`.
    public func publicKey(_ name: String) throws -> String {
        try Self.readKey(url.appendingPathComponent("\(name).pub"))
    }

    /// campaignd's public key, which an edge (or a relay) seals its acknowledgements and reports for: `origin.pub`, or
    /// `campaignd.pub` when there is none (an edge that speaks to campaignd itself). Behind a relay, `campaignd.pub` is
    /// the relay's key (the server connected to) and `origin.pub` must be campaignd's.
    public func originPublicKey() throws -> String {
        let origin = url.appendingPathComponent("origin.pub")
        return try FileManager.default.fileExists(atPath: origin.path) ? Self.readKey(origin) : publicKey("campaignd")
    }

    /// Every public key in the folder `name` (files ending in `.pub`); an absent folder admits nobody.
    public func allowlist(_ name: String) throws -> [String] {
        let folder = url.appendingPathComponent(name)
        guard let files = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return [] }
        return try files.filter { $0.hasSuffix(".pub") }.sorted().map { try Self.readKey(folder.appendingPathComponent($0)) }
    }

    /// The operators' public keys in `admin/`, each with the name of its file (`admin/alice.pub` names its key
    /// `alice`), so the change log says who made a change.
    public func operatorNames() throws -> [String: String] {
        let folder = url.appendingPathComponent("admin")
        guard let files = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return [:] }
        var names: [String: String] = [:]
        for file in files.filter({ $0.hasSuffix(".pub") }).sorted() {
            names[try Self.readKey(folder.appendingPathComponent(file))] = String(file.dropLast(".pub".count))
        }
        return names
    }

    /// The edges' public keys, each with the one edge id it speaks for: `edges/EDGE_ID.pub` admits the key it holds for
    /// the edge `EDGE_ID` alone (an absent folder admits no edge). A key listed twice, or a file name that is not an edge
    /// id, is refused.
    public func edgeKeys() throws -> [String: String] {
        try peerKeys("edges")
    }

    /// The relays' public keys, each with the relay id it speaks for: `relays/RELAY_ID.pub`, as ``edgeKeys()``. A relay's
    /// key may bring the acknowledgements and reports it passes on from behind it, each sealed by its edge (see
    /// ``RecordSeals``), and its own.
    public func relayKeys() throws -> [String: String] {
        try peerKeys("relays")
    }

    /// The keys in `name/`, each with the id its file names.
    private func peerKeys(_ name: String) throws -> [String: String] {
        let folder = url.appendingPathComponent(name)
        guard let files = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return [:] }
        var edges: [String: String] = [:]
        for file in files.filter({ $0.hasSuffix(".pub") }).sorted() {
            let edgeId = String(file.dropLast(".pub".count))
            guard EdgeID.isValid(edgeId) else {
                throw RuntimeError.keys("\(folder.path)/\(file): the file's name is the edge id its key speaks for, \(EdgeID.rule)")
            }
            let key = try Self.readKey(folder.appendingPathComponent(file))
            if let other = edges[key] {
                throw RuntimeError.keys("\(folder.path): the same key is listed as \(other).pub and \(file); an edge's key speaks for one edge id only")
            }
            edges[key] = edgeId
        }
        return edges
    }

    static func readKey(_ file: URL) throws -> String {
        guard let data = FileManager.default.contents(atPath: file.path) else {
            throw RuntimeError.keys("cannot read key file \(file.path)")
        }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard CurveKey.isValid(text) else {
            throw RuntimeError.keys("\(file.path) is not a CURVE key (40 Z85 characters)")
        }
        return text
    }

    /// Writes a new key pair as `NAME.key` (readable by the owner only) and `NAME.pub` in `folder`.
    @discardableResult
    public static func generate(name: String, in folder: String) throws -> CurveKeyPair {
        guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." }),
              !name.hasPrefix(".") else {
            throw RuntimeError.keys("key name \(name) must be letters, digits, '-', '_' or '.'")
        }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let pair = try CurveKeyPair.generate()
        let secretPath = URL(fileURLWithPath: folder).appendingPathComponent("\(name).key").path
        let publicPath = URL(fileURLWithPath: folder).appendingPathComponent("\(name).pub").path
        guard !FileManager.default.fileExists(atPath: secretPath) else {
            throw RuntimeError.keys("\(secretPath) already exists; remove it first to replace the key")
        }
        guard FileManager.default.createFile(atPath: secretPath, contents: Data((pair.secretKey + "\n").utf8),
                                             attributes: [.posixPermissions: 0o600]) else {
            throw RuntimeError.keys("cannot write \(secretPath)")
        }
        guard FileManager.default.createFile(atPath: publicPath, contents: Data((pair.publicKey + "\n").utf8),
                                             attributes: [.posixPermissions: 0o644]) else {
            throw RuntimeError.keys("cannot write \(publicPath)")
        }
        return pair
    }
}
