import Foundation
import LaunchAdKit
import LaunchAdTesting
import Testing

@Suite("creatives: verified before shown, resumed by range, within the cache's bound; the wait budget holds", .timeLimit(.minutes(2)))
struct DownloadFaultTests {
    static func client(_ edge: ScriptedEdge, _ policy: LaunchPolicy = .fresh, state: URL, budget: Double = 3,
                       cacheBytes: Int = 50 << 20) throws -> LaunchAdClient {
        var configuration = LaunchAdConfiguration(edge: edge.url, app: "shop", platform: "ios", appVersion: "5.2.0", deviceId: "d-1",
                                                  stateDirectory: state)
        configuration.policy = policy
        configuration.waitBudget = budget
        configuration.cacheBytes = cacheBytes
        configuration.requestTimeout = 5
        return try LaunchAdClient(configuration: configuration)
    }

    static func withFolder(_ body: (URL) async throws -> Void) async throws {
        let folder = try makeTemporaryDirectory("launchadkit-faults")
        defer { removeTemporaryDirectory(folder) }
        try await body(folder)
    }

    @Test("a truncated download is never shown; the next launch resumes it with a range from where it stopped")
    func truncatedThenResumed() async throws {
        try await Self.withFolder { folder in
            let edge = try ScriptedEdge()
            let creative = ScriptedEdge.creative(1)
            edge.answer(creative)
            edge.fail(.truncate(bytes: 8_000))
            let sdk = try Self.client(edge, state: folder)
            #expect(await sdk.launch() == .noAd(.none))
            await sdk.settle()
            let partial = folder.appendingPathComponent("cache/partial/\(creative.sha256).part")
            #expect(try Data(contentsOf: partial).count == 8_000)

            let ad = try #require(await sdk.launch().ad)
            let shown = [UInt8](try Data(contentsOf: ad.file))
            #expect(ad.sha256 == creative.sha256 && shown == creative.bytes)
            let requests = edge.creativeRequests
            #expect(requests.count == 2)
            #expect(requests.last?.headers["range"] == "bytes=8000-" && requests.last?.headers["if-range"] == "\"\(creative.sha256)\"")
            #expect(!FileManager.default.fileExists(atPath: partial.path))
            await sdk.settle()
        }
    }

    @Test("corrupt bytes are never shown nor kept; the next launch fetches the creative again whole")
    func corruptThenFetchedAgain() async throws {
        try await Self.withFolder { folder in
            let edge = try ScriptedEdge()
            let creative = ScriptedEdge.creative(2)
            edge.answer(creative)
            edge.fail(.corrupt)
            let sdk = try Self.client(edge, state: folder)
            #expect(await sdk.launch() == .noAd(.none))
            await sdk.settle()
            let files = { try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("cache/creatives").path) }
            #expect(try files().isEmpty)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("cache/partial").path).isEmpty)
            // Cache first does not show it either, offline.
            let cached = try Self.client(edge, .cacheFirst, state: folder)
            edge.hangRPC()
            #expect(await cached.launch() == .noAd(.none))

            let edge2 = try ScriptedEdge()
            edge2.answer(creative)
            let again = try Self.client(edge2, state: folder)
            let ad = try #require(await again.launch().ad)
            #expect([UInt8](try Data(contentsOf: ad.file)) == creative.bytes)
            #expect(edge2.creativeRequests.count == 1 && edge2.creativeRequests[0].headers["range"] == nil)
            #expect(try files() == [creative.sha256])
            await again.settle()
            edge.server.stop()
        }
    }

    @Test("the cache stays within its bytes, the least recently used creative going first")
    func boundedLRU() async throws {
        try await Self.withFolder { folder in
            let edge = try ScriptedEdge()
            let creatives = (1...4).map { ScriptedEdge.creative(Int64($0), size: 10_000, seed: UInt8($0)) }
            let sdk = try Self.client(edge, state: folder, cacheBytes: 25_000)
            let creativesFolder = folder.appendingPathComponent("cache/creatives")
            func held() throws -> Set<String> { Set(try FileManager.default.contentsOfDirectory(atPath: creativesFolder.path)) }
            for creative in creatives.prefix(2) {
                edge.answer(creative)
                #expect(await sdk.launch().ad?.sha256 == creative.sha256)
            }
            #expect(try held() == [creatives[0].sha256, creatives[1].sha256])
            // The first is shown again (used now), so the second is the least recently used when the third comes.
            edge.answer(creatives[0])
            #expect(await sdk.launch().ad?.sha256 == creatives[0].sha256)
            edge.answer(creatives[2])
            #expect(await sdk.launch().ad?.sha256 == creatives[2].sha256)
            #expect(try held() == [creatives[0].sha256, creatives[2].sha256])
            edge.answer(creatives[3])
            #expect(await sdk.launch().ad?.sha256 == creatives[3].sha256)
            #expect(try held() == [creatives[2].sha256, creatives[3].sha256])
            let bytes = try held().reduce(0) { total, name in
                total + ((try FileManager.default.attributesOfItem(atPath: creativesFolder.appendingPathComponent(name).path)[.size] as? NSNumber)?.intValue ?? 0)
            }
            #expect(bytes <= 25_000)
            await sdk.settle()
        }
    }

    @Test("an edge that accepts and never answers: a fresh launch goes on without an ad at its wait budget, reported as a timeout; a cached ad still shows at once")
    func waitBudgetWithAHangingEdge() async throws {
        try await Self.withFolder { folder in
            let edge = try ScriptedEdge()
            let creative = ScriptedEdge.creative(3)
            edge.answer(creative)
            // Cache it first, from an edge that answers.
            let warm = try Self.client(edge, state: folder)
            #expect(await warm.launch().ad != nil)
            await warm.settle()

            edge.hangRPC()
            let fresh = try Self.client(edge, state: folder.appendingPathComponent("empty"), budget: 0.5)
            let clock = ContinuousClock()
            var decision: LaunchDecision = .noAd(.none)
            let took = await clock.measure { decision = await fresh.launch() }
            #expect(decision == .noAd(.timeout))
            #expect(took >= .milliseconds(450) && took < .milliseconds(1_500), "took \(took)")

            let cached = try Self.client(edge, .cacheFirst, state: folder, budget: 0.5)
            var shown: LaunchAd?
            let fast = await clock.measure { shown = await cached.launch().ad }
            #expect(shown?.sha256 == creative.sha256 && fast < .milliseconds(500), "took \(fast)")

            // A creative download that hangs is bounded by the budget too.
            let edge2 = try ScriptedEdge()
            edge2.answer(ScriptedEdge.creative(4))
            edge2.fail(.hang)
            let slow = try Self.client(edge2, state: folder.appendingPathComponent("slow"), budget: 0.5)
            let hung = await clock.measure { decision = await slow.launch() }
            #expect(decision == .noAd(.timeout) && hung < .milliseconds(1_500), "took \(hung)")
            edge.server.stop()
            edge2.server.stop()
        }
    }
}
