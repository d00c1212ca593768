import CampaignStore
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdRuntime
import LaunchAdTesting
import Testing
import ZMQRPC
import ZeroMQ

@Suite("deliveryd reports, prefetch and creatives", .timeLimit(.minutes(3)))
struct EdgeReportTests {
    @Test("reports are idempotent by event id, move the rotation on, feed caps, and reach campaign.stats")
    func reports() async throws {
        try await DeliveryServiceTests.withCampaignd { fixture, admin, creative in
            try await withEdge("edge-r", connectedTo: fixture) { edge in
                let first = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "a", creative: creative))
                var capped = CampaignFixture.fields(name: "b", creative: creative)
                capped.frequencyCap = FrequencyCap(shows: 1, hours: 24)
                let second = try await admin.call(AdminAPI.campaignCreate, capped)
                #expect(await edge.waitFor(seq: second.seq, creatives: 1))
                let query = LaunchQueryParams(app: "shop", platform: "ios", appVersion: "5.2.0", deviceId: "d-rot")
                let shown = try await edge.query(query)
                #expect(try await edge.query(query).id == shown.id)  // a retry: the same answer
                let event = LaunchEvent(eventId: "e-1", type: .impression, campaignId: shown.id!, deviceId: "d-rot", sha256: creative)
                let report = try await edge.client.call(ClientAPI.launchReport, LaunchReportParams(events: [event, event]))
                #expect(report.accepted == 1 && report.duplicates == 1)
                let again = try await edge.client.call(ClientAPI.launchReport, LaunchReportParams(events: [event]))
                #expect(again.accepted == 0 && again.duplicates == 1)
                // The rotation moved on to the other campaign.
                let next = try await edge.query(query)
                #expect(next.hasAd && next.id != shown.id)
                // Once the capped campaign was shown once, this device no longer gets it.
                let cappedShown = LaunchEvent(eventId: "e-2", type: .impression, campaignId: second.campaign.id, deviceId: "d-cap")
                _ = try await edge.client.call(ClientAPI.launchReport, LaunchReportParams(events: [cappedShown]))
                for _ in 0..<10 {
                    #expect(try await edge.query(LaunchQueryParams(app: "shop", platform: "ios", appVersion: "5.2.0", deviceId: "d-cap")).id == first.campaign.id)
                }
                _ = try await edge.client.call(ClientAPI.launchReport, LaunchReportParams(events: [
                    LaunchEvent(eventId: "e-3", type: .click, campaignId: shown.id!, deviceId: "d-rot"),
                    LaunchEvent(eventId: "e-4", type: .skip, campaignId: shown.id!, deviceId: "d-rot"),
                ]))
                // The counts reach campaignd, once.
                let expectedImpressions: Int64 = shown.id == second.campaign.id ? 2 : 1
                var last: CampaignStats?
                #expect(await eventually(timeout: .seconds(15)) {
                    last = try? await admin.call(AdminAPI.campaignStats, CampaignStatsParams(id: shown.id!)).stats.first
                    return last?.impressions == expectedImpressions && last?.clicks == 1 && last?.skips == 1
                }, "\(String(describing: last)) \(edge.log.suffix(2000))")
                await #expect {
                    _ = try await edge.client.call(ClientAPI.launchReport, LaunchReportParams(events: []))
                } throws: { ($0 as? JSONRPCError)?.code == -32602 }
            }
        }
    }

    @Test("reported impressions take a device round a group of campaigns once per round, round after round, never twice in a row")
    func rotationRounds() async throws {
        try await DeliveryServiceTests.withCampaignd { fixture, admin, creative in
            try await withEdge("edge-rounds", connectedTo: fixture) { edge in
                var last: Int64 = 0
                for (name, weight) in [("a", 300), ("b", 200), ("c", 100)] {
                    var fields = CampaignFixture.fields(name: name, creative: creative)
                    fields.weight = weight
                    last = try await admin.call(AdminAPI.campaignCreate, fields).seq
                }
                // A campaign of another priority is not part of the round.
                var lower = CampaignFixture.fields(name: "lower", creative: creative)
                lower.priority = 10
                last = try await admin.call(AdminAPI.campaignCreate, lower).seq
                #expect(await edge.waitFor(seq: last, creatives: 1))
                for device in 0..<4 {
                    let query = LaunchQueryParams(app: "shop", platform: "ios", appVersion: "5.2.0", deviceId: "d-round-\(device)")
                    var shown: [Int64] = []
                    for impression in 0..<12 {
                        let answer = try await edge.query(query)
                        let id = try #require(answer.id)
                        shown.append(id)
                        let event = LaunchEvent(eventId: "d\(device)-\(impression)", type: .impression, campaignId: id, deviceId: query.deviceId!,
                                                sha256: answer.creative?.sha256)
                        #expect(try await edge.client.call(ClientAPI.launchReport, LaunchReportParams(events: [event])).accepted == 1)
                    }
                    for round in stride(from: 0, to: 12, by: 3) {
                        #expect(Set(shown[round..<round + 3]).count == 3, "device \(device) was shown \(shown)")
                    }
                    #expect(zip(shown, shown.dropFirst()).allSatisfy { $0 != $1 }, "device \(device) was shown \(shown)")
                }
            }
        }
    }

    @Test("prefetch with a screen lists each campaign's creatives of that shape, and has the client delete the others it holds")
    func prefetchForScreen() async throws {
        try await DeliveryServiceTests.withCampaignd { fixture, admin, tall in
            let classic = try await fixture.uploadPNG(admin, width: 1080, height: 1920)
            let larger = try await fixture.uploadPNG(admin, width: 1440, height: 2560)
            try await withEdge("edge-s", connectedTo: fixture) { edge in
                var fields = CampaignFixture.fields(name: "three shapes", creative: tall, startIn: 3600)
                fields.creatives = [CreativeRef(sha256: tall), CreativeRef(sha256: classic), CreativeRef(sha256: larger)]
                let created = try await admin.call(AdminAPI.campaignCreate, fields)
                #expect(await edge.waitFor(seq: created.seq, creatives: 3))
                func prefetch(_ screen: LaunchQueryParams.Screen?, cached: [String]? = nil) async throws -> LaunchPrefetchResult {
                    try await edge.client.call(ClientAPI.launchPrefetch, LaunchPrefetchParams(
                        app: "shop", platform: "ios", appVersion: "5.2.0", screen: screen, horizonHours: 24, cached: cached))
                }
                let phone = try await prefetch(LaunchQueryParams.Screen(width: 1179, height: 2556), cached: [tall, classic])
                #expect(phone.download.map(\.sha256) == [tall] && phone.download.map(\.campaignId) == [created.campaign.id])
                #expect(phone.delete == [classic])
                // 1080x1920 and 1440x2560 are one shape: both, in the campaign's order.
                let older = try await prefetch(LaunchQueryParams.Screen(width: 720, height: 1280))
                #expect(older.download.map(\.sha256) == [classic, larger] && older.delete.isEmpty)
                let any = try await prefetch(nil, cached: [tall, classic])
                #expect(any.download.map(\.sha256) == [tall, classic, larger] && any.delete.isEmpty)
            }
        }
    }

    @Test("large replies that clients do not read are bounded in bytes: past the budget whole chunks are answered Busy, small answers go on, and the budget comes back when the reader goes")
    func replyBudget() async throws {
        try await withCampaignService { fixture in
            let admin = try fixture.admin()
            let png = CampaignFixture.png(width: 1179, height: 2556, seed: 7) + [UInt8](repeating: 0x78, count: 1_100_000)
            let creative = try await admin.call(AdminAPI.creativeUpload, CreativeUploadParams(contentType: "image/png", data: Data(png).base64EncodedString())).sha256
            let created = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(creative: creative))
            // The least the flag takes: room for one whole chunk.
            try await withEdge("edge-budget", connectedTo: fixture, configure: { $0.maxHeldReplyBytes = 2 * 1024 * 1024 }) { edge in
                #expect(await edge.waitFor(seq: created.seq, creatives: 1))
                func wholeChunk() async throws -> CreativeChunk { try await edge.client.call(ClientAPI.creativeGet, CreativeChunkParams(sha256: creative)) }
                #expect(try await wholeChunk().data.count > 1_000_000)

                // A client that asks for whole chunks (1 MiB, about 1.4 MB of base64 each) and never reads them: with a receive
                // high-water mark of 1 its own libzmq stops taking them too, and with a small fixed receive buffer its kernel
                // takes little (autotuned, it may take tens of MB), so they back up into the edge after a few.
                let hog = try Socket(fixture.context, type: .dealer)
                try hog.setReceiveHighWaterMark(1)
                try hog.setReceiveBufferSize(64 * 1024)
                try hog.setLinger(milliseconds: 0)
                try hog.connect(try #require(edge.endpoints["client"]))
                var asked = 0
                func hogAsks(_ count: Int) throws {
                    for _ in 0..<count {
                        _ = try hog.send(Array(#"{"jsonrpc":"2.0","id":\#(asked),"method":"creative.get","params":{"sha256":"\#(creative)"}}"#.utf8))
                        asked += 1
                    }
                }
                try hogAsks(40)
                // Soon another client's whole chunk is refused with Busy, while its small answers still come. The hog keeps
                // asking, as a flood would: what the kernels' buffers took of its first chunks leaves libzmq and the budget,
                // so only once those buffers are full does the budget stay full. (Each chunk is written out in full before
                // the budget is asked, which takes a while in a debug build.)
                var outcomes: [String] = []
                let refused = await eventually(timeout: .seconds(30)) {
                    try? hogAsks(4)
                    do {
                        _ = try await wholeChunk()
                        outcomes.append("a whole chunk")
                        return false
                    } catch {
                        outcomes.append("\(error)")
                        return (error as? JSONRPCError)?.code == APIError.busy.code
                    }
                }
                let counted = refused ? [] : try await Self.metricLines(edge, containing: "creative.get")
                #expect(refused, "\(outcomes.suffix(5)) \(counted)")
                #expect(try await edge.query().hasAd == true)
                let small = try await edge.client.call(ClientAPI.creativeGet, CreativeChunkParams(sha256: creative, offset: 0, length: 1024))
                #expect([UInt8](Data(base64Encoded: small.data)!) == Array(png.prefix(1024)))
                // The reader goes: libzmq drops what it held for it, and whole chunks come again.
                hog.close()
                #expect(await eventually(timeout: .seconds(10)) { (try? await wholeChunk())?.data.count ?? 0 > 1_000_000 })
            }
        }
    }

    /// The lines of an edge's `/metrics` that contain `text`.
    static func metricLines(_ edge: EdgeClient, containing text: String) async throws -> [String] {
        try await edge.metrics().lines(containing: text)
    }

    @Test("prefetch lists what starts within the horizon and what to delete; creatives come by creative.get and HTTP")
    func prefetchAndCreatives() async throws {
        try await DeliveryServiceTests.withCampaignd { fixture, admin, creative in
            try await withEdge("edge-p", connectedTo: fixture) { edge in
                let later = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "later", creative: creative, startIn: 3600))
                _ = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "much later", creative: creative, startIn: 48 * 3600))
                let last = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "other app", app: "news", creative: creative))
                #expect(await edge.waitFor(seq: last.seq, creatives: 1))
                let stale = String(repeating: "e", count: 64)
                let prefetch = try await edge.client.call(ClientAPI.launchPrefetch, LaunchPrefetchParams(
                    app: "shop", platform: "ios", appVersion: "5.2.0", horizonHours: 24, cached: [creative, stale]))
                #expect(prefetch.download.map(\.campaignId) == [later.campaign.id])
                #expect(prefetch.download.first?.startsAt == later.campaign.startsAt && prefetch.download.first?.sha256 == creative)
                #expect(prefetch.delete == [stale])
                // Not live yet: no ad now.
                #expect(try await edge.query().hasAd == false)

                let chunk = try await edge.client.call(ClientAPI.creativeGet, CreativeChunkParams(sha256: creative))
                #expect([UInt8](Data(base64Encoded: chunk.data)!) == CampaignFixture.png(width: 1179, height: 2556))
                await #expect { try await edge.client.call(ClientAPI.creativeGet, CreativeChunkParams(sha256: stale)) } throws: {
                    ($0 as? JSONRPCError)?.code == APIError.creativeNotFound.code
                }
                await #expect { try await edge.client.call(ClientAPI.creativeGet, CreativeChunkParams(sha256: "../../etc/passwd")) } throws: {
                    ($0 as? JSONRPCError)?.code == -32602
                }
                let http = "http://\(try #require(edge.endpoints["http"]))"
                // What prefetch tells the client to download is where the edge serves it.
                #expect(prefetch.download.first?.url == "\(http)/creatives/\(creative)")
                let (body, response) = try await URLSession.shared.data(from: URL(string: "\(http)/creatives/\(creative)")!)
                #expect((response as? HTTPURLResponse)?.statusCode == 200 && [UInt8](body) == CampaignFixture.png(width: 1179, height: 2556))
                #expect((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "ETag") == "\"\(creative)\"")
                var ranged = URLRequest(url: URL(string: "\(http)/creatives/\(creative)")!)
                ranged.setValue("bytes=1-3", forHTTPHeaderField: "Range")
                let (part, partResponse) = try await URLSession.shared.data(for: ranged)
                #expect((partResponse as? HTTPURLResponse)?.statusCode == 206 && [UInt8](part) == [0x50, 0x4E, 0x47])
                // Headers as clients send them: what each gets back, and how many bytes.
                func get(_ headers: [String: String]) async throws -> (Int, Int, String?) {
                    var request = URLRequest(url: URL(string: "\(http)/creatives/\(creative)")!)
                    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
                    let (body, response) = try await URLSession.shared.data(for: request)
                    let http = try #require(response as? HTTPURLResponse)
                    return (http.statusCode, body.count, http.value(forHTTPHeaderField: "Content-Range"))
                }
                let size = CampaignFixture.png(width: 1179, height: 2556).count
                #expect(try await get(["Range": "bytes=2-99999999999999999999"]) == (206, size - 2, "bytes 2-\(size - 1)/\(size)"))
                #expect(try await get(["Range": "bytes=0-0,5-6"]) == (200, size, nil))
                #expect(try await get(["Range": "bytes=\(size)-"]) == (416, 0, "bytes */\(size)"))
                #expect(try await get(["Range": "bytes=1-3", "If-Range": "\"\(creative)\""]) == (206, 3, "bytes 1-3/\(size)"))
                #expect(try await get(["Range": "bytes=1-3", "If-Range": "\"other\""]) == (200, size, nil))
                #expect(try await get(["If-None-Match": "W/\"\(creative)\""]).0 == 304)
                #expect(try await get(["If-None-Match": "\"other\", \"\(creative)\""]).0 == 304)
                #expect(try await get(["If-None-Match": "\"other\""]) == (200, size, nil))
                // HEAD: GET's status and headers, Content-Length the bytes a GET sends, and no body.
                func head(_ headers: [String: String], of sha256: String = creative) async throws -> (Int, String?, String?, Int) {
                    var request = URLRequest(url: URL(string: "\(http)/creatives/\(sha256)")!)
                    request.httpMethod = "HEAD"
                    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
                    let (body, response) = try await URLSession.shared.data(for: request)
                    let http = try #require(response as? HTTPURLResponse)
                    return (http.statusCode, http.value(forHTTPHeaderField: "Content-Length"), http.value(forHTTPHeaderField: "Content-Range"), body.count)
                }
                #expect(try await head([:]) == (200, String(size), nil, 0))
                #expect(try await head(["Range": "bytes=1-3"]) == (206, "3", "bytes 1-3/\(size)", 0))
                #expect(try await head(["Range": "bytes=\(size)-"]).0 == 416)
                #expect(try await head([:], of: stale).0 == 404)
                let (_, missing) = try await URLSession.shared.data(from: URL(string: "\(http)/creatives/..%2F..%2Fstate.json")!)
                #expect((missing as? HTTPURLResponse)?.statusCode == 404)
                let text = try await edge.metrics().text
                #expect(text.contains(#"launchad_deliveryd_queries_total{result="no_ad"} 1"#))
                // Every call is counted and timed by method, and errors by code.
                for line in [#"launchad_deliveryd_requests_total{method="launch.query",code="0"} 1"#,
                             #"launchad_deliveryd_requests_total{method="launch.prefetch",code="0"} 1"#,
                             #"launchad_deliveryd_requests_total{method="creative.get",code="0"} 1"#,
                             #"launchad_deliveryd_requests_total{method="creative.get",code="-32602"} 1"#,
                             #"launchad_deliveryd_request_duration_seconds_count{method="launch.query"} 1"#,
                             #"launchad_deliveryd_request_duration_seconds_count{method="creative.get"} 3"#] {
                    #expect(text.contains(line), "\(line)")
                }
            }
        }
    }
}
