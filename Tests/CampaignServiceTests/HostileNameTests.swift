import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdTesting
import Testing

@Suite("campaignd refuses names that would lie on an operator's screen", .timeLimit(.minutes(2)))
struct HostileNameTests {
    /// Names no operator should be shown raw, and the rule each breaks.
    static let hostile: [(label: String, name: String, rule: String)] = [
        ("a newline", "Sale\nFORGED 9 row", "must not contain control characters or line breaks (it has \\u{0A})"),
        ("an escape sequence", "Sale\u{1B}[2J", "must not contain control characters or line breaks (it has \\u{1B})"),
        ("a NUL", "Sale\u{0}", "must not contain control characters or line breaks (it has \\u{00})"),
        ("a C1 control", "Sale\u{9B}2J", "must not contain control characters or line breaks (it has \\u{9B})"),
        ("a right-to-left override", "Invoice \u{202E}gpj.exe", "must not contain bidirectional controls (it has \\u{202E})"),
        ("an isolate", "\u{2067}Sale", "must not contain bidirectional controls (it has \\u{2067})"),
        ("only zero-width characters", "\u{200B}\u{200C}\u{200D}\u{2060}\u{FEFF}", "must not be empty (spaces and invisible characters alone do not count)"),
        ("only spaces and a filler", " \u{3000}\u{3164} ", "must not be empty (spaces and invisible characters alone do not count)"),
        ("one letter and 1.5 million combining accents", "e" + String(repeating: "\u{0301}", count: 1_500_000),
         "must be at most 800 bytes of UTF-8 (it has 3000001)"),
        ("201 characters", String(repeating: "x", count: 201), "must be at most 200 characters"),
    ]

    @Test("Each hostile name is refused on create and on update with the field and the rule named; nothing is stored")
    func refused() async throws {
        try await withCampaignService { service in
            let admin = try service.admin(timeout: .seconds(30))
            let creative = try await service.uploadPNG(admin)
            let kept = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "Autumn sale", creative: creative)).campaign
            for (label, name, rule) in Self.hostile {
                let expected = JSONRPCError.invalidParams(field: "name", rule)
                await #expect(throws: expected, "create with \(label)") {
                    try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: name, creative: creative))
                }
                var fields = CampaignFields()
                fields.name = name
                await #expect(throws: expected, "update with \(label)") {
                    try await admin.call(AdminAPI.campaignUpdate, CampaignUpdateParams(id: kept.id, fields: fields))
                }
            }
            let list = try await admin.call(AdminAPI.campaignList, CampaignListParams()).campaigns
            #expect(list.map(\.name) == ["Autumn sale"] && list.first?.version == 1)
            // What people write is still welcome: scripts, emoji, accents, joiners inside a word.
            for name in ["双十二大促", "Ünïcödé ✓ 🎉", "👨‍👩‍👧 family", "עברית 12", "می‌خواهم"] {
                var fields = CampaignFields()
                fields.name = name
                #expect(try await admin.call(AdminAPI.campaignUpdate, CampaignUpdateParams(id: kept.id, fields: fields)).campaign.name == name)
            }
            await admin.close()
        }
    }

    @Test("An edge's id, region and relay path with a control or bidirectional character are refused on edge.ack, edge.acks and edge.report, naming the field; none is listed")
    func edgeFields() async throws {
        try await withCampaignService { service in
            let sync = try service.sync()
            let admin = try service.admin()
            let epoch = service.app.store.epoch
            let rule = "must be \(EdgeID.rule)", regionRule = "must be \(Region.rule)"
            let acks: [(EdgeAck, String, String)] = [
                (EdgeAck(edgeId: "edge\n1", region: "east", epoch: epoch, appliedSeq: 0), "edgeId", rule),
                (EdgeAck(edgeId: "edge\u{1B}]0;owned\u{07}", region: "east", epoch: epoch, appliedSeq: 0), "edgeId", rule),
                (EdgeAck(edgeId: "\u{200B}", region: "east", epoch: epoch, appliedSeq: 0), "edgeId", rule),
                (EdgeAck(edgeId: "edge-1", region: "east\u{202E}tsew", epoch: epoch, appliedSeq: 0), "region", regionRule),
                (EdgeAck(edgeId: "edge-1", region: "", epoch: epoch, appliedSeq: 0), "region", regionRule),
                (EdgeAck(edgeId: "edge-1", region: "east", epoch: epoch, appliedSeq: 0, via: ["relay\u{0}"]), "via",
                 "each relay id must be \(EdgeID.rule)"),
            ]
            for (ack, field, reason) in acks {
                await #expect(throws: JSONRPCError.invalidParams(field: field, reason)) { try await sync.call(SyncAPI.ack, ack) }
                await #expect(throws: JSONRPCError.invalidParams(field: "acks[0].\(field)", reason)) {
                    try await sync.call(SyncAPI.acks, EdgeAcks(acks: [ack]))
                }
            }
            await #expect(throws: JSONRPCError.invalidParams(field: "edgeId", rule)) {
                try await sync.call(SyncAPI.report, EdgeReport(edgeId: "edge\r\nforged", reportId: 1, counts: []))
            }
            await #expect(throws: JSONRPCError.invalidParams(field: "region", regionRule)) {
                try await sync.call(SyncAPI.report, EdgeReport(edgeId: "edge-1", reportId: 1, counts: [], region: "\u{2066}east"))
            }
            #expect(try await admin.call(AdminAPI.edgeList, NoParams()).edges.isEmpty)
            await sync.close()
            await admin.close()
        }
    }
}
