import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdTesting
import Testing

@Suite("campaignd keeps a campaign's delivery goal and pacing", .timeLimit(.minutes(2)))
struct CampaignGoalTests {
    @Test("goal and pacing are stored on create (even by default), changed on update, answered by get, named in the change log, refused naming the field",
          arguments: StoreEngine.allCases)
    func endToEnd(engine: StoreEngine) async throws {
        try await withCampaignService(engine: engine) { service in
            let admin = try service.admin(timeout: .seconds(30))
            let creative = try await service.uploadPNG(admin)
            var fields = CampaignFixture.fields(name: "Daily million", creative: creative)
            fields.goal = CampaignGoal(impressions: 1_000_000, per: .day)
            let created = try await admin.call(AdminAPI.campaignCreate, fields).campaign
            #expect(created.goal == fields.goal && created.pacing == .even)

            let updated = try await admin.call(AdminAPI.campaignUpdate, CampaignUpdateParams(id: created.id, fields: CampaignFields(pacing: .asap))).campaign
            #expect(updated.goal == fields.goal && updated.pacing == .asap && updated.version == 2)
            let got = try await admin.call(AdminAPI.campaignGet, CampaignID(id: created.id)).campaign
            #expect(got == updated)
            let raw = try await admin.call("campaign.get", params: ["id": .number(JSONNumber(created.id))])
            #expect(raw["campaign"]?["goal"]?["per"] == .string("day") && raw["campaign"]?["pacing"] == .string("asap"))
            let log = try await admin.call(AdminAPI.changeList, ChangeListParams(id: created.id)).changes
            #expect(log.map(\.op) == [.created, .updated] && log.last?.fields == ["pacing"])

            // A pacing with nothing to pace, and a goal out of bounds, each refused naming its field.
            var unpaced = CampaignFixture.fields(name: "No goal", creative: creative)
            unpaced.pacing = .even
            await #expect(throws: JSONRPCError.invalidParams(field: "pacing", "applies only with a goal")) {
                try await admin.call(AdminAPI.campaignCreate, unpaced)
            }
            await #expect(throws: JSONRPCError.invalidParams(field: "goal.impressions", "must be between 1 and 1000000000000")) {
                try await admin.call(AdminAPI.campaignUpdate, CampaignUpdateParams(
                    id: created.id, fields: CampaignFields(goal: CampaignGoal(impressions: 0, per: .campaign))))
            }
            // A period that is not one is refused by the params' reader, naming the member.
            do {
                _ = try await admin.call("campaign.update", params: [
                    "id": .number(JSONNumber(created.id)),
                    "goal": .object(["impressions": .number(JSONNumber(5)), "per": .string("week")]),
                ])
                Issue.record("a goal per week was taken")
            } catch let error as JSONRPCError {
                #expect(error.code == -32602 && error.data?["field"] == .string("goal.per"), "\(error)")
            }
            #expect(try await admin.call(AdminAPI.campaignGet, CampaignID(id: created.id)).campaign.version == 2)
            await admin.close()
        }
    }
}
