import Foundation
import LaunchAdAPI
import LaunchAdTesting
import Testing

/// A campaignd upgraded over a database of an older one: the creatives it holds get their length before it serves.
@Suite("Creatives' lengths at campaignd's start", .timeLimit(.minutes(2)))
struct DurationsAtStartTests {
    @Test("campaignd started on a database written before durations reads its GIFs' and videos' lengths from their bytes before it serves them to edges")
    func olderDatabase() async throws {
        try await withStopping(CampaignFixture()) { fixture in
            let admin = try fixture.admin()
            let gif = MediaBytes.gif(width: 1080, height: 1920, delays: [30, 30, 45])
            let video = MediaBytes.isoMedia(duration: 4_000, tracks: [MediaBytes.Track(width: 1080, height: 1920, timescale: 600, duration: 2_400)])
            var stored: [String: Int] = [:]
            for (type, bytes) in [("image/gif", gif), ("video/mp4", video)] {
                let facts = try await admin.call(AdminAPI.creativeUpload, CreativeUploadParams(contentType: type, data: Data(bytes).base64EncodedString()))
                stored[facts.sha256] = facts.durationMs
            }
            #expect(Set(stored.values) == [1_050, 4_000])
            await admin.close()
            // Down, the database is made as an older campaignd left it: no column for the length, and no record of adding it.
            try await fixture.restart(signal: SIGTERM) { data in
                let sql = "ALTER TABLE creatives DROP COLUMN duration_ms; DELETE FROM grdb_migrations WHERE identifier = 'v8 creative durations';"
                let result = try runTool("sqlite3", ["-bail", data.appendingPathComponent("campaigns.sqlite").path, sql])
                #expect(result.status == 0, "\(result.error)")
            }
            #expect(fixture.process.log.contains("creatives given their duration"), "\(fixture.process.log)")
            let sync = try fixture.sync()
            for (sha256, durationMs) in stored {
                #expect(try await sync.call(SyncAPI.creative, CreativeChunkParams(sha256: sha256, offset: 0, length: 8)).durationMs == durationMs)
            }
            await sync.close()
        }
    }
}
