@testable import DeliveryService
import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdTesting
import SeededRandomness
import Testing
import ZMQRPC

/// `launch.why` against a live edge, over the client socket and `POST /rpc`: what it says is checked against what
/// `launch.query` answered and against the campaigns' facts as campaignd stored them, by rules written here apart from
/// the engine (a campaign targets a device when every part of its targeting it has takes the device; the answer
/// comes from the highest tier, forced first, of the campaigns that target it).
@Suite("launch.why: who paid and why this device, by the decision the answer used", .timeLimit(.minutes(3)))
struct LaunchWhyTests {
    /// One device's launch, as random as its seed.
    struct Device {
        var platform: String
        var appVersion: String
        var region: String?
        var locale: String?
        var deviceId: String

        func params(id: Int64) -> LaunchWhyParams {
            LaunchWhyParams(app: "shop", platform: platform, appVersion: appVersion, region: region, locale: locale, deviceId: deviceId, id: id)
        }

        var query: LaunchQueryParams {
            LaunchQueryParams(app: "shop", platform: platform, appVersion: appVersion, region: region, locale: locale, deviceId: deviceId)
        }
    }

    static let versions = ["4.0", "5.2.0", "6.1", "7.0.3"]
    static let regions = ["cn-east", "cn-north", "eu-west"]
    static let locales = ["zh-CN", "en-US", "de"]
    static let testDevices = ["tester-1", "tester-2"]

    /// A random subset of `values`, never empty, or nil (no targeting of that part) half the time.
    static func some(_ values: [String], _ random: inout SeededRandom) -> [String]? {
        guard random.chance(0.5) else { return nil }
        let picked = values.filter { _ in random.chance(0.5) }
        return picked.isEmpty ? [values[random.index(values.count)]] : picked
    }

    /// A campaign's fields with random targeting, tier and audience.
    static func randomFields(_ index: Int, creative: String, _ random: inout SeededRandom) -> CampaignFields {
        var fields = CampaignFixture.fields(name: "c\(index)", creative: creative)
        let min = [nil, "5.0", "6.0"][random.index(3)], max = [nil, "6.0", "7.0"][random.index(3)]
        let range = min != nil && max != nil && AppVersion(min!)! >= AppVersion(max!)! ? VersionRange(min: min) : VersionRange(min: min, max: max)
        fields.targeting = Targeting(platforms: some(["ios", "android"], &random),
                                     appVersions: range.min == nil && range.max == nil ? nil : range,
                                     regions: some(regions, &random), locales: some(locales, &random))
        fields.priority = random.index(3)
        fields.forced = random.chance(0.15)
        if random.chance(0.15) {
            fields.audience = .test
            fields.testDevices = [testDevices[random.index(testDevices.count)]]
        }
        fields.advertiser = random.chance(0.5) ? "Advertiser \(index) \"&<" : nil
        fields.paidBy = random.chance(0.3) ? "付费方 \(index)" : nil
        return fields
    }

    static func randomDevice(_ index: Int, _ random: inout SeededRandom) -> Device {
        // Region and locale now and then in another case: the engine matches them in any case of their letters.
        let region = random.chance(0.8) ? regions[random.index(regions.count)] : nil
        let locale = random.chance(0.8) ? locales[random.index(locales.count)] : nil
        return Device(platform: random.chance(0.5) ? "ios" : "android", appVersion: versions[random.index(versions.count)],
                      region: random.chance(0.2) ? region?.uppercased() : region,
                      locale: random.chance(0.2) ? locale?.lowercased() : locale,
                      deviceId: random.chance(0.2) ? testDevices[random.index(testDevices.count)] : "device-\(index)")
    }

    /// The reasons a campaign gives a device it targets, from the campaign's stored facts: nil when it does not
    /// target the device (by this test's reading of the targeting, not the engine's).
    static func expectedReasons(_ campaign: Campaign, _ device: Device) -> [WhyReason]? {
        let targeting = campaign.targeting
        var reasons: [WhyReason] = []
        if let platforms = targeting.platforms {
            guard platforms.contains(device.platform) else { return nil }
            reasons.append(WhyReason(field: .platform, value: device.platform))
        }
        if let range = targeting.appVersions {
            let version = AppVersion(device.appVersion)!
            if let min = range.min, version < AppVersion(min)! { return nil }
            if let max = range.max, !(version < AppVersion(max)!) { return nil }
            reasons.append(WhyReason(field: .appVersion, value: [range.min.map { ">=\($0)" }, range.max.map { "<\($0)" }].compactMap { $0 }.joined(separator: " ")))
        }
        if let regions = targeting.regions {
            guard let region = device.region?.lowercased(), let matched = regions.first(where: { $0.lowercased() == region }) else { return nil }
            reasons.append(WhyReason(field: .region, value: matched))
        }
        if let locales = targeting.locales {
            guard let locale = device.locale?.lowercased(), let matched = locales.first(where: { $0.lowercased() == locale }) else { return nil }
            reasons.append(WhyReason(field: .locale, value: matched))
        }
        if campaign.audience == .test {
            guard campaign.testDevices?.contains(device.deviceId) == true else { return nil }
            reasons.append(WhyReason(field: .audience, value: "test"))
        }
        if campaign.forced { reasons.append(WhyReason(field: .forced, value: "true")) }
        return reasons
    }

    /// A call's text, the same over both bindings.
    static func call(_ method: String, _ params: some Encodable, id: Int = 1) throws -> String {
        #"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)","params":\#(try JSONValueEncoder().encode(params).jsonText)}"#
    }

    /// The reply to `text` over the client socket and over `POST /rpc`, checked to be the same bytes, parsed.
    static func both(_ text: String, _ peer: TestPeer, _ http: HTTPTestConnection) async throws -> JSONValue {
        let zmq = try #require(try await HTTPRPCTests.overZeroMQ(peer, text), "no ZeroMQ reply to \(text)")
        #expect(http.send(HTTPTestConnection.rpc(text)))
        let rpc = try #require(http.response(), "no HTTP reply to \(text)")
        #expect(rpc.status == 200 && rpc.body == zmq, "\(text): \(rpc.text) vs \(String(decoding: zmq, as: UTF8.self))")
        return try JSONParser.parse(zmq)
    }

    static func reasons(_ result: JSONValue?) throws -> [WhyReason]? {
        guard let result else { return nil }
        return try JSONValueDecoder(rejectUnknownKeys: true).decode(LaunchWhyResult.self, from: result).reasons
    }

    @Test("300 random devices: the campaign launch.query answered gets its targeting facts that matched; another of its tier that targets the device too; any other the NotAnswered error naming id")
    func agreesWithTheQuery() async throws {
        try await DeliveryServiceTests.withCampaignd { fixture, admin, creative in
            try await withEdge("edge-why", connectedTo: fixture) { edge in
                var random = SeededRandom(seed: 72)
                var campaigns: [Int64: Campaign] = [:]
                var seq: Int64 = 0
                for index in 0..<14 {
                    let created = try await admin.call(AdminAPI.campaignCreate, Self.randomFields(index, creative: creative, &random))
                    campaigns[created.campaign.id] = created.campaign
                    seq = created.seq
                }
                #expect(await edge.waitFor(seq: seq, creatives: 1))
                let peer = try TestPeer(fixture.context, type: .dealer, endpoint: edge.endpoints["client"]!)
                let http = try HTTPTestConnection(edge.endpoints["http"]!)
                let ids = campaigns.keys.sorted()
                var answered = 0, explained = 0, refused = 0, tierMates = 0
                for index in 0..<300 {
                    let device = Self.randomDevice(index, &random)
                    let answer = try await Self.both(try Self.call("launch.query", device.query), peer, http)
                    let servedId = answer["result"]?["id"]?.intValue.map(Int64.init)
                    // The query's answer, by this test's rules: a campaign that targets the device, in the highest tier of those.
                    let targeting = ids.filter { Self.expectedReasons(campaigns[$0]!, device) != nil }
                    func tier(_ id: Int64) -> [Int] { [campaigns[id]!.forced ? 1 : 0, campaigns[id]!.priority] }
                    let top = targeting.map(tier).max { $0.lexicographicallyPrecedes($1) }
                    if let servedId {
                        answered += 1
                        #expect(targeting.contains(servedId) && tier(servedId) == top, "device \(index): launch.query answered \(servedId)")
                        let why = try await Self.both(try Self.call("launch.why", device.params(id: servedId)), peer, http)
                        let campaign = campaigns[servedId]!
                        #expect(why["result"]?["id"]?.intValue == Int(servedId))
                        #expect(why["result"]?["advertiser"]?.stringValue == campaign.advertiser && why["result"]?["paidBy"]?.stringValue == campaign.paidBy,
                                "device \(index): \(why.jsonText)")
                        #expect(try Self.reasons(why["result"]) == Self.expectedReasons(campaign, device), "device \(index): \(why.jsonText)")
                        explained += 1
                    } else {
                        #expect(targeting.isEmpty, "device \(index): no ad, though \(targeting) target it")
                    }
                    // Another campaign: explained when the device is in its targeting and it is in the answered tier (the
                    // draw's and the rotation's turns), refused otherwise.
                    // (Half the time among those that target it, for enough of the answered tier's others.)
                    let pool = random.chance(0.5) && !targeting.isEmpty ? targeting : ids
                    let other = pool[random.index(pool.count)]
                    guard other != servedId else { continue }
                    let why = try await Self.both(try Self.call("launch.why", device.params(id: other)), peer, http)
                    if servedId != nil, targeting.contains(other), tier(other) == top {
                        tierMates += 1
                        #expect(try Self.reasons(why["result"]) == Self.expectedReasons(campaigns[other]!, device), "device \(index), \(other): \(why.jsonText)")
                    } else {
                        refused += 1
                        #expect(why["error"]?["code"]?.intValue == APIError.notAnswered.code, "device \(index), \(other): \(why.jsonText)")
                        #expect(why["error"]?["data"]?["field"] == "id" && why["error"]?["message"]?.stringValue?.contains("campaign \(other)") == true)
                    }
                }
                // The draw exercised every branch (a seed that did not would prove little).
                #expect(answered > 100 && answered < 300 && explained == answered && refused > 50 && tierMates > 10,
                        "answered \(answered), refused \(refused), tier mates \(tierMates)")
                // A campaign the edge does not hold, and one of another app, are refused alike.
                let device = Device(platform: "ios", appVersion: "6.1", deviceId: "d-1")
                let unknown = try await Self.both(try Self.call("launch.why", device.params(id: 999_999)), peer, http)
                #expect(unknown["error"]?["code"]?.intValue == APIError.notAnswered.code)
                var elsewhere = device.params(id: ids[0])
                elsewhere.app = "com.example.other"
                let otherApp = try await Self.both(try Self.call("launch.why", elsewhere), peer, http)
                #expect(otherApp["error"]?["code"]?.intValue == APIError.notAnswered.code)
                // Counted by method and code like the other client methods, over both bindings; not as launch queries.
                let page = try await edge.metrics()
                #expect(page.value(#"launchad_deliveryd_requests_total{method="launch.why",code="0"}"#) == Double(2 * (explained + tierMates)))
                #expect(page.value(#"launchad_deliveryd_requests_total{method="launch.why",code="-32011"}"#) == Double(2 * refused + 4))
                #expect(page.value("launchad_deliveryd_queries_total", labels: [#"result="ad""#]) == Double(2 * answered))
                #expect(page.value("launchad_deliveryd_queries_total", labels: [#"result="no_ad""#]) == Double(2 * (300 - answered)))
            }
        }
    }

    @Test("bad params: -32602 naming the field, over both bindings, by the launch query's rules")
    func badParams() async throws {
        try await HTTPRPCTests.withLiveEdge { edge, _, campaign, fixture in
            let peer = try TestPeer(fixture.context, type: .dealer, endpoint: edge.endpoints["client"]!)
            let http = try HTTPTestConnection(edge.endpoints["http"]!)
            let good = #""app":"shop","platform":"ios","appVersion":"5.2.0","deviceId":"d-1""#
            // The campaign is answered to every device: the good params are explained, with no reason to give.
            let why = try await Self.both(#"{"jsonrpc":"2.0","id":1,"method":"launch.why","params":{\#(good),"id":\#(campaign.id)}}"#, peer, http)
            #expect(why["result"] == ["id": .number(JSONNumber(Int(campaign.id))), "reasons": []], "\(why.jsonText)")
            let cases: [(String, String)] = [
                (#"{\#(good)}"#, "id"),
                (#"{\#(good),"id":0}"#, "id"),
                (#"{\#(good),"id":"7"}"#, "id"),
                (#"{\#(good),"id":1.5}"#, "id"),
                (#"{"app":"shop","platform":"ios","appVersion":"5.2.0","id":1}"#, "deviceId"),
                (#"{"app":"shop","platform":"ios","appVersion":"5.2.0","deviceId":"","id":1}"#, "deviceId"),
                (#"{"app":"shop","platform":"symbian","appVersion":"5.2.0","deviceId":"d-1","id":1}"#, "platform"),
                (#"{"app":"shop","platform":"ios","appVersion":"five","deviceId":"d-1","id":1}"#, "appVersion"),
                (#"{"app":"../x","platform":"ios","appVersion":"5.2.0","deviceId":"d-1","id":1}"#, "app"),
                (#"{\#(good),"region":"","id":1}"#, "region"),
                (#"{\#(good),"locale":"\#(String(repeating: "x", count: 36))","id":1}"#, "locale"),
                (#"{\#(good),"id":1,"screen":{"width":1,"height":1}}"#, "screen"),
            ]
            for (params, field) in cases {
                let reply = try await Self.both(#"{"jsonrpc":"2.0","id":2,"method":"launch.why","params":\#(params)}"#, peer, http)
                #expect(reply["error"]?["code"]?.intValue == JSONRPCError.invalidParamsCode, "\(params): \(reply.jsonText)")
                #expect(reply["error"]?["data"]?["field"]?.stringValue == field, "\(params): \(reply.jsonText)")
            }
        }
    }
}
