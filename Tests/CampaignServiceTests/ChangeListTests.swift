import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdRuntime
import LaunchAdTesting
import Testing
import ZMQRPC
import ZeroMQ

@Suite("campaignd's change log: change.list", .timeLimit(.minutes(3)))
struct ChangeListTests {
    @Test("change.list answers who, what and when, one campaign or all, a page at a time; bad params are refused")
    func pages() async throws {
        try await withCampaignService { fixture in
            let admin = try fixture.admin()
            let creative = try await fixture.uploadPNG(admin)
            let first = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "a", creative: creative, startIn: 600)).campaign
            let second = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "b", creative: creative, startIn: 600)).campaign
            var fields = CampaignFields()
            fields.priority = 90
            fields.name = "a2"
            _ = try await admin.call(AdminAPI.campaignUpdate, CampaignUpdateParams(id: first.id, fields: fields))
            _ = try await admin.call(AdminAPI.campaignPause, CampaignID(id: second.id))
            _ = try await admin.call(AdminAPI.campaignForce, CampaignID(id: first.id))

            let all = try await admin.call(AdminAPI.changeList, ChangeListParams())
            #expect(all.changes.map(\.seq) == [1, 2, 3, 4, 5] && all.next == nil)
            #expect(all.changes.map(\.op) == [.created, .created, .updated, .paused, .forced])
            #expect(all.changes.allSatisfy { $0.actor == "local" })
            #expect(all.changes.map(\.fields) == [[], [], ["name", "priority"], ["state"], ["forced"]])
            #expect(all.changes.map(\.version) == [1, 1, 2, 2, 3])

            let mine = try await admin.call(AdminAPI.changeList, ChangeListParams(id: first.id))
            #expect(mine.changes.map(\.seq) == [1, 3, 5] && mine.changes.allSatisfy { $0.id == first.id })
            let page = try await admin.call(AdminAPI.changeList, ChangeListParams(after: 1, limit: 2))
            #expect(page.changes.map(\.seq) == [2, 3] && page.next == 3)
            let last = try await admin.call(AdminAPI.changeList, ChangeListParams(after: 3, limit: 2))
            #expect(last.changes.map(\.seq) == [4, 5] && last.next == 5)
            #expect(try await admin.call(AdminAPI.changeList, ChangeListParams(after: 5, limit: 2)).changes.isEmpty)

            await #expect { try await admin.call(AdminAPI.changeList, ChangeListParams(limit: ChangeListParams.maxLimit + 1)) } throws: { error in
                let error = error as? JSONRPCError
                return error?.code == -32602 && error?.data?["field"] == "limit"
            }
            await #expect { try await admin.call(AdminAPI.changeList, ChangeListParams(limit: 0)) } throws: { ($0 as? JSONRPCError)?.code == -32602 }
            await #expect { try await admin.call(AdminAPI.changeList, ChangeListParams(after: -1)) } throws: { ($0 as? JSONRPCError)?.code == -32602 }
            await #expect { try await admin.call(AdminAPI.changeList, ChangeListParams(id: 99)) } throws: {
                ($0 as? JSONRPCError)?.code == APIError.campaignNotFound.code
            }
            await admin.close()
        }
    }

    @Test("with CURVE, the change log names the operator by the key's file in admin/")
    func namedActor() async throws {
        let directory = try makeTemporaryDirectory("history-keys")
        defer { removeTemporaryDirectory(directory) }
        let keys = directory.appendingPathComponent("campaignd")
        let server = try KeysDirectory.generate(name: "campaignd", in: keys.path)
        let alice = try KeysDirectory.generate(name: "alice", in: keys.appendingPathComponent("admin").path)
        try await withCampaignService(configure: { $0.keysDirectory = keys.path }) { fixture in
            var configuration = RPCClientConfiguration(endpoint: try #require(fixture.endpoints["admin"]))
            configuration.curve = CurveClientOptions(serverKey: server.publicKey, keyPair: alice)
            let admin = try RPCClient(context: fixture.context, configuration: configuration)
            let creative = try await fixture.uploadPNG(admin)
            let created = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(creative: creative, startIn: 600)).campaign
            _ = try await admin.call(AdminAPI.campaignPause, CampaignID(id: created.id))
            let log = try await admin.call(AdminAPI.changeList, ChangeListParams(id: created.id))
            #expect(log.changes.map(\.actor) == ["alice", "alice"])
            #expect(log.changes.map(\.op) == [.created, .paused])
            await admin.close()
        }
    }
}
