@testable import DeliveryService
import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdTesting
import Testing
import ZMQRPC

/// The answer of the seed articles' launch-ad API, as an app written against it decodes it: strict types, the
/// field names of the seed's example (`{"code": 200, "msg": "SUCCESS", "data": {"hasAd": true, "id": 231,
/// "imgUrl": "...", "jumpType": "url", "jumpValue": "https://...", "showMoment": 0}}`).
private struct SeedLaunchAd: Decodable {
    struct Data: Decodable {
        let hasAd: Bool
        let id: Int
        let imgUrl: String
        let jumpType: String
        let jumpValue: String
        let showMoment: Int
    }
    let code: Int
    let msg: String
    let data: Data
}

/// What a refusal decodes to.
private struct SeedError: Decodable {
    let code: Int
    let msg: String
}

@Suite("GET /launch-ad: the classic splash-ad contract", .timeLimit(.minutes(3)))
struct LaunchAdRouteTests {
    static let base = "/launch-ad?app=shop&platform=ios&appVersion=5.2.0"

    @Test("the seed's shape decodes strictly; showMoment is 1 to download, 0 when cached or forced; the same campaign as launch.query")
    func classicAnswer() async throws {
        try await HTTPRPCTests.withLiveEdge { edge, admin, campaign, _ in
            let connection = try HTTPTestConnection(edge.endpoints["http"]!)
            func get(_ target: String) throws -> HTTPTestResponse {
                connection.send(HTTPTestConnection.request("GET", target))
                return try #require(connection.response())
            }
            let fresh = try get(Self.base + "&deviceId=d-1&screen=1179x2556")
            #expect(fresh.status == 200 && fresh.header("Cache-Control") == "no-store" && fresh.header("Content-Type") == "application/json")
            let answer = try JSONDecoder().decode(SeedLaunchAd.self, from: Data(fresh.body))
            #expect(answer.code == 200 && answer.msg == "SUCCESS")
            #expect(answer.data.hasAd && answer.data.id == Int(campaign.id) && answer.data.showMoment == 1)
            #expect(answer.data.jumpType == "url" && answer.data.jumpValue == "https://shop.example.com/1212")
            let sha = campaign.creatives[0].sha256
            #expect(answer.data.imgUrl.hasPrefix("http://") && answer.data.imgUrl.hasSuffix("/creatives/\(sha)"))
            // The rest of the launch answer rides in data.
            let data = try #require(try JSONParser.parse(fresh.body)["data"])
            #expect(data["creative"]?["sha256"] == .string(sha) && data["revoked"] == .array([]) && data["expiresAt"] != nil)

            // The same device gets the same campaign from launch.query.
            let query = try await edge.query(LaunchQueryParams(app: "shop", platform: "ios", appVersion: "5.2.0", deviceId: "d-1",
                                                               screen: .init(width: 1179, height: 2556)))
            #expect(query.id == campaign.id && query.imgUrl == answer.data.imgUrl)

            // Held by the client already: show it now.
            let cached = try JSONDecoder().decode(SeedLaunchAd.self, from: Data(try get(Self.base + "&deviceId=d-1&cached=\(sha)").body))
            #expect(cached.data.showMoment == 0)
            // Forced: show it now, though not held.
            let forced = try await admin.call(AdminAPI.campaignForce, CampaignID(id: campaign.id))
            #expect(await edge.waitFor(seq: forced.seq))
            let now = try JSONDecoder().decode(SeedLaunchAd.self, from: Data(try get(Self.base + "&deviceId=d-1").body))
            #expect(now.data.showMoment == 0)

            // No ad for another app: hasAd false, still the envelope.
            let none = try get("/launch-ad?app=other&platform=ios&appVersion=5.2.0&deviceId=d-1")
            let noneData = try JSONParser.parse(none.body)["data"]
            #expect(none.status == 200 && noneData?["hasAd"] == .bool(false))
        }
    }

    @Test("showMoment is a number and launchTypes the campaign's over ZeroMQ, POST /rpc and GET /launch-ad: 1 not cached, 0 cached, 0 forced")
    func showMomentOnEveryBinding() async throws {
        try await HTTPRPCTests.withLiveEdge { edge, admin, campaign, fixture in
            var fields = CampaignFields()
            fields.launchTypes = [.cold, .hot]
            fields.minBackgroundSeconds = 60
            let updated = try await admin.call(AdminAPI.campaignUpdate, CampaignUpdateParams(id: campaign.id, fields: fields))
            #expect(await edge.waitFor(seq: updated.seq))
            let peer = try TestPeer(fixture.context, type: .dealer, endpoint: edge.endpoints["client"]!)
            let http = try HTTPTestConnection(edge.endpoints["http"]!)
            let sha = campaign.creatives[0].sha256, other = String(repeating: "e", count: 64)
            /// The answer to one query over each binding: the client socket's result, `/rpc`'s and `/launch-ad`'s data.
            func answers(cached: [String]) async throws -> [(String, JSONValue)] {
                let listed = cached.isEmpty ? "" : #","cached":["\#(cached.joined(separator: #"",""#))"]"#
                let call = #"{"jsonrpc":"2.0","id":1,"method":"launch.query","params":{"app":"shop","platform":"ios","appVersion":"5.2.0","deviceId":"d-1"\#(listed)}}"#
                let zmq = try #require(try await HTTPRPCTests.overZeroMQ(peer, call))
                #expect(http.send(HTTPTestConnection.rpc(call)))
                let rpc = try #require(http.response())
                #expect(rpc.body == zmq, "the same bytes over HTTP as over the client socket")
                http.send(HTTPTestConnection.request("GET", Self.base + "&deviceId=d-1" + (cached.isEmpty ? "" : "&cached=" + cached.joined(separator: ","))))
                let classic = try #require(http.response())
                return [("zeromq", try #require(try JSONParser.parse(zmq)["result"])),
                        ("rpc", try #require(try JSONParser.parse(rpc.body)["result"])),
                        ("launch-ad", try #require(try JSONParser.parse(classic.body)["data"]))]
            }
            func check(cached: [String], showMoment: Int) async throws {
                for (binding, answer) in try await answers(cached: cached) {
                    #expect(answer["hasAd"] == .bool(true) && answer["id"]?.intValue == Int(campaign.id), "\(binding)")
                    if case .number? = answer["showMoment"] {} else { Issue.record("\(binding): showMoment is not a number: \(answer)") }
                    #expect(answer["showMoment"]?.intValue == showMoment, "\(binding), cached \(cached): \(answer)")
                    #expect(answer["launchTypes"] == .array([.string("cold"), .string("hot")]), "\(binding): \(answer)")
                }
            }
            try await check(cached: [], showMoment: 1)
            try await check(cached: [other], showMoment: 1)
            try await check(cached: [other, sha], showMoment: 0)
            // The Codable answer reads it as the apps' clients do.
            let decoded = try await edge.query(LaunchQueryParams(app: "shop", platform: "ios", appVersion: "5.2.0", deviceId: "d-1", cached: [sha]))
            #expect(decoded.showMoment == 0 && decoded.launchTypes == [.cold, .hot])

            let forced = try await admin.call(AdminAPI.campaignForce, CampaignID(id: campaign.id))
            #expect(await edge.waitFor(seq: forced.seq))
            try await check(cached: [], showMoment: 0)
            try await check(cached: [other], showMoment: 0)
            let unforced = try await admin.call(AdminAPI.campaignUnforce, CampaignID(id: campaign.id))
            #expect(await edge.waitFor(seq: unforced.seq))
            try await check(cached: [], showMoment: 1)
        }
    }

    @Test("bad and missing parameters: code 400 naming the parameter, HTTP 400; another method: 405")
    func refusals() async throws {
        try await HTTPRPCTests.withLiveEdge { edge, _, _, _ in
            let connection = try HTTPTestConnection(edge.endpoints["http"]!)
            let cases: [(String, String)] = [
                ("/launch-ad?app=shop&platform=ios&appVersion=5.2.0", "deviceId"),
                ("/launch-ad?platform=ios&appVersion=5.2.0&deviceId=d", "app"),
                (Self.base.replacingOccurrences(of: "ios", with: "symbian") + "&deviceId=d", "platform"),
                (Self.base.replacingOccurrences(of: "5.2.0", with: "five") + "&deviceId=d", "appVersion"),
                (Self.base + "&deviceId=d&screen=wide", "screen"),
                (Self.base + "&deviceId=d&screen=0x100", "screen"),
                (Self.base + "&deviceId=d&launchType=warm", "launchType"),
                (Self.base + "&deviceId=d&launchType=hot", "backgroundSeconds"),
                (Self.base + "&deviceId=d&cached=abc", "cached"),
                (Self.base + "&deviceId=d&color=red", "color"),
                (Self.base + "&deviceId=d&app=shop", "app"),
                (Self.base + "&deviceId=%ZZ", "deviceId"),
                (Self.base + "&deviceId=" + String(repeating: "d", count: 129), "deviceId"),
                (Self.base + "&deviceId=d&region=", "region"),
                (Self.base + "&deviceId=d&region=cn%20east", "region"),
                (Self.base + "&deviceId=d&region=-east", "region"),
                ("/launch-ad?app=Shop&platform=ios&appVersion=5.2.0&deviceId=d", "app"),
            ]
            for (target, parameter) in cases {
                connection.send(HTTPTestConnection.request("GET", target))
                let response = try #require(connection.response())
                #expect(response.status == 400 && response.header("Cache-Control") == "no-store", "\(target)")
                let error = try JSONDecoder().decode(SeedError.self, from: Data(response.body))
                #expect(error.code == 400 && error.msg.hasPrefix(parameter + ":"), "\(target): \(error.msg)")
            }
            connection.send(HTTPTestConnection.request("POST", Self.base + "&deviceId=d", body: []))
            let post = try #require(connection.response())
            #expect(post.status == 405 && post.header("Allow") == "GET")
            // Percent-encoded values are read as such.
            connection.send(HTTPTestConnection.request("GET", Self.base + "&deviceId=d%2D1&locale=zh%2DCN"))
            #expect(connection.response()?.status == 200)
        }
    }

    @Test("the query string reads into launch.query's request")
    func queryParsing() throws {
        let request = try LaunchAdQuery.request("app=shop&platform=android&appVersion=1.2&deviceId=a+b&screen=1080x1920&launchType=hot&backgroundSeconds=60&cached=\(String(repeating: "a", count: 64))")
        #expect(request.app == "shop" && request.platform == "android" && request.deviceId == "a b")
        #expect(request.screen?.width == 1080 && request.screen?.height == 1920 && request.launchType == .hot && request.backgroundSeconds == 60)
        #expect(request.cached == [String(repeating: "a", count: 64)])
        #expect(throws: LaunchAdQueryError("cached", "cached[1] must be 64 lowercase hex characters")) {
            try LaunchAdQuery.request("app=shop&platform=android&appVersion=1.2&deviceId=d&cached=\(String(repeating: "a", count: 64)),x")
        }
    }
}
