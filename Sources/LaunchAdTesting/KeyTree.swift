import Foundation
import LaunchAdRuntime
import ZeroMQ
import ZMQRPC

/// The CURVE keys folders of a tree of campaignd, relays and edges, laid out as deploy/README.md's keys section says:
/// each peer's folder holds its key pair, its upstream's public key as `campaignd.pub` and campaignd's as `origin.pub`;
/// each upstream lists the peers below it (`edges/`, `relays/`), and campaignd lists every edge and relay of the tree,
/// also those behind relays, so that it can check each one's seal.
public final class KeyTree: @unchecked Sendable {
    // @unchecked: filled by the one test that made it, before any service starts.
    public let root: URL
    public let campaignd: CurveKeyPair
    /// adctl's folder (`adctl.key`, `campaignd.pub`), its public key admitted by campaignd.
    public let adctlFolder: URL
    public let operatorPair: CurveKeyPair
    public private(set) var pairs: [String: CurveKeyPair] = [:]

    public var campaigndFolder: URL { root.appendingPathComponent("campaignd") }
    public func folder(_ name: String) -> URL { root.appendingPathComponent(name) }

    public init(in directory: URL) throws {
        root = directory
        campaignd = try KeysDirectory.generate(name: "campaignd", in: directory.appendingPathComponent("campaignd").path)
        adctlFolder = directory.appendingPathComponent("adctl")
        operatorPair = try KeysDirectory.generate(name: "adctl", in: adctlFolder.path)
        try Self.write(campaignd.publicKey, to: adctlFolder.appendingPathComponent("campaignd.pub"))
        try Self.write(operatorPair.publicKey, to: campaigndFolder.appendingPathComponent("admin/adctl.pub"))
    }

    /// Makes the folder of the edge `name` below `upstream` (a relay of this tree; `nil`: campaignd itself).
    @discardableResult
    public func add(edge name: String, below upstream: String? = nil) throws -> CurveKeyPair {
        try add(name, keyName: "edge", listedIn: "edges", below: upstream)
    }

    /// Makes the folder of the relay `name` below `upstream`, as ``add(edge:below:)``.
    @discardableResult
    public func add(relay name: String, below upstream: String? = nil) throws -> CurveKeyPair {
        try add(name, keyName: "relay", listedIn: "relays", below: upstream)
    }

    private func add(_ name: String, keyName: String, listedIn list: String, below upstream: String?) throws -> CurveKeyPair {
        let pair = try KeysDirectory.generate(name: keyName, in: folder(name).path)
        pairs[name] = pair
        if let upstream, pairs[upstream] == nil { throw RuntimeError.keys("no relay \(upstream) in the tree") }
        let server = upstream.flatMap { pairs[$0]?.publicKey } ?? campaignd.publicKey
        try Self.write(server, to: folder(name).appendingPathComponent("campaignd.pub"))
        try Self.write(campaignd.publicKey, to: folder(name).appendingPathComponent("origin.pub"))
        try Self.write(pair.publicKey, to: campaigndFolder.appendingPathComponent("\(list)/\(name).pub"))
        if let upstream { try Self.write(pair.publicKey, to: folder(upstream).appendingPathComponent("\(list)/\(name).pub")) }
        return pair
    }

    /// A client of campaignd's `socket` (`sync` or `admin`) with the key pair `pair` (the operator's by default).
    public func client(_ endpoints: some CampaignServiceEndpoints, socket: String = "admin", pair: CurveKeyPair? = nil) throws -> RPCClient {
        var configuration = RPCClientConfiguration(endpoint: endpoints.endpoints[socket]!)
        configuration.curve = CurveClientOptions(serverKey: campaignd.publicKey, keyPair: pair ?? operatorPair)
        return try RPCClient(context: endpoints.context, configuration: configuration)
    }

    /// Writes `key` as the one line of `file`, making its folder.
    public static func write(_ key: String, to file: URL) throws {
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data((key + "\n").utf8).write(to: file)
    }
}
