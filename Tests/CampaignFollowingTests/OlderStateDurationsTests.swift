@testable import CampaignFollowing
@testable import DurableFiles
import Foundation
import JSONRPC
import LaunchAdDomain
import LaunchAdTesting
import Logging
import Testing
import ZeroMQ

/// An edge or relay upgraded over a state saved before creatives' durations were kept answers their real lengths.
@Suite("durations of creatives held in an older state", .timeLimit(.minutes(1)))
struct OlderStateDurationsTests {
    @Test("an older state's GIF and MP4, held on disk without durationMs, get theirs from their bytes at load; a still image stays 0")
    func readFromTheBytes() throws {
        let directory = try makeTemporaryDirectory("older-durations")
        defer { removeTemporaryDirectory(directory) }
        let gif = MediaBytes.gif(width: 8, height: 8, delays: [50, 70, 30])  // 1.5 s
        let mp4 = MediaBytes.isoMedia(duration: 4_100, tracks: [MediaBytes.Track(width: 1080, height: 1920, timescale: 1_000, duration: 4_000)])
        let still = MediaBytes.gif(width: 8, height: 8, delays: [50])
        let files = try CreativeFiles(directory: directory.path)
        var listed: [String] = []
        for (bytes, type) in [(gif, "image/gif"), (mp4, "video/mp4"), (still, "image/gif")] {
            let sha256 = CreativeFiles.name(of: bytes)
            try files.store(bytes, sha256: sha256)
            listed.append(#"{"sha256":"\#(sha256)","contentType":"\#(type)","width":8,"height":8,"size":\#(bytes.count)}"#)
        }
        let older = #"{"epoch":"old","seq":3,"campaigns":[],"creatives":[\#(listed.joined(separator: ","))]}"#
        try Data(ChecksummedFile.contents(body: Array(older.utf8))).write(to: directory.appendingPathComponent("state.json"))

        let configuration = FollowingConfiguration(cacheDirectory: directory.path, followerId: "edge-1")
        let followed = try FollowedState(configuration: configuration, context: try ZMQContext(), curve: nil,
                                         logger: Logger(label: "older-durations"), clock: { .now() })
        let held = followed.cell.state.creatives
        #expect(held[CreativeFiles.name(of: gif)]?.durationMs == 1_500)
        #expect(held[CreativeFiles.name(of: mp4)]?.durationMs == 4_000)
        #expect(held[CreativeFiles.name(of: still)]?.durationMs == 0)
        #expect(held.count == 3)
    }
}
