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
/// the engine (a live campaign targets a device when every part of its targeting it has takes the device; a launch
/// is answered from the highest tier, forced first, of those that target it at that launch type and that the
/// device's reported shows have not capped; a campaign is explained when, at a cold launch or else at a hot one,
/// it targets the device and is in that tier, or is capped at or above it).
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

        /// A cold launch, or a hot one after an hour away.
        func query(_ type: LaunchType) -> LaunchQueryParams {
            LaunchQueryParams(app: "shop", platform: platform, appVersion: appVersion, region: region, locale: locale, deviceId: deviceId,
                              launchType: type, backgroundSeconds: type == .hot ? 3_600 : nil)
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
        fields.launchTypes = random.chance(0.5) ? [.cold] : random.chance(0.5) ? [.hot] : [.cold, .hot]
        // Hot launches of this test come after an hour away: one campaign in three asks for more.
        if fields.launchTypes!.contains(.hot) { fields.minBackgroundSeconds = [60, 600, 7_200][random.index(3)] }
        if random.chance(0.4) { fields.frequencyCap = FrequencyCap(shows: 1, hours: 24) }
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
        if !campaign.launchTypes.contains(.cold) { reasons.append(WhyReason(field: .launchType, value: "hot")) }
        if campaign.audience == .test {
            guard campaign.testDevices?.contains(device.deviceId) == true else { return nil }
            reasons.append(WhyReason(field: .audience, value: "test"))
        }
        if campaign.forced { reasons.append(WhyReason(field: .forced, value: "true")) }
        return reasons
    }

    /// The campaigns as this test knows them, and each device's reported shows: the rules of the answer and of
    /// `launch.why`, written apart from the engine.
    struct Oracle {
        var campaigns: [Int64: Campaign] = [:]
        /// Paused or expired: out of the edge's state.
        var gone: Set<Int64> = []
        /// Impressions reported, by device id, then campaign (every campaign's cap is 1 show in 24 hours).
        var shown: [String: [Int64: Int]] = [:]

        var ids: [Int64] { campaigns.keys.sorted() }

        func tier(_ id: Int64) -> [Int] { [campaigns[id]!.forced ? 1 : 0, campaigns[id]!.priority] }

        func live(_ id: Int64) -> Bool { !gone.contains(id) && campaigns[id]!.startsAt <= Timestamp.now() }

        func capped(_ id: Int64, _ device: Device) -> Bool {
            guard let cap = campaigns[id]!.frequencyCap else { return false }
            return shown[device.deviceId]?[id] ?? 0 >= cap.shows
        }

        /// Live, targeting the device at a launch of `type` (a hot one after `away` seconds in the background).
        func targets(_ id: Int64, _ device: Device, _ type: LaunchType, away: Int) -> Bool {
            let campaign = campaigns[id]!
            return live(id) && campaign.launchTypes.contains(type) && (type == .cold || away >= campaign.minBackgroundSeconds ?? 0)
                && expectedReasons(campaign, device) != nil
        }

        /// What such a launch may answer: those that target the device and are not capped for it.
        func eligible(_ device: Device, _ type: LaunchType, away: Int) -> [Int64] {
            ids.filter { targets($0, device, type, away: away) && !capped($0, device) }
        }

        /// The tier such a launch is answered from, nil when nothing is.
        func top(_ device: Device, _ type: LaunchType, away: Int) -> [Int]? {
            eligible(device, type, away: away).map(tier).max { $0.lexicographicallyPrecedes($1) }
        }

        /// The launch type at which `launch.why` explains campaign `id` to the device, nil when it does not (it
        /// names no time away: any will do).
        func explainedAt(_ id: Int64, _ device: Device) -> LaunchType? {
            [LaunchType.cold, .hot].first { type in
                guard targets(id, device, type, away: .max) else { return false }
                guard let top = top(device, type, away: .max) else { return capped(id, device) }
                let tier = tier(id)
                return capped(id, device) ? !tier.lexicographicallyPrecedes(top) : tier == top
            }
        }
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

    @Test("300 random launches of 100 devices, cold and hot, some impressions reported (rotation, caps), campaigns paused and expired midway, one not started: launch.query's answer gets its targeting facts that matched; any other the device is answered too is explained; the rest get the NotAnswered error naming id")
    func agreesWithTheQuery() async throws {
        try await DeliveryServiceTests.withCampaignd { fixture, admin, creative in
            try await withEdge("edge-why", connectedTo: fixture) { edge in
                var random = SeededRandom(seed: 72)
                var oracle = Oracle()
                var seq: Int64 = 0
                for index in 0..<14 {
                    let created = try await admin.call(AdminAPI.campaignCreate, Self.randomFields(index, creative: creative, &random))
                    oracle.campaigns[created.campaign.id] = created.campaign
                    seq = created.seq
                }
                // Forced, for everyone, at both launch types, but not started: it would answer every launch if it were.
                var future = CampaignFixture.fields(name: "future", creative: creative, startIn: 86_400)
                (future.forced, future.launchTypes, future.minBackgroundSeconds) = (true, [.cold, .hot], 0)
                let notStarted = try await admin.call(AdminAPI.campaignCreate, future)
                oracle.campaigns[notStarted.campaign.id] = notStarted.campaign
                #expect(await edge.waitFor(seq: notStarted.seq, creatives: 1))
                let peer = try TestPeer(fixture.context, type: .dealer, endpoint: edge.endpoints["client"]!)
                let http = try HTTPTestConnection(edge.endpoints["http"]!)
                let ids = oracle.ids
                let devices = (0..<100).map { Self.randomDevice($0, &random) }
                var answered = 0, explained = 0, refused = 0, tierMates = 0, hot = 0, impressions = 0
                var explainedBy: [String: Int] = [:], refusedBy: [String: Int] = [:]
                var served: Set<Int64> = []
                var shows: [LaunchEvent] = []
                for launch in 0..<300 {
                    if launch == 150 {
                        // Midway, two of the campaigns served so far go: one paused, one expired.
                        let going = served.sorted().prefix(2)
                        for (id, method) in zip(going, [AdminAPI.campaignPause, AdminAPI.campaignExpire]) {
                            seq = try await admin.call(method, CampaignID(id: id)).seq
                            oracle.gone.insert(id)
                        }
                        let synced = await edge.waitFor(seq: seq, creatives: 1)
                        #expect(going.count == 2 && synced)
                    }
                    // The impressions of the last launch reach the edge before the next: its device's history is this test's.
                    if !shows.isEmpty {
                        let report = try await edge.client.call(ClientAPI.launchReport, LaunchReportParams(events: shows))
                        #expect(report.accepted == shows.count)
                        for show in shows { oracle.shown[show.deviceId, default: [:]][show.campaignId!, default: 0] += 1 }
                        impressions += shows.count
                        shows = []
                    }
                    let device = devices[random.index(devices.count)]
                    let type: LaunchType = random.chance(0.3) ? .hot : .cold
                    let answer = try await Self.both(try Self.call("launch.query", device.query(type), id: launch), peer, http)
                    let servedId = answer["result"]?["id"]?.intValue.map(Int64.init)
                    let top = oracle.top(device, type, away: 3_600)
                    if type == .hot { hot += 1 }
                    if let servedId {
                        answered += 1
                        served.insert(servedId)
                        #expect(oracle.eligible(device, type, away: 3_600).contains(servedId) && oracle.tier(servedId) == top,
                                "launch \(launch) (\(type)): launch.query answered \(servedId)")
                        let why = try await Self.both(try Self.call("launch.why", device.params(id: servedId)), peer, http)
                        let campaign = oracle.campaigns[servedId]!
                        #expect(why["result"]?["id"]?.intValue == Int(servedId))
                        #expect(why["result"]?["advertiser"]?.stringValue == campaign.advertiser && why["result"]?["paidBy"]?.stringValue == campaign.paidBy,
                                "launch \(launch): \(why.jsonText)")
                        #expect(try Self.reasons(why["result"]) == Self.expectedReasons(campaign, device), "launch \(launch): \(why.jsonText)")
                        explained += 1
                        // Now and then the ad is shown: the device's rotation moves on, and a capped campaign is done for it.
                        if random.chance(0.5) {
                            shows.append(LaunchEvent(eventId: "why-\(launch)", type: .impression, campaignId: servedId, deviceId: device.deviceId,
                                                     sha256: creative))
                        }
                    } else {
                        #expect(top == nil, "launch \(launch) (\(type)): no ad, though \(oracle.eligible(device, type, away: 3_600)) target it")
                    }
                    // Another campaign, half the time among those that target the device (for enough of each kind),
                    let targeting = ids.filter { Self.expectedReasons(oracle.campaigns[$0]!, device) != nil }
                    // and now and then among those it was shown (for the capped ones, above and below the answer's tier).
                    let seen = oracle.shown[device.deviceId].map { Array($0.keys).sorted() } ?? []
                    let pool = random.chance(0.3) && !seen.isEmpty ? seen : random.chance(0.5) && !targeting.isEmpty ? targeting : ids
                    // Now and then a device shows its cache's ad of the lowest capped campaign that targets it while offline:
                    // its cap counts it too (from the next launch: the impressions are sent before it).
                    let cachedCapped = targeting.filter { oracle.live($0) && oracle.campaigns[$0]!.frequencyCap != nil }
                    if random.chance(0.3), let lowest = cachedCapped.min(by: { oracle.tier($0).lexicographicallyPrecedes(oracle.tier($1)) }) {
                        shows.append(LaunchEvent(eventId: "cached-\(launch)", type: .impression, campaignId: lowest, deviceId: device.deviceId,
                                                 sha256: creative))
                    }
                    let other = pool[random.index(pool.count)]
                    guard other != servedId else { continue }
                    let why = try await Self.both(try Self.call("launch.why", device.params(id: other)), peer, http)
                    if let at = oracle.explainedAt(other, device) {
                        tierMates += 1
                        let behindColdOnly = at == .hot && oracle.campaigns[other]!.launchTypes.contains(.cold)
                        let kind = (oracle.capped(other, device) ? "capped " : "") + (behindColdOnly ? "hot behind cold" : "\(at)")
                        explainedBy[kind, default: 0] += 1
                        #expect(try Self.reasons(why["result"]) == Self.expectedReasons(oracle.campaigns[other]!, device),
                                "launch \(launch), \(other) (\(kind)): \(why.jsonText)")
                    } else {
                        refused += 1
                        if oracle.gone.contains(other) || !oracle.live(other) {
                            refusedBy["gone or not started", default: 0] += 1
                        } else if oracle.capped(other, device) && [.cold, .hot].contains(where: { oracle.targets(other, device, $0, away: .max) }) {
                            refusedBy["capped below the tier", default: 0] += 1
                        }
                        #expect(why["error"]?["code"]?.intValue == APIError.notAnswered.code, "launch \(launch), \(other): \(why.jsonText)")
                        #expect(why["error"]?["data"]?["field"] == "id" && why["error"]?["message"]?.stringValue?.contains("campaign \(other)") == true)
                    }
                }
                // The draw exercised every branch (a seed that did not would prove little).
                let summary = "answered \(answered) (hot launches \(hot)), refused \(refused) \(refusedBy), others explained \(explainedBy), impressions \(impressions)"
                #expect(answered > 100 && answered < 300 && explained == answered && refused > 50 && tierMates > 10, "\(summary)")
                #expect(explainedBy["hot", default: 0] > 0 && explainedBy["hot behind cold", default: 0] > 0, "\(summary)")
                #expect(explainedBy.keys.contains { $0.hasPrefix("capped") } && refusedBy.count == 2, "\(summary)")
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
