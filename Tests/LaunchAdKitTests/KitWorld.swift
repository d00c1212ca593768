import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdKit
import LaunchAdTesting
import ZMQRPC

/// campaignd and one edge built in process, a creative uploaded, and SDKs made against the edge's HTTP address:
/// what most LaunchAdKit tests run against.
struct KitWorld {
    let fixture: InProcessCampaignService
    let admin: RPCClient
    let edge: InProcessEdge
    let creative: String
    let edgeURL: URL
    /// A folder for the test's SDK states, removed after it.
    let folder: URL

    static let screen = (width: 1179, height: 2556)

    /// A new SDK over `state` (a fresh folder unless given), against the edge (or `edge`).
    func client(_ policy: LaunchPolicy = .cacheFirst, clock: any LaunchAdClock = SystemClock(), state: URL? = nil, edge: URL? = nil,
                device: String = "device-1", configure: (inout LaunchAdConfiguration) -> Void = { _ in }) throws -> LaunchAdClient {
        var configuration = LaunchAdConfiguration(edge: edge ?? edgeURL, app: "shop", platform: "ios", appVersion: "5.2.0",
                                                  deviceId: device,
                                                  stateDirectory: state ?? folder.appendingPathComponent(UUID().uuidString))
        configuration.screen = Self.screen
        configuration.policy = policy
        configure(&configuration)
        return try LaunchAdClient(configuration: configuration, clock: clock)
    }

    /// Creates a campaign of `shop` showing the uploaded creative (or `creative`), and waits until the edge has it
    /// (and holds `creatives` creatives in all).
    func create(name: String = "campaign", creative: String? = nil, duration: Double = 3600, creatives: Int = 1,
                configure: (inout CampaignFields) -> Void = { _ in }) async throws -> Campaign {
        var fields = CampaignFixture.fields(name: name, creative: creative ?? self.creative, duration: duration)
        configure(&fields)
        let created = try await admin.call(AdminAPI.campaignCreate, fields)
        guard await edge.waitFor(seq: created.seq, creatives: creatives) else { throw KitTestFailure("the edge did not apply the campaign") }
        return created.campaign
    }

    /// Uploads another creative of the screen's size (`seed` makes its bytes differ).
    func upload(seed: Int) async throws -> String {
        try await fixture.uploadPNG(admin, width: Self.screen.width, height: Self.screen.height, seed: seed)
    }

    /// Pauses, expires, forces ... campaign `id`, and waits until the edge has applied it.
    func apply(_ operation: RPCMethod<CampaignID, CampaignChangeResult>, to id: Int64) async throws {
        let change = try await admin.call(operation, CampaignID(id: id))
        guard await edge.waitFor(seq: change.seq) else { throw KitTestFailure("the edge did not apply \(operation.name)") }
    }

    /// A URL where nothing listens (an edge out of reach).
    static var unreachable: URL { URL(string: "http://127.0.0.1:9")! }
}

struct KitTestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Runs `body` with campaignd and an edge in process and a creative of 1179x2556 uploaded.
func withKitWorld(_ body: (KitWorld) async throws -> Void) async throws {
    let folder = try makeTemporaryDirectory("launchadkit")
    defer { removeTemporaryDirectory(folder) }
    try await withCampaignService { fixture in
        let admin = try fixture.admin()
        do {
            let creative = try await fixture.uploadPNG(admin, width: KitWorld.screen.width, height: KitWorld.screen.height)
            try await withEdge("edge-kit", connectedTo: fixture) { edge in
                guard let http = edge.endpoints["http"], let url = URL(string: "http://\(http)") else {
                    throw KitTestFailure("the edge announced no HTTP address")
                }
                try await body(KitWorld(fixture: fixture, admin: admin, edge: edge, creative: creative, edgeURL: url, folder: folder))
            }
        } catch {
            await admin.close()
            throw error
        }
        await admin.close()
    }
}

extension LaunchDecision {
    /// The ad, when the decision shows one.
    var ad: LaunchAd? {
        if case .show(let ad) = self { return ad }
        return nil
    }
}
