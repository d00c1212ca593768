import Foundation
import LaunchAdRuntime
import ZeroMQ

/// The keys folders of campaignd, one relay and one edge, made for a test: campaignd admits the operator (`admin/`),
/// the relay (`relays/relay-1.pub`) and the edge (`edges/edge-1.pub`, so that its key may also speak to campaignd
/// itself, and so that campaignd can check the seal of what it acknowledges through the relay); the relay trusts
/// campaignd and admits the edge; the edge trusts the relay as its campaignd and seals for campaignd (`origin.pub`).
public struct CurveKeyTree: Sendable {
    public let server: CurveKeyPair
    public let operatorKeys: CurveKeyPair
    public let relay: CurveKeyPair
    public let edge: CurveKeyPair
    public let campaigndKeys: URL
    public let relayKeys: URL
    public let edgeKeys: URL

    public init(in directory: URL) throws {
        campaigndKeys = directory.appendingPathComponent("campaignd")
        server = try KeysDirectory.generate(name: "campaignd", in: campaigndKeys.path)
        operatorKeys = try KeysDirectory.generate(name: "adctl", in: campaigndKeys.appendingPathComponent("admin").path)
        relayKeys = directory.appendingPathComponent("relay")
        relay = try KeysDirectory.generate(name: "relay", in: relayKeys.path)
        edgeKeys = directory.appendingPathComponent("edge")
        edge = try KeysDirectory.generate(name: "edge", in: edgeKeys.path)
        for (folder, name, key) in [(relayKeys, "campaignd", server), (edgeKeys, "campaignd", relay), (edgeKeys, "origin", server), (campaigndKeys, "relays/relay-1", relay),
                                    (campaigndKeys, "edges/edge-1", edge), (relayKeys, "edges/edge-1", edge)] {
            let file = folder.appendingPathComponent("\(name).pub")
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data((key.publicKey + "\n").utf8).write(to: file)
        }
    }

    /// Makes the edge trust campaignd itself (its `campaignd.pub`), for an edge that speaks to campaignd directly.
    public func edgeTrustsCampaignd() throws {
        try Data((server.publicKey + "\n").utf8).write(to: edgeKeys.appendingPathComponent("campaignd.pub"))
    }
}
