@testable import DeliveryService
import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdTesting
import Testing
import ZMQRPC

@Suite("the launch answer carries the campaign's advertiser and paidBy", .timeLimit(.minutes(2)))
struct CampaignPartyAnswerTests {
    @Test("over ZeroMQ, POST /rpc and GET /launch-ad: absent (not null) while unset, then as campaignd has them, escaped as JSON")
    func everyBinding() async throws {
        try await HTTPRPCTests.withLiveEdge { edge, admin, campaign, fixture in
            let peer = try TestPeer(fixture.context, type: .dealer, endpoint: edge.endpoints["client"]!)
            let http = try HTTPTestConnection(edge.endpoints["http"]!)
            let call = #"{"jsonrpc":"2.0","id":1,"method":"launch.query","params":{"app":"shop","platform":"ios","appVersion":"5.2.0","deviceId":"d-1"}}"#
            /// Each binding's answer: its bytes and its parsed object.
            func answers() async throws -> [(String, String, JSONValue)] {
                let zmq = try #require(try await HTTPRPCTests.overZeroMQ(peer, call))
                #expect(http.send(HTTPTestConnection.rpc(call)))
                let rpc = try #require(http.response())
                http.send(HTTPTestConnection.request("GET", LaunchAdRouteTests.base + "&deviceId=d-1"))
                let classic = try #require(http.response())
                return [("zeromq", String(decoding: zmq, as: UTF8.self), try #require(try JSONParser.parse(zmq)["result"])),
                        ("rpc", String(decoding: rpc.body, as: UTF8.self), try #require(try JSONParser.parse(rpc.body)["result"])),
                        ("launch-ad", String(decoding: classic.body, as: UTF8.self), try #require(try JSONParser.parse(classic.body)["data"]))]
            }
            for (binding, text, answer) in try await answers() {
                #expect(answer["hasAd"] == .bool(true), "\(binding)")
                #expect(!text.contains("advertiser") && !text.contains("paidBy"), "\(binding): \(text)")
            }

            var fields = CampaignFields()
            fields.advertiser = "Shop \"A\" </script>"
            fields.paidBy = "双十一 \\ Ltd"
            let updated = try await admin.call(AdminAPI.campaignUpdate, CampaignUpdateParams(id: campaign.id, fields: fields))
            #expect(await edge.waitFor(seq: updated.seq))
            for (binding, text, answer) in try await answers() {
                #expect(answer["id"]?.intValue == Int(campaign.id), "\(binding)")
                #expect(answer["advertiser"] == .string("Shop \"A\" </script>") && answer["paidBy"] == .string("双十一 \\ Ltd"), "\(binding): \(text)")
                #expect(text.contains(#""advertiser":"Shop \"A\" </script>","paidBy":"双十一 \\ Ltd""#), "\(binding): \(text)")
            }
            // The Codable answer reads them as clients do.
            let decoded = try await edge.query(LaunchQueryParams(app: "shop", platform: "ios", appVersion: "5.2.0", deviceId: "d-1"))
            #expect(decoded.advertiser == "Shop \"A\" </script>" && decoded.paidBy == "双十一 \\ Ltd")
        }
    }
}
