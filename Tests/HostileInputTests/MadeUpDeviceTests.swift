import DeliveryService
import Foundation
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdTesting
import Testing

/// Reports for made-up device ids, sent to a real edge's client socket: they cannot make it hold more than its device
/// budget, nor push out a real device faster than the budget's rule says.
@Suite("made-up device ids in reports", .timeLimit(.minutes(3)))
struct MadeUpDeviceTests {
    /// The edge's metric named `name` (a gauge or counter without labels).
    static func metric(_ edge: EdgeClient, _ name: String) async throws -> Double {
        try #require(try await edge.metrics().value(name), "no \(name)")
    }

    @Test("a flood of made-up devices stays within the budget; a real device reported just before keeps its cap through the number the rule gives")
    func madeUpDevices() async throws {
        try await withCampaignService { fixture in
            let admin = try fixture.admin()
            let creative = try await fixture.uploadPNG(admin)
            var fields = CampaignFixture.fields(name: "capped", creative: creative)
            fields.frequencyCap = FrequencyCap(shows: 1, hours: 24)
            let created = try await admin.call(AdminAPI.campaignCreate, fields)
            let id = created.campaign.id
            var configuration = DeliveryServiceConfiguration()
            configuration.deviceMemoryBytes = DeliveryServiceConfiguration.minDeviceMemoryBytes
            let budget = configuration.deviceMemoryBytes  // 2 MiB of it for devices' views and slots
            try await withEdge("edge-made-up", connectedTo: fixture, configure: { $0.deviceMemoryBytes = budget }) { edge in
                #expect(await edge.waitFor(seq: created.seq, creatives: 1))
                func query(_ device: String) async throws -> Int64? {
                    try await edge.query(LaunchQueryParams(app: "shop", platform: "ios", appVersion: "5.2.0", deviceId: device)).id
                }
                var sent = 0
                /// `count` made-up devices' impressions, 100 to a report, each a new device id and event id.
                func flood(_ count: Int) async throws {
                    var left = count
                    while left > 0 {
                        let events = (0..<min(100, left)).map { index in
                            LaunchEvent(eventId: "x-\(sent + index)", type: .impression, campaignId: id, deviceId: "made-up-\(sent + index)-\(UUID().uuidString)")
                        }
                        let result = try await edge.client.call(ClientAPI.launchReport, LaunchReportParams(events: events))
                        #expect(result.accepted == events.count)
                        sent += events.count
                        left -= events.count
                    }
                }
                let deviceBudget = Double(configuration.deviceHistoryBytes)
                #expect(deviceBudget == Double(2 << 20))
                #expect(try await Self.metric(edge, "launchad_deliveryd_device_memory_budget_bytes") == deviceBudget)

                #expect(try await query("real") == id)
                _ = try await edge.client.call(ClientAPI.launchReport, LaunchReportParams(events: [
                    LaunchEvent(eventId: "real-1", type: .impression, campaignId: id, deviceId: "real"),
                ]))
                #expect(try await query("real") == nil)
                // The rule: half the devices' budget over the most a made-up device's first report adds (no variant here:
                // an 80-byte view and at most 64 bytes of slots).
                let guaranteed = (Int(deviceBudget) / 2 - 1_024) / 144
                try await flood(guaranteed)
                #expect(try await query("real") == nil, "the real device's cap was forgotten within \(guaranteed) made-up devices")
                // Far more than the budget holds: the memory stays within it, and devices are forgotten.
                try await flood(60_000)
                #expect(try await Self.metric(edge, "launchad_deliveryd_device_memory_bytes") <= deviceBudget)
                #expect(try await Self.metric(edge, "launchad_deliveryd_devices_forgotten_total") > 0)
                let kept = try await Self.metric(edge, "launchad_deliveryd_devices")
                #expect(kept >= Double(guaranteed) && kept < Double(sent))
                // The real device was forgotten with the flood: the cost the trade-off names (the ad shows again).
                #expect(try await query("real") == id)
            }
            await admin.close()
        }
    }
}
