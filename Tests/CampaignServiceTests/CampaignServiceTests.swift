import CampaignStore
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdTesting
import Synchronization
import Testing
import ZMQRPC
import ZeroMQ

@Suite("campaignd", .timeLimit(.minutes(3)), .sharedPostgresCluster)
struct CampaignServiceTests {
    @Test("creatives: type checked against the bytes, size read from the header, stored once, served in chunks", arguments: StoreEngine.allCases)
    func creatives(engine: StoreEngine) async throws {
        try await withCampaignService(engine: engine) { fixture in
            let admin = try fixture.admin()
            let sync = try fixture.sync()
            let bytes = CampaignFixture.png(width: 1179, height: 2556)
            let upload = CreativeUploadParams(contentType: "image/png", data: Data(bytes).base64EncodedString())
            let info = try await admin.call(AdminAPI.creativeUpload, upload)
            #expect(info.width == 1179 && info.height == 2556 && info.size == bytes.count && info.contentType == "image/png")
            #expect(try await admin.call(AdminAPI.creativeUpload, upload) == info)  // the same bytes again: same answer

            await #expect { try await admin.call(AdminAPI.creativeUpload, CreativeUploadParams(contentType: "image/jpeg", data: upload.data)) }
                throws: { ($0 as? JSONRPCError)?.code == APIError.creativeRefused.code }
            await #expect { try await admin.call(AdminAPI.creativeUpload, CreativeUploadParams(contentType: "image/png", data: "bm90IGFuIGltYWdl")) }
                throws: { ($0 as? JSONRPCError)?.code == APIError.creativeRefused.code }
            await #expect { try await admin.call(AdminAPI.creativeUpload, CreativeUploadParams(contentType: "image/png", data: "%%%")) }
                throws: { ($0 as? JSONRPCError)?.code == -32602 }

            // Chunks put together give the bytes back.
            var assembled: [UInt8] = []
            while assembled.count < info.size {
                let chunk = try await sync.call(SyncAPI.creative, CreativeChunkParams(sha256: info.sha256, offset: assembled.count, length: 10))
                #expect(chunk.offset == assembled.count)
                assembled += [UInt8](Data(base64Encoded: chunk.data)!)
            }
            #expect(assembled == bytes)
            await #expect { try await sync.call(SyncAPI.creative, CreativeChunkParams(sha256: "../../etc/passwd")) }
                throws: { ($0 as? JSONRPCError)?.code == -32602 }
            await #expect { try await sync.call(SyncAPI.creative, CreativeChunkParams(sha256: String(repeating: "0", count: 64))) }
                throws: { ($0 as? JSONRPCError)?.code == APIError.creativeNotFound.code }
            await admin.close()
            await sync.close()
        }
    }

    @Test("a valid campaign round-trips every field; bad ones are refused naming the field")
    func campaignsOverTheWire() async throws {
        try await withCampaignService { fixture in
            let admin = try fixture.admin()
            let first = try await fixture.uploadPNG(admin, seed: 1)
            let second = try await fixture.uploadPNG(admin, width: 1080, height: 2340, seed: 2)
            var fields = CampaignFixture.fields(name: "Double 12 · 双十二", creative: first, startIn: 600)
            fields.priority = 80
            fields.weight = 5
            fields.forced = false
            fields.countdown = 5
            fields.skipAfter = 2
            fields.launchTypes = [.cold, .hot]
            fields.minBackgroundSeconds = 300
            fields.jump = Jump(type: .url, value: "https://shop.example.com/1212?from=splash")
            fields.creatives = [CreativeRef(sha256: first, weight: 3), CreativeRef(sha256: second, weight: 1)]
            fields.targeting = Targeting(platforms: ["ios"], appVersions: VersionRange(min: "5.0", max: "6.0"), regions: ["cn-east"], locales: ["zh-CN"])
            fields.frequencyCap = FrequencyCap(shows: 3, hours: 24)
            let created = try await admin.call(AdminAPI.campaignCreate, fields)
            #expect(created.seq == 1 && created.campaign.state == .scheduled && created.campaign.version == 1)
            let fetched = try await admin.call(AdminAPI.campaignGet, CampaignID(id: created.campaign.id)).campaign
            #expect(fetched == created.campaign)
            #expect(fetched.name == "Double 12 · 双十二" && fetched.targeting == fields.targeting && fetched.creatives == fields.creatives)

            var bad = fields
            bad.creatives = [CreativeRef(sha256: String(repeating: "f", count: 64))]
            await #expect { try await admin.call(AdminAPI.campaignCreate, bad) } throws: { error in
                let error = error as? JSONRPCError
                return error?.code == -32602 && error?.data?["field"] == "creatives[0].sha256"
            }
            await #expect { try await admin.call("campaign.create", params: ["name": "x", "app": "shop", "startsAt": "tomorrow"]) } throws: { error in
                (error as? JSONRPCError)?.data?["field"] == "startsAt"
            }
            await #expect { try await admin.call(AdminAPI.campaignGet, CampaignID(id: 999)) } throws: { ($0 as? JSONRPCError)?.code == APIError.campaignNotFound.code }
            let expired = try await admin.call(AdminAPI.campaignExpire, CampaignID(id: created.campaign.id))
            #expect(expired.seq == 2 && expired.campaign.state == .expired)
            await #expect { try await admin.call(AdminAPI.campaignPause, CampaignID(id: created.campaign.id)) } throws: {
                ($0 as? JSONRPCError)?.code == APIError.invalidTransition.code
            }
            await admin.close()
        }
    }

    @Test("kill -9 right after an acknowledged write loses nothing, and seq goes on without a gap")
    func durability() async throws {
        try await withStopping(CampaignFixture()) { fixture in
            var admin = try fixture.admin()
            let creative = try await fixture.uploadPNG(admin)
            var lastSeq: Int64 = 0
            var ids: [Int64] = []
            for index in 0..<20 {
                let change = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "c\(index)", creative: creative))
                #expect(change.seq == lastSeq + 1)
                lastSeq = change.seq
                ids.append(change.campaign.id)
            }
            let forced = try await admin.call(AdminAPI.campaignForce, CampaignID(id: ids[3]))
            await admin.close()
            try await fixture.restart(signal: SIGKILL)  // at once after the answer
            admin = try fixture.admin()
            let list = try await admin.call(AdminAPI.campaignList, CampaignListParams())
            #expect(list.campaigns.map(\.id) == ids)
            #expect(list.campaigns[3].forced && list.campaigns[3].version == forced.campaign.version)
            let next = try await admin.call(AdminAPI.campaignPause, CampaignID(id: ids[0]))
            #expect(next.seq == forced.seq + 1)
            await admin.close()
        }
    }

    @Test("a subscriber that starts late, or loses messages, rebuilds the exact state from snapshot plus changes")
    func rebuild() async throws {
        try await withCampaignService { fixture in
            let admin = try fixture.admin()
            let sync = try fixture.sync()
            let creative = try await fixture.uploadPNG(admin)
            for index in 0..<10 { _ = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "early\(index)", creative: creative)) }
            // Late start: snapshot first, then changes after it.
            let snapshot = try await sync.call(SyncAPI.snapshot, SnapshotParams())
            #expect(snapshot.seq == 10 && snapshot.campaigns.count == 10)
            for index in 0..<10 { _ = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "late\(index)", creative: creative)) }
            _ = try await admin.call(AdminAPI.campaignExpire, CampaignID(id: 2))
            _ = try await admin.call(AdminAPI.campaignDelete, CampaignID(id: 3))
            var state = Dictionary(uniqueKeysWithValues: snapshot.campaigns.map { ($0.id, $0) })
            var applied = snapshot.seq
            // Lost messages: catch up from the change log, in pages.
            while true {
                let page = try await sync.call(SyncAPI.changes, ChangesParams(epoch: snapshot.epoch, since: applied, limit: 5))
                for change in page.changes {
                    #expect(change.seq == applied + 1)
                    state[change.id] = change.campaign
                    applied = change.seq
                }
                if applied == page.seq { break }
            }
            let fresh = try await sync.call(SyncAPI.snapshot, SnapshotParams())
            #expect(applied == fresh.seq)
            #expect(state.values.sorted { $0.id < $1.id } == fresh.campaigns)
            await #expect { try await sync.call(SyncAPI.changes, ChangesParams(epoch: "another", since: 0)) } throws: {
                ($0 as? JSONRPCError)?.code == APIError.changesUnavailable.code
            }
            await #expect { try await sync.call(SyncAPI.changes, ChangesParams(epoch: snapshot.epoch, since: fresh.seq + 5)) } throws: {
                ($0 as? JSONRPCError)?.code == APIError.changesUnavailable.code
            }
            await admin.close()
            await sync.close()
        }
    }

    @Test("sync.snapshot in pages: by id after a cursor, every campaign once, the whole snapshot without params; bad params named")
    func snapshotPages() async throws {
        try await withCampaignService { fixture in
            let admin = try fixture.admin()
            let sync = try fixture.sync()
            let creative = try await fixture.uploadPNG(admin)
            for index in 0..<7 { _ = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "c\(index)", creative: creative)) }
            _ = try await admin.call(AdminAPI.campaignDelete, CampaignID(id: 2))  // a tombstone is on its page too
            let whole = try await sync.call(SyncAPI.snapshot, SnapshotParams())
            #expect(whole.campaigns.map(\.id) == Array(1...7) && whole.next == nil)
            var pages: [Snapshot] = []
            var after: Int64 = 0
            while true {
                let page = try await sync.call(SyncAPI.snapshot, SnapshotParams(after: after, limit: 3))
                pages.append(page)
                guard let next = page.next else { break }
                after = next
            }
            #expect(pages.map { $0.campaigns.map(\.id) } == [[1, 2, 3], [4, 5, 6], [7]])
            #expect(pages.map(\.next) == [3, 6, nil])
            #expect(pages.allSatisfy { $0.epoch == whole.epoch && $0.seq == whole.seq })
            #expect(pages.flatMap(\.campaigns) == whole.campaigns)
            // `after` alone takes the default page; past the last id, an empty page ends it.
            #expect(try await sync.call(SyncAPI.snapshot, SnapshotParams(after: 5)).campaigns.map(\.id) == [6, 7])
            let past = try await sync.call(SyncAPI.snapshot, SnapshotParams(after: 7, limit: 10))
            #expect(past.campaigns.isEmpty && past.next == nil && past.seq == whole.seq)

            let peer = try TestPeer(fixture.context, type: .req, endpoint: try #require(fixture.endpoints["sync"]))
            for (params, field) in [(#"{"limit":0}"#, "limit"), (#"{"limit":10001}"#, "limit"), (#"{"after":-1}"#, "after"),
                                    (#"{"after":"1"}"#, "after"), (#"{"page":2}"#, "page")] {
                let reply = try #require(try await peer.request(#"{"jsonrpc":"2.0","id":1,"method":"sync.snapshot","params":"# + params + "}"))
                #expect(reply["error"]?["code"]?.intValue == -32602, "\(params): \(reply)")
                #expect(reply["error"]?["data"]?["field"]?.stringValue == field, "\(params): \(reply)")
            }
            await admin.close()
            await sync.close()
        }
    }

    @Test("a snapshot page and a page of changes stop at about 4 MiB of campaigns, however many were asked for")
    func pagesBoundedInBytes() async throws {
        try await withCampaignService { fixture in
            let admin = try fixture.admin()
            let sync = try fixture.sync()
            let creative = try await fixture.uploadPNG(admin)
            // About 36 KB each: the most regions a campaign may target, each of the longest name.
            var fields = CampaignFixture.fields(creative: creative)
            fields.targeting = Targeting(regions: (0..<CampaignRules.maxTargets).map { "region-\($0)-" + String(repeating: "x", count: 20) })
            let count = 140
            for _ in 0..<count { _ = try await admin.call(AdminAPI.campaignCreate, fields) }
            let size = try JSONEncoder().encode(try await sync.call(SyncAPI.snapshot, SnapshotParams(after: 0, limit: 1)).campaigns[0]).count
            #expect(size > 30_000)

            var after: Int64 = 0, seen = 0, pages = 0
            while true {
                let page = try await sync.call(SyncAPI.snapshot, SnapshotParams(after: after, limit: 1000))
                pages += 1
                seen += page.campaigns.count
                #expect(page.campaigns.count * size <= SyncAPI.maxPageBytes + size, "a page of \(page.campaigns.count) campaigns")
                guard let next = page.next else { break }
                #expect(page.campaigns.count < 1000)
                after = next
            }
            #expect(seen == count && pages >= 2, "\(seen) campaigns in \(pages) pages")

            let epoch = try await sync.call(SyncAPI.snapshot, SnapshotParams(after: 0, limit: 1)).epoch
            var since: Int64 = 0, changePages = 0
            while true {
                let page = try await sync.call(SyncAPI.changes, ChangesParams(epoch: epoch, since: since, limit: 1000))
                changePages += 1
                #expect(!page.changes.isEmpty && page.changes.count * size <= SyncAPI.maxPageBytes + size)
                since = page.changes.last?.seq ?? since
                if since >= page.seq { break }
            }
            #expect(since == Int64(count) && changePages >= 2, "\(since) changes in \(changePages) pages")
            await admin.close()
            await sync.close()
        }
    }

    @Test("a campaign ending 2 s ahead is published as expired within 100 ms of its end", arguments: StoreEngine.allCases)
    func expiryOnTime(engine: StoreEngine) async throws {
        try await withCampaignService(engine: engine) { fixture in
            let admin = try fixture.admin()
            let creative = try await fixture.uploadPNG(admin)
            try await withStopping(fixture.subscribe()) { subscriber in
                var messages = subscriber.messages.makeAsyncIterator()
                _ = await messages.next()  // subscribed (a heartbeat or a change)
                let created = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(creative: creative, startIn: -1, duration: 3))
                let endsAt = created.campaign.endsAt
                var expiredAt: Timestamp?
                while expiredAt == nil, let message = await messages.next() {
                    if message.is(UpdateStream.changed), message.params["op"] == "expired", message.params["id"]?.intValue == Int(created.campaign.id) {
                        expiredAt = Timestamp(seconds: Date().timeIntervalSince1970)
                    }
                }
                let lateness = try #require(expiredAt).milliseconds - endsAt.milliseconds
                #expect(lateness >= 0 && lateness < 100 * Int64(Sanitizer.slowdown), "published \(lateness) ms after the end")
                await admin.close()
            }
        }
    }

    @Test("concurrent writers: seq stays gapless and every change is published exactly once, in order", arguments: StoreEngine.allCases)
    func concurrentWriters(engine: StoreEngine) async throws {
        try await withCampaignService(engine: engine) { fixture in
            let setup = try fixture.admin()
            let creative = try await fixture.uploadPNG(setup)
            try await withStopping(fixture.subscribe(topics: ["campaign", "heartbeat"])) { subscriber in
                // The subscription is in place once a heartbeat arrives.
                let heartbeat = await collect(subscriber.messages) { $0.contains { $0.method == "heartbeat" } }
                #expect(!heartbeat.isEmpty)
                let writers = 4, each = 30
                let seqs = try await withThrowingTaskGroup(of: [Int64].self) { group in
                    for writer in 0..<writers {
                        let client = try fixture.admin()
                        group.addTask {
                            var seqs: [Int64] = []
                            for index in 0..<each {
                                seqs.append(try await client.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "w\(writer)-\(index)", creative: creative)).seq)
                            }
                            await client.close()
                            return seqs
                        }
                    }
                    return try await group.reduce(into: [Int64]()) { $0 += $1 }
                }
                #expect(seqs.sorted() == Array(1...Int64(writers * each)))
                let total = writers * each
                let published = await collect(subscriber.messages) { items in items.filter { $0.is(UpdateStream.changed) }.count >= total }
                    .filter { $0.is(UpdateStream.changed) }.compactMap { $0.params["seq"]?.intValue }
                #expect(published == Array(1...total))
                #expect(subscriber.dropped.load(ordering: .relaxed) == 0)
                await setup.close()
            }
        }
    }

    @Test("heartbeats carry epoch, seq and time every second; edges' acknowledgements feed edge.list", arguments: StoreEngine.allCases)
    func heartbeatsAndEdges(engine: StoreEngine) async throws {
        try await withCampaignService(engine: engine) { fixture in
            let admin = try fixture.admin()
            let sync = try fixture.sync()
            try await withStopping(fixture.subscribe(topics: ["heartbeat"])) { subscriber in
                var messages = subscriber.messages.makeAsyncIterator()
                let first = try #require(await messages.next())
                let second = try #require(await messages.next())
                #expect(first.method == "heartbeat" && first.params["seq"] == 0)
                let snapshot = try await sync.call(SyncAPI.snapshot, SnapshotParams())
                #expect(first.params["epoch"]?.stringValue == snapshot.epoch)
                let gap = try #require(Timestamp(rfc3339: second.params["time"]?.stringValue ?? "")).milliseconds
                    - #require(Timestamp(rfc3339: first.params["time"]?.stringValue ?? "")).milliseconds
                #expect(gap >= 900 && gap <= 1500)
                _ = try await sync.call(SyncAPI.ack, EdgeAck(edgeId: "edge-a", region: "cn-east", epoch: snapshot.epoch, appliedSeq: 0))
                let edges = try await admin.call(AdminAPI.edgeList, NoParams())
                #expect(edges.edges.map(\.edgeId) == ["edge-a"] && edges.edges[0].region == "cn-east" && !edges.edges[0].stale)
                await admin.close()
                await sync.close()
            }
        }
    }

    @Test("an edge's acknowledgement is saved at the next flush when its seq moves, every 2 seconds when only its time does, and as campaignd shuts down",
          arguments: StoreEngine.allCases)
    func acknowledgementsSaved(engine: StoreEngine) async throws {
        let kept = try makeTemporaryDirectory("acks")
        defer { removeTemporaryDirectory(kept) }
        let data = kept.appendingPathComponent("data").path
        let last = try await withCampaignService(engine: engine, configure: { $0.dataDirectory = data }) { fixture in
            let admin = try fixture.admin()
            let sync = try fixture.sync()
            let epoch = try await sync.call(SyncAPI.snapshot, SnapshotParams()).epoch
            // A change, so that seq 1 exists to be acknowledged.
            _ = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(creative: try await fixture.uploadPNG(admin)))
            /// Acknowledges `seq`; when campaignd heard it (edge.list answers from its memory).
            func ack(_ seq: Int64) async throws -> Timestamp {
                _ = try await sync.call(SyncAPI.ack, EdgeAck(edgeId: "edge-a", region: "cn-east", epoch: epoch, appliedSeq: seq))
                return try #require(try await admin.call(AdminAPI.edgeList, NoParams()).edges.first { $0.edgeId == "edge-a" }).lastSeen
            }
            func stored() async -> EdgeInfo? { try? await fixture.app.store.acknowledgements().first { $0.edgeId == "edge-a" } }

            let first = try await ack(0)
            #expect(await eventually(timeout: .seconds(5)) { await stored()?.lastSeen == first })
            // A new seq goes at the next flush (each 250 ms), not 2 seconds after the edge's last save.
            let moved = try await ack(1)
            #expect(await eventually(timeout: .seconds(1.2)) { await stored().map { $0.appliedSeq == 1 && $0.lastSeen == moved } ?? false })
            // The same seq again: within 2 seconds of that save the store keeps the save's time (edge.list has the new).
            var heard = moved
            for _ in 0..<4 {
                try await Task.sleep(for: .milliseconds(200))
                heard = try await ack(1)
            }
            try await Task.sleep(for: .milliseconds(600))
            let held = try #require(await stored())
            #expect(held.lastSeen == (moved.seconds(until: heard) < 2 ? moved : heard), "saved \(held.lastSeen), heard \(moved) and \(heard)")
            // Past 2 seconds, the time alone is saved.
            try await Task.sleep(for: .milliseconds(max(0, Int((2.1 - moved.seconds(until: Timestamp.now())) * 1000))))
            let due = try await ack(1)
            #expect(await eventually(timeout: .seconds(5)) { await stored()?.lastSeen == due })
            // Heard once more, not due: saved as campaignd shuts down.
            let last = try await ack(1)
            await admin.close()
            await sync.close()
            return last
        }
        if engine == .sqlite {
            // The file is opened again (a try more while the closed store's last connection lets go of it).
            var saved: Timestamp?
            _ = await eventually(timeout: .seconds(10)) {
                guard let edges = try? await SQLiteStore(directory: data).acknowledgements() else { return false }
                saved = edges.first { $0.edgeId == "edge-a" }?.lastSeen
                return true
            }
            #expect(saved == last)
        }
    }
}

@Suite("campaignd operations", .timeLimit(.minutes(2)))
struct CampaignOperationsTests {
    @Test("edge reports are counted once: a resend is not added, a stale id is refused with the last id taken")
    func reportsOnce() async throws {
        try await withCampaignService { fixture in
            let admin = try fixture.admin()
            let sync = try fixture.sync()
            let creative = try await fixture.uploadPNG(admin)
            let id = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(creative: creative)).campaign.id
            let counts = [CampaignStats(id: id, impressions: 3, clicks: 1, skips: 0)]
            let first = try await sync.call(SyncAPI.report, EdgeReport(edgeId: "e", reportId: 100, counts: counts))
            #expect(first.accepted && first.lastReportId == 100)
            let resend = try await sync.call(SyncAPI.report, EdgeReport(edgeId: "e", reportId: 100, counts: counts))
            #expect(!resend.accepted && resend.lastReportId == 100)
            let stale = try await sync.call(SyncAPI.report, EdgeReport(edgeId: "e", reportId: 50, counts: counts))
            #expect(!stale.accepted && stale.lastReportId == 100)
            let stats = try await admin.call(AdminAPI.campaignStats, CampaignStatsParams(id: id)).stats
            #expect(stats == [CampaignStats(id: id, impressions: 3, clicks: 1, skips: 0, reports: 0)])
            await admin.close()
            await sync.close()
        }
    }

    @Test("creatives over the size limit are refused, the limit is a flag")
    func creativeLimit() async throws {
        try await withCampaignService(configure: { $0.maxCreativeBytes = 100 }) { fixture in
            let admin = try fixture.admin()
            _ = try await fixture.uploadPNG(admin)  // 51 bytes: fine
            var big = CampaignFixture.png(width: 10, height: 10)
            big += [UInt8](repeating: 0, count: 200)
            await #expect {
                try await admin.call(AdminAPI.creativeUpload, CreativeUploadParams(contentType: "image/png", data: Data(big).base64EncodedString()))
            } throws: { error in
                (error as? JSONRPCError)?.code == APIError.creativeRefused.code && (error as? JSONRPCError)?.message.contains("limit") == true
            }
            await admin.close()
        }
    }

    @Test("a campaign whose end passed while campaignd was down is expired, and published, on start")
    func expiryWhileDown() async throws {
        try await withStopping(CampaignFixture()) { fixture in
            var admin = try fixture.admin()
            let creative = try await fixture.uploadPNG(admin)
            let created = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(creative: creative, startIn: -1, duration: 1.5))
            await admin.close()
            fixture.process.signal(SIGKILL)
            _ = await fixture.process.exitStatus()
            // The test is about time passing while campaignd is down: its end must go by before the restart.
            try await sleepUntil(created.campaign.endsAt)
            try await fixture.restart()
            admin = try fixture.admin()
            #expect(await eventually {
                (try? await admin.call(AdminAPI.campaignGet, CampaignID(id: created.campaign.id)).campaign.state) == .expired
            })
            let sync = try fixture.sync()
            let snapshot = try await sync.call(SyncAPI.snapshot, SnapshotParams())
            let changes = try await sync.call(SyncAPI.changes, ChangesParams(epoch: snapshot.epoch, since: created.seq)).changes
            #expect(changes.map(\.op) == [.expired])
            // The change log says who made it (the wire's change does not carry it).
            let log = try await SQLiteStore(directory: fixture.directory.appendingPathComponent("data").path).changeLog(after: created.seq, limit: 10)
            #expect(log.map(\.change.op) == [.expired] && log.map(\.actor) == ["scheduler"])
            await admin.close()
            await sync.close()
        }
    }

    @Test("/healthz answers with epoch and seq; /metrics counts requests by method and code")
    func http() async throws {
        try await withCampaignService { fixture in
            let admin = try fixture.admin()
            _ = try await fixture.uploadPNG(admin)
            _ = try? await admin.call(AdminAPI.campaignGet, CampaignID(id: 42))
            let base = "http://\(try #require(fixture.endpoints["http"]))"
            let (health, healthResponse) = try await URLSession.shared.data(from: URL(string: "\(base)/healthz")!)
            #expect((healthResponse as? HTTPURLResponse)?.statusCode == 200)
            let healthJSON = try JSONParser.parse([UInt8](health))
            #expect(healthJSON["status"] == "ok" && healthJSON["seq"] == 0 && healthJSON["epoch"]?.stringValue?.count == 32)
            let text = try await fixture.metrics().text
            #expect(text.contains(#"launchad_campaignd_requests_total{socket="admin",method="creative.upload",code="0"} 1"#), "\(text)")
            #expect(text.contains(#"launchad_campaignd_requests_total{socket="admin",method="campaign.get",code="-32001"} 1"#))
            #expect(text.contains("launchad_campaignd_seq 0"))
            await admin.close()
        }
    }
}
