import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdTesting
import Testing
import ZMQRPC

/// How long a creative plays, from the file campaignd reads at upload to the answer an app gets from an edge, through
/// real `campaignd` and `deliveryd` processes; and which files campaignd takes as video, by their brand and their size.
@Suite("Media lengths end to end", .timeLimit(.minutes(2)))
struct MediaLengthTests {
    static func upload(_ admin: RPCClient, _ type: String, _ bytes: [UInt8]) async throws -> CreativeFacts {
        try await admin.call(AdminAPI.creativeUpload, CreativeUploadParams(contentType: type, data: Data(bytes).base64EncodedString()))
    }

    /// The refusal's message of an upload that must be refused.
    static func refusal(_ admin: RPCClient, _ type: String, _ bytes: [UInt8]) async -> String? {
        do {
            _ = try await upload(admin, type, bytes)
            return nil
        } catch let error as JSONRPCError {
            return error.code == APIError.creativeRefused.code ? error.message : "\(error.code): \(error.message)"
        } catch {
            return "\(error)"
        }
    }

    @Test("a GIF's and an MP4's durationMs come back from creative.upload and reach apps in launch.query, GET /launch-ad, launch.prefetch and creative.get; a video over the image limit but under the video limit is taken; QuickTime, HEIC and AVIF are refused by name")
    func endToEnd() async throws {
        try await withStopping(CampaignFixture(arguments: ["--max-creative-bytes", "1500", "--max-video-bytes", "6000"])) { campaignd in
            try await Self.check(campaignd)
        }
    }

    static func check(_ campaignd: CampaignFixture) async throws {
        let admin = try campaignd.admin()

        // 4 frames of 0.5 s, one of them given 0 (drawn as 100 ms): 1.6 s.
        let gif = MediaBytes.gif(width: 1080, height: 1920, delays: [50, 50, 0, 50])
        // 5.005 s of 1080x1920 at 29.97 fps, 4000 bytes of media: over the image limit, within the video limit.
        let mp4 = MediaBytes.isoMedia(version: 1, timescale: 1000, duration: 5_100,
                                      tracks: [MediaBytes.Track(width: 1080, height: 1920, timescale: 30_000, duration: 150_150)], mediaBytes: 4_000)
        #expect(mp4.count > 1500 && mp4.count < 6000)
        let gifFacts = try await Self.upload(admin, "image/gif", gif)
        let mp4Facts = try await Self.upload(admin, "video/mp4", mp4)
        #expect(gifFacts == CreativeFacts(sha256: gifFacts.sha256, contentType: "image/gif", width: 1080, height: 1920, size: gif.count, durationMs: 1_600))
        #expect(mp4Facts == CreativeFacts(sha256: mp4Facts.sha256, contentType: "video/mp4", width: 1080, height: 1920, size: mp4.count, durationMs: 5_005))

        // An image as large is over its own limit; a video over the video limit too; each refusal names its limit.
        let bigPNG = CampaignFixture.png(width: 1080, height: 1920) + [UInt8](repeating: 7, count: 2_000)
        #expect(await Self.refusal(admin, "image/png", bigPNG) == "creative refused: \(bigPNG.count) bytes, the limit for images is 1500")
        let bigMP4 = MediaBytes.isoMedia(duration: 5_000, tracks: [MediaBytes.Track(width: 1080, height: 1920, timescale: 600, duration: 3_000)],
                                         mediaBytes: 6_000)
        // (Past the largest limit of all, it is refused before its bytes are decoded.)
        #expect(await Self.refusal(admin, "video/mp4", bigMP4) == "creative refused: larger than the limit of 6000 bytes")
        // QuickTime, HEIC and AVIF, each named.
        let movie = MediaBytes.isoMedia(brand: "qt  ", compatible: ["qt  "], duration: 5_000,
                                        tracks: [MediaBytes.Track(width: 1080, height: 1920, timescale: 600, duration: 3_000)])
        #expect(await Self.refusal(admin, "video/mp4", movie)?.contains("creative refused: a QuickTime movie (brand qt), not an MP4") == true)
        #expect(await Self.refusal(admin, "video/quicktime", movie)?.contains("QuickTime") == true)
        #expect(await Self.refusal(admin, "image/heic", MediaBytes.heif(brand: "heic", compatible: ["mif1", "heic"]))?
            .hasPrefix("creative refused: a HEIC/HEIF image (brand heic)") == true)
        #expect(await Self.refusal(admin, "image/avif", MediaBytes.heif(brand: "avif", compatible: ["avif", "mif1"]))?
            .hasPrefix("creative refused: an AVIF image (brand avif)") == true)

        // A campaign for each, in apps of their own, and an edge that holds them.
        var seq: Int64 = 0
        for (app, facts) in [("gifs", gifFacts), ("clips", mp4Facts)] {
            seq = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(app: app, creative: facts.sha256)).seq
        }
        try await withStopping(campaignd.startEdge("edge-media")) { edge in
            #expect(await edge.waitFor(seq: seq, creatives: 2))

            for (app, facts) in [("gifs", gifFacts), ("clips", mp4Facts)] {
                let answer = try await edge.query(LaunchQueryParams(app: app, platform: "ios", appVersion: "5.2.0", deviceId: "d-1"))
                #expect(answer.creative == facts, "\(app)")
                // The answer's bytes as an app reads them, not only as this codec does.
                let raw = try await edge.client.call(ClientAPI.launchQuery.name, params: JSONValueEncoder().encode(
                    LaunchQueryParams(app: app, platform: "ios", appVersion: "5.2.0", deviceId: "d-2")))
                #expect(raw["creative"]?["durationMs"] == .number(JSONNumber(facts.durationMs)), "\(app)")

                let connection = try HTTPTestConnection(edge.endpoints["http"]!)
                connection.send(HTTPTestConnection.request("GET", "/launch-ad?app=\(app)&platform=ios&appVersion=5.2.0&deviceId=d-3"))
                let classic = try #require(connection.response())
                #expect(try JSONParser.parse(classic.body)["data"]?["creative"]?["durationMs"] == .number(JSONNumber(facts.durationMs)), "\(app)")

                let prefetch = try await edge.client.call(ClientAPI.launchPrefetch, LaunchPrefetchParams(app: app, platform: "ios", appVersion: "5.2.0"))
                #expect(prefetch.download.map(\.durationMs) == [facts.durationMs], "\(app)")
                let chunk = try await edge.client.call(ClientAPI.creativeGet, CreativeChunkParams(sha256: facts.sha256, offset: 0, length: 16))
                #expect(chunk.durationMs == facts.durationMs, "\(app)")
            }
            await admin.close()
        }
    }
}
