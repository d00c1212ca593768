import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdTesting
import Testing

/// campaignd's entry points that take an app id or a region, over its real sockets: each refuses the values
/// ``AppID`` and ``Region`` refuse, with an error naming its own field, and stores nothing of them.
@Suite("campaignd refuses a bad app id or region on every socket, naming the field", .timeLimit(.minutes(2)))
struct NameRuleRefusalTests {
    static let badApps = ["", "Shop", "shop app", "shop/..", String(repeating: "a", count: 65)]
    static let badRegions = ["", "-east", "cn east", "cn_east", "ea\u{202E}st", String(repeating: "r", count: 33)]

    @Test("campaign.create, campaign.update, campaign.list, app.stats, edge.ack and edge.report refuse each bad value; good ones in any case are taken")
    func refused() async throws {
        try await withCampaignService { service in
            let admin = try service.admin(timeout: .seconds(30))
            let sync = try service.sync()
            let creative = try await service.uploadPNG(admin)
            let kept = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(app: "-shop.v2_", creative: creative)).campaign
            let appRule = "must be \(AppID.rule)", regionRule = "must be \(Region.rule)"
            for app in Self.badApps {
                await #expect(throws: JSONRPCError.invalidParams(field: "app", appRule), "\(app)") {
                    try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(app: app, creative: creative))
                }
                var fields = CampaignFields()
                fields.app = app
                await #expect(throws: JSONRPCError.invalidParams(field: "app", appRule), "\(app)") {
                    try await admin.call(AdminAPI.campaignUpdate, CampaignUpdateParams(id: kept.id, fields: fields))
                }
                await #expect(throws: JSONRPCError.invalidParams(field: "app", appRule), "\(app)") {
                    try await admin.call(AdminAPI.campaignList, CampaignListParams(app: app))
                }
                await #expect(throws: JSONRPCError.invalidParams(field: "app", appRule), "\(app)") {
                    try await admin.call(AdminAPI.appStats, AppStatsParams(app: app))
                }
            }
            let epoch = service.app.store.epoch
            for region in Self.badRegions {
                var fields = CampaignFields()
                fields.targeting = Targeting(regions: ["cn-north", region])
                await #expect(throws: JSONRPCError.invalidParams(field: "targeting.regions[1]", regionRule), "\(region)") {
                    try await admin.call(AdminAPI.campaignUpdate, CampaignUpdateParams(id: kept.id, fields: fields))
                }
                await #expect(throws: JSONRPCError.invalidParams(field: "region", regionRule), "\(region)") {
                    try await sync.call(SyncAPI.ack, EdgeAck(edgeId: "edge-1", region: region, epoch: epoch, appliedSeq: 0))
                }
                await #expect(throws: JSONRPCError.invalidParams(field: "region", regionRule), "\(region)") {
                    try await sync.call(SyncAPI.report, EdgeReport(edgeId: "edge-1", reportId: 1, counts: [], region: region))
                }
            }
            // Nothing of the refused values was kept; a region in another case is kept in lower case.
            #expect(try await admin.call(AdminAPI.campaignList, CampaignListParams()).campaigns.map(\.app) == ["-shop.v2_"])
            #expect(try await admin.call(AdminAPI.edgeList, NoParams()).edges.isEmpty)
            var fields = CampaignFields()
            fields.targeting = Targeting(regions: ["CN-East"])
            let updated = try await admin.call(AdminAPI.campaignUpdate, CampaignUpdateParams(id: kept.id, fields: fields)).campaign
            #expect(updated.targeting.regions == ["cn-east"] && updated.version == 2)
            await sync.close()
            await admin.close()
        }
    }
}
