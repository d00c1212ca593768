import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdTesting
import Testing

@Suite("campaignd keeps a campaign's advertiser and paidBy", .timeLimit(.minutes(2)))
struct CampaignPartyTests {
    @Test("advertiser and paidBy are stored on create, changed on update, answered by get and list, named in the change log, refused naming the field",
          arguments: StoreEngine.allCases)
    func endToEnd(engine: StoreEngine) async throws {
        try await withCampaignService(engine: engine) { service in
            let admin = try service.admin(timeout: .seconds(30))
            let creative = try await service.uploadPNG(admin)
            var fields = CampaignFixture.fields(name: "Autumn sale", creative: creative)
            fields.advertiser = "Shop \"A\" <script>&'"
            let created = try await admin.call(AdminAPI.campaignCreate, fields).campaign
            #expect(created.advertiser == fields.advertiser && created.paidBy == nil)
            let plain = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "Plain", creative: creative)).campaign
            #expect(plain.advertiser == nil && plain.paidBy == nil)

            var change = CampaignFields()
            change.paidBy = "双十一 Holdings"
            let updated = try await admin.call(AdminAPI.campaignUpdate, CampaignUpdateParams(id: created.id, fields: change)).campaign
            #expect(updated.advertiser == fields.advertiser && updated.paidBy == "双十一 Holdings" && updated.version == 2)

            // Read back from the store as it was written, and an unset one absent from the JSON, not null.
            let got = try await admin.call(AdminAPI.campaignGet, CampaignID(id: created.id)).campaign
            #expect(got == updated)
            let listed = try await admin.call(AdminAPI.campaignList, CampaignListParams()).campaigns
            #expect(listed.first { $0.id == created.id } == updated)
            let raw = try await admin.call("campaign.get", params: ["id": .number(JSONNumber(plain.id))])
            #expect(raw["campaign"]?["name"] == .string("Plain"))
            #expect(raw["campaign"]?.objectValue?.keys.contains("advertiser") == false)
            #expect(raw["campaign"]?.objectValue?.keys.contains("paidBy") == false)

            let log = try await admin.call(AdminAPI.changeList, ChangeListParams(id: created.id)).changes
            #expect(log.map(\.op) == [.created, .updated] && log.last?.fields == ["paidBy"])

            for (field, value, rule) in [("advertiser", "Shop\nForged", "must not contain control characters or line breaks (it has \\u{0A})"),
                                         ("paidBy", String(repeating: "x", count: 101), "must be at most 100 characters"),
                                         ("advertiser", " Shop", "must not begin or end with a space")] {
                var bad = CampaignFields()
                bad[keyPath: field == "advertiser" ? \CampaignFields.advertiser : \CampaignFields.paidBy] = value
                let expected = JSONRPCError.invalidParams(field: field, rule)
                await #expect(throws: expected, "update \(field)") {
                    try await admin.call(AdminAPI.campaignUpdate, CampaignUpdateParams(id: created.id, fields: bad))
                }
                var create = CampaignFixture.fields(name: "Refused", creative: creative)
                create[keyPath: field == "advertiser" ? \CampaignFields.advertiser : \CampaignFields.paidBy] = value
                await #expect(throws: expected, "create \(field)") { try await admin.call(AdminAPI.campaignCreate, create) }
            }
            // A value of the wrong type is refused by the params' reader, naming the field.
            do {
                _ = try await admin.call("campaign.update", params: ["id": .number(JSONNumber(created.id)), "paidBy": .number(JSONNumber(5))])
                Issue.record("a number for paidBy was taken")
            } catch let error as JSONRPCError {
                #expect(error.code == -32602 && error.data?["field"] == .string("paidBy"), "\(error)")
            }
            #expect(try await admin.call(AdminAPI.campaignList, CampaignListParams()).campaigns.count == 2)
            #expect(try await admin.call(AdminAPI.campaignGet, CampaignID(id: created.id)).campaign.version == 2)
            await admin.close()
        }
    }
}
