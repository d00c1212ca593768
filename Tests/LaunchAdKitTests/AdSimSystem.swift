import Foundation
import JSONRPC
import LaunchAdTesting
import Testing

/// adctl → campaignd → deliveryd → adsim, every one a real process of the build: what the adsim suites drive.
struct AdSimSystem {
    let fixture: CampaignFixture
    let edge: EdgeProcess
    let directory: URL

    /// The edge's HTTP base URL, as apps reach it.
    var edgeURL: String { "http://\(edge.endpoints["http"]!)" }

    /// Runs adctl against campaignd; what it printed, or a failure with it.
    func adctl(_ arguments: [String]) async throws -> String {
        let process = try ChildProcess("adctl", ["--endpoint", fixture.endpoints["admin"]!, "--json"] + arguments, directory: directory)
        let status = await process.exitStatus(timeout: .seconds(60))
        guard status == 0 else { throw KitTestFailure("adctl \(arguments.joined(separator: " ")) exited \(status.map(String.init) ?? "late"): \(process.log)") }
        return process.log
    }

    /// Uploads a tall PNG (distinct per `seed`); its sha256.
    func upload(seed: Int = 0) async throws -> String {
        let png = directory.appendingPathComponent("splash-\(seed).png")
        try Data(CampaignFixture.png(width: 1179, height: 2556, seed: seed)).write(to: png)
        let upload = try JSONParser.parse(try await adctl(["creative", "upload", png.path]).trimmingCharacters(in: .whitespacesAndNewlines))
        return try #require(upload["sha256"]?.stringValue)
    }

    /// Creates campaign `name` of app shop, live from now until `ends`, with a 3 s countdown; waits until every edge
    /// has it. Its id.
    func create(_ name: String, creative sha256: String, ends: String = "+2h") async throws -> Int {
        let output = try await adctl(["campaign", "create", "--name", name, "--app", "shop", "--starts", "now", "--ends", ends,
                                      "--creative", sha256, "--countdown", "3", "--skip-after", "1",
                                      "--jump-url", "https://shop.example.com/\(name)", "--wait"])
        return try #require(try JSONParser.parse(output.trimmingCharacters(in: .whitespacesAndNewlines))["campaign"]?["id"]?.intValue)
    }

    /// `adctl campaign OPERATION ID --wait`: force, pause, resume, expire ..., applied by every edge when it returns.
    func campaign(_ operation: String, _ id: Int) async throws {
        _ = try await adctl(["campaign", operation, String(id), "--wait"])
    }

    /// Starts `adsim ... --json [--policy POLICY] FLAGS COMMAND` with the device's folder `state`, against `edge`
    /// (this system's by default). With no `policy`, the SDK's default.
    func startAdsim(_ state: String, policy: String? = nil, flags: [String] = [], edge: String? = nil,
                    _ command: [String] = ["launch", "--speed", "20"]) throws -> ChildProcess {
        try ChildProcess("adsim", [
            "--edge", edge ?? edgeURL, "--app", "shop", "--platform", "ios", "--app-version", "5.2.0",
            "--device", "device-e2e", "--state-dir", directory.appendingPathComponent(state).path, "--screen", "1179x2556", "--json",
        ] + (policy.map { ["--policy", $0] } ?? []) + flags + command, directory: directory)
    }

    /// Runs one adsim (``startAdsim(_:policy:flags:edge:_:)``) to its end; the JSON objects it printed.
    func adsim(_ state: String, policy: String? = nil, flags: [String] = [], edge: String? = nil,
               _ command: [String] = ["launch", "--speed", "20"]) async throws -> [JSONValue] {
        let process = try startAdsim(state, policy: policy, flags: flags, edge: edge, command)
        return try await Self.events(of: process)
    }

    /// Waits for `process` (an adsim) to exit; the JSON objects it printed, or a failure when it failed.
    static func events(of process: ChildProcess) async throws -> [JSONValue] {
        let status = await process.exitStatus(timeout: .seconds(60))
        guard status == 0 else { throw KitTestFailure("adsim exited \(status.map(String.init) ?? "late"): \(process.log)") }
        return try process.log.split(separator: "\n").map { try JSONParser.parse(String($0)) }
    }

    /// The campaign a timeline showed, or nil; and how it ended.
    struct Outcome: Equatable, CustomStringConvertible {
        var shown: Int?
        var end: String?

        init(shown: Int?, end: String?) {
            self.shown = shown
            self.end = end
        }

        init(_ events: [JSONValue]) {
            shown = events.first { $0["event"] == "show" }?["campaignId"]?.intValue
            end = events.first { $0["event"] == "end" }?["reason"]?.stringValue
        }

        var description: String { "shown \(shown.map(String.init) ?? "nothing"), ended \(end ?? "never")" }
    }

    /// Runs `body` with campaignd and an edge (`edge-adsim`) as processes in a new folder, then stops them.
    static func with(_ body: (AdSimSystem) async throws -> Void) async throws {
        try await withStopping(CampaignFixture()) { fixture in
            try await withStopping(fixture.startEdge("edge-adsim")) { edge in
                // `--wait` fails at once while campaignd knows no edge, and it knows one from the edge's first save.
                guard await fixture.waitUntilListed(["edge-adsim"]) else { throw KitTestFailure("campaignd never listed the edge") }
                try await body(AdSimSystem(fixture: fixture, edge: edge, directory: fixture.directory))
            }
        }
    }
}
