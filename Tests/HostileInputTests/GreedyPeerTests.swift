import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdTesting
import Testing
import ZeroMQ

/// Peers with valid keys that ask campaignd for large answers and never read them, or subscribe and stop reading, and
/// large changes passing through a relay: what campaignd and relayd hold is bounded in bytes, not only in messages.
@Suite("campaignd and relayd under greedy peers and large changes", .timeLimit(.minutes(3)))
struct GreedyPeerTests {
    /// A campaign of about 35 KB: a thousand 32-character regions.
    static func largeFields(creative: String, name: String = "large") -> CampaignFields {
        var fields = CampaignFixture.fields(name: name, creative: creative)
        fields.targeting = Targeting(regions: (0..<1000).map { "region-\(String(repeating: "x", count: 20))-\(1000 + $0)" })
        return fields
    }

    /// A campaign of about 195 KB: besides the regions, 800 locales of 200 characters.
    static func largerFields(creative: String) -> CampaignFields {
        var fields = largeFields(creative: creative)
        fields.targeting?.locales = (0..<800).map { index in "en-" + (0..<22).map { _ in "\(10_000_000 + index)" }.joined(separator: "-") }
        return fields
    }

    /// A DEALER that asks `count` times and never reads (its own queue holds one reply, so the rest wait in campaignd).
    /// Kept connected until `release` is signalled, so that campaignd keeps what it queued for it.
    static func askWithoutReading(context: ZMQContext, endpoint: String, request: String, count: Int, until release: DispatchSemaphore) throws {
        let socket = try Socket(context, type: .dealer)
        defer { socket.close() }
        try socket.setLinger(milliseconds: 0)
        try socket.setSendHighWaterMark(Int32(count))
        try socket.setReceiveHighWaterMark(1)
        try socket.connect(endpoint)
        let body = Array(request.utf8)
        for _ in 0..<count { _ = try socket.send(parts: [[], body]) }
        release.wait()
    }

    @Test("a peer asking for creative chunks on the sync socket and campaign lists on the admin socket, never reading: campaignd holds at most its bound of replies, answers Busy past it, and small calls go on")
    func heldReplies() async throws {
        let bound = 16 << 20
        try await withStopping(CampaignFixture(arguments: ["--max-held-reply-bytes", "\(bound)"])) { fixture in
            let admin = try fixture.admin()
            // A creative of 1 MiB: each creative.get of it answers 1.4 MB of base64.
            let png = CreativeInspector.pngHeader(width: 1080, height: 1920, trailer: [UInt8](repeating: 0x41, count: 1 << 20))
            let sha = try await admin.call(AdminAPI.creativeUpload, CreativeUploadParams(contentType: "image/png", data: Data(png).base64EncodedString())).sha256
            // Twenty campaigns of 35 KB: each campaign.list answers 0.7 MB.
            for index in 0..<20 { _ = try await admin.call(AdminAPI.campaignCreate, Self.largeFields(creative: sha, name: "large \(index)")) }
            let sync = try fixture.sync()
            // Each read once, as a peer that reads: what serving them normally allocates is in the baseline.
            #expect(try await sync.call(SyncAPI.creative, CreativeChunkParams(sha256: sha)).size == png.count)
            #expect(try await admin.call(AdminAPI.campaignList, CampaignListParams()).campaigns.count == 20)
            let pid = fixture.process.pid
            let before = try #require(residentBytes(pid))

            // 400 chunks (560 MB) and 400 lists (280 MB) asked for, none read.
            let chunks = 400, lists = 400
            let creativeGet = #"{"jsonrpc":"2.0","id":1,"method":"creative.get","params":{"sha256":"\#(sha)"}}"#
            let campaignList = #"{"jsonrpc":"2.0","id":1,"method":"campaign.list","params":{}}"#
            let context = fixture.context
            let syncEndpoint = try #require(fixture.endpoints["sync"]), adminEndpoint = try #require(fixture.endpoints["admin"])
            let release = DispatchSemaphore(value: 0)
            let greedy = Task {
                try await onThread {
                    try Self.askWithoutReading(context: context, endpoint: syncEndpoint, request: creativeGet, count: chunks, until: release)
                }
            }
            let greedyAdmin = Task {
                try await onThread {
                    try Self.askWithoutReading(context: context, endpoint: adminEndpoint, request: campaignList, count: lists, until: release)
                }
            }
            // Until campaignd has answered every call (the greedy peer still connected), its memory is sampled.
            var peak = before
            var metrics = try await fixture.metrics()
            func answered(_ socket: String, _ method: String, _ code: Int) -> Int {
                Int(metrics.value("launchad_campaignd_requests_total", labels: ["socket=\"\(socket)\"", "method=\"\(method)\"", "code=\"\(code)\""]) ?? 0)
            }
            func done() -> Bool {
                answered("sync", "creative.get", 0) + answered("sync", "creative.get", APIError.busy.code) == chunks + 1
                    && answered("admin", "campaign.list", 0) + answered("admin", "campaign.list", APIError.busy.code) == lists + 1
            }
            let deadline = ContinuousClock.now + .seconds(60)
            while !done() && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
                peak = max(peak, residentBytes(pid) ?? 0)
                metrics = try await fixture.metrics()
            }
            try await Task.sleep(for: .milliseconds(500))
            peak = max(peak, residentBytes(pid) ?? 0)
            // While the greedy peer's replies wait, a reading edge's small calls are answered.
            let epoch = try await sync.call(SyncAPI.snapshot, SnapshotParams(limit: 1)).epoch
            #expect(try await sync.call(SyncAPI.changes, ChangesParams(epoch: epoch, since: 0)).changes.count == 20)
            release.signal()
            release.signal()
            try await greedy.value
            try await greedyAdmin.value

            let chunksSent = answered("sync", "creative.get", 0) - 1, chunksRefused = answered("sync", "creative.get", APIError.busy.code)
            let listsSent = answered("admin", "campaign.list", 0) - 1, listsRefused = answered("admin", "campaign.list", APIError.busy.code)
            print("greedy peer: RSS \(before >> 20) MiB -> peak \(peak >> 20) MiB; creative.get \(chunksSent) answered, \(chunksRefused) Busy; "
                  + "campaign.list \(listsSent) answered, \(listsRefused) Busy")
            // Every call was answered, and past the bound with Busy: the bound was reached on both sockets.
            #expect(chunksSent + chunksRefused == chunks && chunksRefused > 0)
            #expect(listsSent + listsRefused == lists && listsRefused > 0)
            // Memory: the two sockets' bounds (16 MiB each), the calls in flight and the allocator's leftovers (measured: 77
            // MiB in all); unbounded, the 840 MB of replies asked for are held (measured: 833 MiB).
            #expect(peak - before < 2 * bound + 96 << 20, "RSS grew from \(before >> 20) MiB to a peak of \(peak >> 20) MiB")

            // Once the greedy peer is gone, its replies are let go and large answers go again.
            #expect(await eventually(timeout: .seconds(10)) {
                (try? await sync.call(SyncAPI.creative, CreativeChunkParams(sha256: sha)))?.size == png.count
            })
            await sync.close()
            await admin.close()
        }
    }

    @Test("a subscriber that stops reading while large changes are published: campaignd queues at most its bound in bytes for it")
    func stalledSubscriber() async throws {
        let bound = 4 << 20
        try await withStopping(CampaignFixture(arguments: ["--updates-queue-bytes", "\(bound)"])) { fixture in
            let admin = try fixture.admin()
            let sha = try await fixture.uploadPNG(admin)
            let created = try await admin.call(AdminAPI.campaignCreate, Self.largerFields(creative: sha))
            let id = created.campaign.id
            let pid = fixture.process.pid
            // Updates to `versions`, ten at a time.
            @Sendable func update(_ versions: Range<Int>) async throws {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for version in versions {
                        group.addTask {
                            _ = try await admin.call(AdminAPI.campaignUpdate, CampaignUpdateParams(id: id, fields: CampaignFields(priority: version % 100)))
                        }
                    }
                    try await group.waitForAll()
                }
            }
            // Changes published before anyone subscribed: what publishing them allocates is in the baseline.
            for first in stride(from: 2, to: 42, by: 10) { try await update(first..<(first + 10)) }

            // A subscriber that takes one message into its own queue, then never reads.
            let socket = try subscriberThatStops(context: fixture.context, endpoint: try #require(fixture.endpoints["updates"]))
            defer { socket.close() }
            try await Task.sleep(for: .milliseconds(300))  // the subscription reaches campaignd (PUB drops what no one asked for)
            let before = try #require(residentBytes(pid))
            // 300 changes of 195 KB: 58 MB that a queue of 100,000 messages would hold whole.
            let count = 300
            var peak = before
            for first in stride(from: 42, to: 42 + count, by: 10) {
                try await update(first..<(first + 10))
                peak = max(peak, residentBytes(pid) ?? 0)
            }
            let size = PageBound.bytes(of: try await admin.call(AdminAPI.campaignGet, CampaignID(id: id)).campaign)
            #expect(size > 190_000 && size < UpdateStream.largestMessage - 1024)
            #expect(try await admin.call(AdminAPI.campaignGet, CampaignID(id: id)).campaign.version == 41 + count)
            try await Task.sleep(for: .seconds(1))
            peak = max(peak, residentBytes(pid) ?? 0)
            print("stalled subscriber: \(count) changes of \(size) bytes; RSS \(before >> 20) MiB -> peak \(peak >> 20) MiB")
            // The bound, with room for the allocator (measured: 3 MiB); a queue bounded in messages alone holds the 58 MB
            // (measured: 58 MiB).
            #expect(peak - before < bound + 16 << 20, "RSS grew from \(before >> 20) MiB to a peak of \(peak >> 20) MiB")
            await admin.close()
        }
    }
}

extension GreedyPeerTests {
    @Test("relayd's change window holds at most its bound in bytes of large changes: an edge back from before it takes a snapshot, one within it catches up from the relay")
    func relayWindowBytes() async throws {
        let bound = 4 << 20
        try await withStopping(CampaignFixture()) { fixture in
            let admin = try fixture.admin()
            let sha = try await fixture.uploadPNG(admin)
            let created = try await admin.call(AdminAPI.campaignCreate, Self.largerFields(creative: sha))
            let id = created.campaign.id
            try await withStopping(fixture.startRelay("relay", arguments: ["--change-window-bytes", "\(bound)"])) { relay in
                let relaySync = try relay.sync()
                let start = try await admin.call(AdminAPI.campaignGet, CampaignID(id: id)).campaign.version
                #expect(await eventually(timeout: .seconds(15)) { (try? await relaySync.call(SyncAPI.snapshot, SnapshotParams(limit: 1)).seq) == created.seq })
                try await withStopping(fixture.startEdge("edge", sync: relay.endpoints["sync"], updates: relay.endpoints["updates"])) { edge in
                    #expect(await edge.waitFor(seq: created.seq))
                    await edge.stop()

                    // 60 changes of 195 KB (12 MB) while the edge is away: the window keeps the last 4 MiB of them.
                    var last = created.seq
                    for version in 0..<60 {
                        last = try await admin.call(AdminAPI.campaignUpdate, CampaignUpdateParams(id: id, fields: CampaignFields(priority: (start + version) % 100))).seq
                    }
                    let epoch = try await relaySync.call(SyncAPI.snapshot, SnapshotParams(limit: 1)).epoch
                    #expect(await eventually(timeout: .seconds(20)) { (try? await relaySync.call(SyncAPI.changes, ChangesParams(epoch: epoch, since: last - 1)).seq) == last })
                    let kept = try await relaySync.call(SyncAPI.changes, ChangesParams(epoch: epoch, since: last - 15)).changes
                    #expect(kept.map(\.seq) == Array((last - 14)...last))
                    let unavailable = await #expect(throws: JSONRPCError.self) {
                        try await relaySync.call(SyncAPI.changes, ChangesParams(epoch: epoch, since: created.seq))
                    }
                    #expect(unavailable?.code == APIError.changesUnavailable.code)
                    let trimmed = try await relay.metrics().value("launchad_relayd_window_trimmed_total", labels: ["bound=\"bytes\""]) ?? 0
                    // About 21 of the 60 changes fit in 4 MiB: the rest were let go for their bytes.
                    #expect(trimmed >= 35 && trimmed <= 45, "trimmed \(trimmed)")
                    func snapshots() async throws -> Double {
                        try await relay.metrics().value("launchad_relayd_requests_total", labels: ["method=\"sync.snapshot\"", "code=\"0\""]) ?? 0
                    }
                    let snapshotsBefore = try await snapshots()

                    // The edge comes back at the seq of the campaign's creation, before the window: it takes a snapshot from the relay and ends level.
                    try await withStopping(fixture.startEdge("edge", sync: relay.endpoints["sync"], updates: relay.endpoints["updates"])) { back throws in
                        #expect(await back.waitFor(seq: last, timeout: .seconds(30)))
                        #expect(try await snapshots() > snapshotsBefore)
                        await relaySync.close()
                        await admin.close()
                    }
                }
            }
        }
    }
}

extension GreedyPeerTests {
    @Test("a peer asking relayd's sync socket for creative chunks and never reading: the relay answers Busy past its bound, and small calls go on")
    func relayHeldReplies() async throws {
        let bound = 8 << 20
        try await withStopping(CampaignFixture()) { fixture in
            let admin = try fixture.admin()
            let png = CreativeInspector.pngHeader(width: 1080, height: 1920, trailer: [UInt8](repeating: 0x42, count: 1 << 20))
            let sha = try await admin.call(AdminAPI.creativeUpload, CreativeUploadParams(contentType: "image/png", data: Data(png).base64EncodedString())).sha256
            let created = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(creative: sha))
            try await withStopping(fixture.startRelay("relay", arguments: ["--max-held-reply-bytes", "\(bound)"])) { relay in
                let sync = try relay.sync()
                #expect(await eventually(timeout: .seconds(15)) { (try? await sync.call(SyncAPI.creative, CreativeChunkParams(sha256: sha)))?.size == png.count })
                let endpoint = try #require(relay.endpoints["sync"]), context = fixture.context, chunks = 100
                let release = DispatchSemaphore(value: 0)
                let greedy = Task {
                    try await onThread {
                        try Self.askWithoutReading(context: context, endpoint: endpoint,
                                                   request: #"{"jsonrpc":"2.0","id":1,"method":"creative.get","params":{"sha256":"\#(sha)"}}"#,
                                                   count: chunks, until: release)
                    }
                }
                func answered(_ code: Int) async throws -> Int {
                    Int(try await relay.metrics().value("launchad_relayd_requests_total", labels: ["method=\"creative.get\"", "code=\"\(code)\""]) ?? 0)
                }
                #expect(await eventually(timeout: .seconds(30)) { ((try? await answered(0)) ?? 0) + ((try? await answered(APIError.busy.code)) ?? 0) >= chunks + 1 })
                let busy = try await answered(APIError.busy.code)
                // 140 MB asked for, 8 MiB held: most were refused, and a small call is answered meanwhile.
                #expect(busy > chunks / 2, "\(busy) of \(chunks) refused")
                let epoch = try await sync.call(SyncAPI.snapshot, SnapshotParams(limit: 1)).epoch
                #expect(try await sync.call(SyncAPI.changes, ChangesParams(epoch: epoch, since: created.seq)).changes.isEmpty)
                release.signal()
                try await greedy.value
                await sync.close()
                await admin.close()
            }
        }
    }
}

/// A SUB socket connected to `endpoint`, subscribed to every topic, whose own queue holds one message.
func subscriberThatStops(context: ZMQContext, endpoint: String) throws -> Socket {
    let socket = try Socket(context, type: .sub)
    try socket.setLinger(milliseconds: 0)
    try socket.setReceiveHighWaterMark(1)
    try socket.subscribe("")
    try socket.connect(endpoint)
    return socket
}
