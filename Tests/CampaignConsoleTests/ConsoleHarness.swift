import CampaignConsole
import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdTesting
import ZMQRPC

/// The tokens of the console users the tests sign in as (as `openssl rand -hex 16` writes them).
let aliceToken = "9f2c47e1b0a85d3c6e14f7a29b08d5c3"
let bobToken = "4d81a6f03c9e27b5d1f6084ac3e9b752"
/// The harness's users, by name.
let consoleUsers = ["alice": aliceToken, "bob": bobToken]

/// campaignd in process with its console on an ephemeral loopback port (users alice and bob, or none), and a client
/// for the console and one for the admin socket. `limits` throttle failed sign-ins.
func withConsole<T>(users: Bool = true, limits: SignInLimits = SignInLimits(),
                    _ body: (InProcessCampaignService, ConsoleClient, RPCClient) async throws -> T) async throws -> T {
    try await withCampaignService(configure: { configuration in
        configuration.console = ConsoleConfiguration(
            address: "127.0.0.1:0", users: users ? try ConsoleUsers([("alice", aliceToken), ("bob", bobToken)]) : nil)
        configuration.console?.signInLimits = limits
    }) { service in
        try await withStopping(service.admin()) { admin in
            try await body(service, ConsoleClient(service.endpoints["console"]!), admin)
        }
    }
}

/// Creates a live campaign of app `shop` with one 1080×1920 creative; answers its id.
func createCampaign(_ service: InProcessCampaignService, _ admin: RPCClient, name: String = "Autumn sale",
                    creatives: [[UInt8]] = [CampaignFixture.png(width: 1080, height: 1920)],
                    change: (inout CampaignFields) -> Void = { _ in }) async throws -> Int64 {
    var hashes: [String] = []
    for bytes in creatives {
        let contentType = try CreativeInspector.sniff(bytes)
        hashes.append(try await admin.call(AdminAPI.creativeUpload, CreativeUploadParams(contentType: contentType, data: Data(bytes).base64EncodedString())).sha256)
    }
    var fields = CampaignFixture.fields(name: name, creative: hashes[0])
    fields.creatives = hashes.map { CreativeRef(sha256: $0) }
    change(&fields)
    return try await admin.call(AdminAPI.campaignCreate, fields).campaign.id
}
