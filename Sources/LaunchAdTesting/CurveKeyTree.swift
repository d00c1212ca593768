import Foundation
import LaunchAdRuntime
import ZeroMQ

/// The smallest ``KeyTree`` most CURVE tests need: campaignd, one relay (`relay-1`) and one edge (`edge-1`) behind it,
/// laid out as deploy/README.md says (campaignd admits the operator, the relay and the edge, whose seal it checks; the
/// relay trusts campaignd and admits the edge; the edge trusts the relay as its campaignd and seals for campaignd).
public struct CurveKeyTree: Sendable {
    public let server: CurveKeyPair
    public let operatorKeys: CurveKeyPair
    public let relay: CurveKeyPair
    public let edge: CurveKeyPair
    public let campaigndKeys: URL
    public let relayKeys: URL
    public let edgeKeys: URL

    public init(in directory: URL) throws {
        let tree = try KeyTree(in: directory)
        relay = try tree.add(relay: "relay-1")
        edge = try tree.add(edge: "edge-1", below: "relay-1")
        (server, operatorKeys) = (tree.campaignd, tree.operatorPair)
        (campaigndKeys, relayKeys, edgeKeys) = (tree.campaigndFolder, tree.folder("relay-1"), tree.folder("edge-1"))
    }

    /// Makes the edge trust campaignd itself (its `campaignd.pub`), for an edge that speaks to campaignd directly.
    public func edgeTrustsCampaignd() throws {
        try KeyTree.write(server.publicKey, to: edgeKeys.appendingPathComponent("campaignd.pub"))
    }
}
