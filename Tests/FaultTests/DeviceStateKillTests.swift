@testable import DeliveryService
import Foundation
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdTesting
import Testing

extension FaultTests {
    /// Caps and rotation across restarts of a real `deliveryd`: a capped ad is not shown again because an edge restarted.
    @Suite("device state across restarts", .serialized, .timeLimit(.minutes(5)))
    struct DeviceStateKillTests {
        @Test("a capped ad stays capped across kill -9 once the devices' file was saved, and across SIGTERM at once after a report")
        func capsOutliveRestarts() async throws {
            try await withStopping(CampaignFixture()) { fixture in
                let admin = try fixture.admin()
                let creative = try await fixture.uploadPNG(admin)
                var fields = CampaignFixture.fields(name: "capped", creative: creative)
                fields.frequencyCap = FrequencyCap(shows: 1, hours: 24)
                let created = try await admin.call(AdminAPI.campaignCreate, fields)
                let name = "edge-caps"
                var edge = try await fixture.startEdge(name, arguments: ["--device-memory-bytes", "\(8 << 20)"])
                #expect(await edge.waitFor(seq: created.seq, creatives: 1))
                func query(_ device: String) async throws -> Int64? {
                    try await edge.query(LaunchQueryParams(app: "shop", platform: "ios", appVersion: "5.2.0", deviceId: device)).id
                }
                func shown(_ device: String, event: String) async throws {
                    let result = try await edge.client.call(ClientAPI.launchReport, LaunchReportParams(events: [
                        LaunchEvent(eventId: event, type: .impression, campaignId: created.campaign.id, deviceId: device),
                    ]))
                    #expect(result.accepted == 1)
                }
                let file = DeviceFile(directory: fixture.cacheDirectory(name))
                // Read without acting on it (the edge's own read sets aside a file it cannot use).
                func saved(_ devices: Int) -> Bool {
                    (try? Data(contentsOf: file.url)).flatMap { $0.withUnsafeBytes { DeviceFile.parse($0) } }.map { $0.1.count >= devices } ?? false
                }

                #expect(try await query("d-capped") == created.campaign.id)
                try await shown("d-capped", event: "e-1")
                #expect(try await query("d-capped") == nil, "capped before any restart")
                // kill -9 once the devices' file holds it (a save comes within the save interval, 5 s).
                #expect(await eventually(timeout: .seconds(20)) { saved(1) })
                await edge.stop(signal: SIGKILL)
                edge = try await fixture.startEdge(name, arguments: ["--device-memory-bytes", "\(8 << 20)"])
                #expect(await edge.waitFor(seq: created.seq, creatives: 1))
                #expect(try await query("d-capped") == nil, "a capped ad was shown again after kill -9")
                #expect(try await query("d-other") == created.campaign.id, "another device is not capped")

                // SIGTERM right after a report: the way out saves it.
                try await shown("d-other", event: "e-2")
                await edge.stop(signal: SIGTERM)
                edge = try await fixture.startEdge(name, arguments: ["--device-memory-bytes", "\(8 << 20)"])
                #expect(await edge.waitFor(seq: created.seq, creatives: 1))
                #expect(try await query("d-other") == nil, "a capped ad was shown again after SIGTERM")
                #expect(try await query("d-capped") == nil)
                #expect(try await query("d-third") == created.campaign.id)

                // A file that does not verify is never trusted, nor overwritten: the edge sets it aside, whole, and starts with
                // no device known.
                await edge.stop(signal: SIGKILL)
                var bytes = try Data(contentsOf: file.url)
                bytes[bytes.count / 2] ^= 0x40
                try bytes.write(to: file.url)
                edge = try await fixture.startEdge(name, arguments: ["--device-memory-bytes", "\(8 << 20)"])
                #expect(await edge.waitFor(seq: created.seq, creatives: 1))
                #expect(try await query("d-capped") == created.campaign.id)
                #expect(edge.log.contains("a devices' file that could not be used was set aside"))
                let folder = fixture.cacheDirectory(name)
                let aside = try filesSetAside(DeviceFile.name, in: folder)
                #expect(aside.count == 1)
                #expect(try aside.first.map { try Data(contentsOf: folder.appendingPathComponent($0)) } == bytes, "the file set aside is not the one found")
                await edge.stop()
                await admin.close()
            }
        }
    }
}
