import CampaignStore
@testable import DeliveryService
import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdTesting
import Synchronization
import Testing
import ZMQRPC

/// Real processes under faults: campaignd and edges killed with SIGKILL in the middle of work, updates lost, an
/// edge cut off behind a proxy with its clock off, a new database, an unwritable cache folder. Each test checks
/// the promise of DESIGN's "Durability and failure" and "Force and expire" that the fault puts at risk.
///
/// The suite runs its tests one at a time (each starts several processes; on two cores they would starve each
/// other's heartbeats). `LAUNCHAD_FAULTS_LONG=1` runs the long variant (see `FaultScale`).
@Suite("faults", .serialized, .timeLimit(.minutes(10)))
struct FaultTests {
    @Test("kill -9 of campaignd under concurrent admin writes: every answered write is kept, seq has no gap or repeat, edges converge")
    func campaigndKilledUnderWrites() async throws {
        let fixture = try await CampaignFixture()
        let setup = try fixture.admin()
        let creative = try await fixture.uploadPNG(setup)
        let edge = try await fixture.startEdge("edge-w")
        let lossy = try await fixture.startEdge("edge-w-lossy", arguments: ["--updates-hwm", "1"])

        // Many calls in flight; kill -9 once enough were answered, while the writers keep going.
        let log = WriteLog()
        let writing = Task { try await writeConcurrently(fixture, creative: creative, each: 100_000, log: log) }
        #expect(await eventually(timeout: .seconds(60)) { await log.answered.count >= FaultScale.writesBeforeKill })
        fixture.process.signal(SIGKILL)
        _ = await fixture.process.exitStatus()
        try await writing.value
        let answered = await log.answered
        figure("campaignd killed after \(answered.count) answered writes; \(await log.failures) calls in flight failed")
        #expect(await log.failures == FaultScale.writers, "every writer should have been cut off by the kill")

        try await fixture.restart(signal: SIGKILL, sameEndpoints: true)
        let (epoch, seq, changes) = try await fixture.changeLog()
        // The log is seq 1, 2, 3, ... with nothing missing or repeated, and it ends at the service's seq.
        #expect(changes.map(\.seq) == Array(1...Int64(changes.count)))
        #expect(seq == Int64(changes.count))
        // Every answered write is in it, as answered.
        for write in answered {
            let change = changes.indices.contains(Int(write.seq) - 1) ? changes[Int(write.seq) - 1] : nil
            #expect(change?.id == write.id && change?.op == write.op && change?.campaign.version == write.version,
                    "answered write seq \(write.seq) (\(write.op) of \(write.id) v\(write.version)) is not in the log")
        }
        #expect(Set(answered.map(\.seq)).count == answered.count, "two answers carried the same seq")
        // The database's state is exactly the log replayed.
        let snapshot = try await fixture.snapshot()
        #expect(snapshot.epoch == epoch && snapshot.seq == seq && snapshot.campaigns == replay(changes))

        // The next write takes the next seq.
        let admin = try fixture.admin()
        let next = try await admin.call(AdminAPI.campaignExpire, CampaignID(id: answered[0].id))
        #expect(next.seq == seq + 1)
        let final = try await fixture.snapshot()
        for edge in [edge, lossy] {
            #expect(await edge.waitFor(seq: final.seq, epoch: final.epoch, timeout: .seconds(30)), "\(edge.name) did not converge")
            await expectSavedState(of: edge, in: fixture, equals: final)
        }
        await setup.close()
        await admin.close()
        await fixture.stop()
    }

    @Test("kill -9 of an edge while it applies a burst: the state it restarts from verifies, is a prefix of the log, holds every seq it acknowledged, and it converges")
    func edgeKilledDuringSync() async throws {
        let fixture = try await CampaignFixture()
        let admin = try fixture.admin()
        let creative = try await fixture.uploadPNG(admin)
        var edge = try await fixture.startEdge("edge-k")
        let first = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "first", creative: creative))
        #expect(await edge.waitFor(seq: first.seq, creatives: 1))

        let log = WriteLog()
        let each = FaultScale.edgeBurst / FaultScale.writers
        let writing = Task { try await writeConcurrently(fixture, creative: creative, each: each, log: log, timeout: .seconds(10)) }
        // Kill it in the middle of the burst.
        let target = first.seq + Int64(FaultScale.edgeBurst / 3)
        #expect(await eventually(timeout: .seconds(60)) { ((try? await edge.status().seq) ?? 0) >= target })
        let ackedBefore = try await admin.call(AdminAPI.edgeList, NoParams()).edges.first { $0.edgeId == "edge-k" }?.appliedSeq ?? 0
        await edge.stop(signal: SIGKILL)
        // Acknowledgements already sent may still land; none may name a seq the disk does not hold.
        try await Task.sleep(for: .milliseconds(200))
        let acked = try await admin.call(AdminAPI.edgeList, NoParams()).edges.first { $0.edgeId == "edge-k" }?.appliedSeq ?? 0
        #expect(acked >= ackedBefore)

        let cache = fixture.cacheDirectory("edge-k")
        let (saved, discarded) = savedState(cache)
        #expect(!discarded && saved.isLoaded, "the state file left by kill -9 does not verify")
        #expect(saved.seq >= acked, "campaignd was told seq \(acked) was applied, but the disk holds \(saved.seq)")
        let (_, _, changes) = try await fixture.changeLog()
        #expect(saved.campaigns.values.sorted { $0.id < $1.id } == replay(changes, count: Int(saved.seq)),
                "the saved state is not the log's state at its seq \(saved.seq)")
        #expect(unverifiedCreativeFiles(cache).isEmpty)
        figure("edge killed at seq \(saved.seq) (acknowledged \(acked)) of a burst of \(FaultScale.edgeBurst)")

        // Restarted, it answers from that state at once, then converges.
        edge = try await fixture.startEdge("edge-k")
        let restarted = try await edge.status()
        #expect(restarted.loaded && restarted.seq >= saved.seq)
        try await writing.value
        #expect(await log.failures == 0)
        let final = try await fixture.snapshot()
        #expect(await edge.waitFor(seq: final.seq, epoch: final.epoch, creatives: 1, timeout: .seconds(30)))
        await expectSavedState(of: edge, in: fixture, equals: final)
        await admin.close()
        await fixture.stop()
    }

    @Test("kill -9 of an edge while it downloads a large creative: it never serves bytes that do not hash to the name, and it converges")
    func edgeKilledDuringDownload() async throws {
        let fixture = try await CampaignFixture()
        let admin = try fixture.admin()
        let small = try await fixture.uploadPNG(admin)
        let large = try await fixture.uploadLargePNG(admin, bytes: 4 << 20, seed: 7)
        // The edge reaches campaignd's sync socket through a slow link, so the kill lands in the download.
        let link = try TCPProxy(upstream: fixture.endpoints["sync"]!)
        defer { link.stop() }
        var edge = try await fixture.startEdge("edge-dl", sync: link.endpoint)
        let warm = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "small", creative: small))
        #expect(await edge.waitFor(seq: warm.seq, creatives: 1))
        link.throttle(bytesPerSecond: 2 << 20)
        let before = link.counts.bytes
        var fields = CampaignFixture.fields(name: "large", creative: large)
        fields.priority = 90
        let created = try await admin.call(AdminAPI.campaignCreate, fields)
        // Well into the download (a quarter of its base64 through the link), not done.
        #expect(await eventually(timeout: .seconds(20)) { link.counts.bytes - before > (4 << 20) * 4 / 3 / 4 })
        await edge.stop(signal: SIGKILL)
        let cache = fixture.cacheDirectory("edge-dl")
        let (saved, discarded) = savedState(cache)
        #expect(!discarded && saved.creatives[large] == nil, "the edge claimed the creative before it had it")
        #expect(unverifiedCreativeFiles(cache).isEmpty)

        // What a crash can leave where the creative belongs: half of it (a torn copy, a disk that lost the end).
        let folder = cache.appendingPathComponent("creatives").appendingPathComponent(String(large.prefix(2)))
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let sync = try fixture.sync()
        let head = try await sync.call(SyncAPI.creative, CreativeChunkParams(sha256: large, offset: 0, length: 100_000))
        await sync.close()
        try Data(base64Encoded: head.data)!.write(to: folder.appendingPathComponent(large))
        try Data("leftover".utf8).write(to: folder.appendingPathComponent(".\(large).0000.tmp"))

        link.throttle(bytesPerSecond: nil)
        edge = try await fixture.startEdge("edge-dl", sync: link.endpoint)
        // Before it has verified the large creative it must not answer with it.
        let early = try await edge.query()
        if early.creative?.sha256 == large {
            #expect(sha256Hex(try await edge.creativeBytes(large)) == large, "answered with a creative it has not verified")
        }
        #expect(await edge.waitFor(seq: created.seq, creatives: 2, timeout: .seconds(30)))
        let answer = try await edge.query()
        #expect(answer.id == created.campaign.id && answer.creative?.sha256 == large)
        let served = try await edge.creativeBytes(large)
        #expect(served.count == 4 << 20 && sha256Hex(served) == large, "creative.get served bytes that do not hash to \(large)")
        let (code, overHTTP) = try await edge.httpCreative(large)
        #expect(code == 200 && sha256Hex(overHTTP) == large, "HTTP served bytes that do not hash to \(large)")
        #expect(unverifiedCreativeFiles(cache).isEmpty, "files left in the cache: \(unverifiedCreativeFiles(cache))")
        let final = try await fixture.snapshot()
        await expectSavedState(of: edge, in: fixture, equals: final)
        await admin.close()
        await fixture.stop()
    }

    @Test("a burst of changes through a receive HWM of 1: the edge loses updates, notices, and converges exactly")
    func lostUpdates() async throws {
        let fixture = try await CampaignFixture()
        let admin = try fixture.admin()
        let creative = try await fixture.uploadPNG(admin)
        let lossy = try await fixture.startEdge("edge-hwm1", arguments: ["--updates-hwm", "1"])
        let steady = try await fixture.startEdge("edge-steady")
        let warm = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "warm", creative: creative))
        #expect(await lossy.waitFor(seq: warm.seq, creatives: 1))
        #expect(await steady.waitFor(seq: warm.seq, creatives: 1))

        let log = WriteLog()
        let started = ContinuousClock.now
        try await writeConcurrently(fixture, creative: creative, each: FaultScale.burst / FaultScale.writers, log: log, timeout: .seconds(10))
        let wrote = ContinuousClock.now - started
        #expect(await log.failures == 0)
        let final = try await fixture.snapshot()
        #expect(final.seq == warm.seq + Int64(await log.answered.count))
        for edge in [lossy, steady] {
            #expect(await edge.waitFor(seq: final.seq, epoch: final.epoch, timeout: .seconds(FaultScale.long ? 120 : 30)),
                    "\(edge.name) did not converge")
        }
        let converged = ContinuousClock.now - started - wrote
        let lossyStatus = try await lossy.status()
        #expect(lossyStatus.gaps > 0, "the edge with a HWM of 1 never lost an update: the test proves nothing")
        // Every gap was filled from the change log (which campaignd keeps whole): the only snapshot is the first.
        #expect(lossyStatus.resyncs == 1, "\(lossyStatus.resyncs) snapshots")
        figure("burst of \(await log.answered.count) changes written in \(wrote); edges converged \(converged) after its end; " +
               "HWM-1 edge caught up \(lossyStatus.gaps) times, \(lossyStatus.resyncs) snapshots")
        for edge in [lossy, steady] { await expectSavedState(of: edge, in: fixture, equals: final) }
        // An edge that starts now takes the burst's campaigns in snapshot pages.
        let late = try await fixture.startEdge("edge-late", arguments: ["--snapshot-page", "100"])
        #expect(await late.waitFor(seq: final.seq, epoch: final.epoch, timeout: .seconds(30)), "edge-late did not converge")
        let pages = (final.campaigns.count + 99) / 100
        #expect(pages >= 2)
        #expect(await eventually { late.process.log.contains("pages=\(pages) ") }, "\(pages) pages: \(late.process.log.suffix(1500))")
        await expectSavedState(of: late, in: fixture, equals: final)
        await admin.close()
        await fixture.stop()
    }

    @Test("snapshot pages read while campaigns change: joined at the first page's seq and caught up from the log, they make the exact state")
    func snapshotPagesUnderChanges() async throws {
        let fixture = try await CampaignFixture()
        let admin = try fixture.admin()
        let sync = try fixture.sync()
        let creative = try await fixture.uploadPNG(admin)
        for index in 0..<9 { _ = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "c\(index)", creative: creative)) }
        // Between pages of three, changes to campaigns on pages already read, on the page being read next, and new ones.
        let writes: [Int: [@Sendable () async throws -> Void]] = [
            1: [{ _ = try await admin.call(AdminAPI.campaignForce, CampaignID(id: 1)) },
                { _ = try await admin.call(AdminAPI.campaignExpire, CampaignID(id: 5)) }],
            2: [{ _ = try await admin.call(AdminAPI.campaignDelete, CampaignID(id: 2)) },
                { _ = try await admin.call(AdminAPI.campaignPause, CampaignID(id: 8)) },
                { _ = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "new", creative: creative)) }],
        ]
        let served = Mutex(0)
        let taken = try await CampaignSync.pagedSnapshot(pageSize: 3, tries: 1, creatives: [:]) { params in
            let page = try await sync.call(SyncAPI.snapshot, params)
            let count = served.withLock { count in
                count += 1
                return count
            }
            for write in writes[count] ?? [] { try await write() }
            return page
        } catchUp: { state in
            try await CampaignSync.catchUp(state) { try await sync.call(SyncAPI.changes, $0) }
        }
        let joined = try #require(taken)
        let fresh = try await fixture.snapshot()
        #expect(fresh.seq == 14 && joined.pages == 4, "seq \(fresh.seq), \(joined.pages) pages")
        #expect(joined.state.epoch == fresh.epoch && joined.state.seq == fresh.seq)
        #expect(joined.state.campaigns.values.sorted { $0.id < $1.id } == fresh.campaigns)
        await admin.close()
        await sync.close()
        await fixture.stop()
    }

    @Test("creative downloads run at most 8 at once, however many are missing, and every one arrives once campaignd is reachable")
    func boundedDownloads() async throws {
        let fixture = try await CampaignFixture()
        let admin = try fixture.admin()
        let syncLink = try TCPProxy(upstream: fixture.endpoints["sync"]!)
        defer { syncLink.stop() }
        let first = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(creative: try await fixture.uploadPNG(admin)))
        let edge = try await fixture.startEdge("edge-downloads", sync: syncLink.endpoint)
        #expect(await edge.waitFor(seq: first.seq, creatives: 1))
        // With the sync socket unreachable, 20 new campaigns (known from the update stream) each want a creative:
        // their downloads hang until they time out, so those under way can be counted by their threads.
        syncLink.cut()
        var last = first.seq
        for seed in 1...20 {
            let creative = try await fixture.uploadPNG(admin, seed: seed)
            last = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "c\(seed)", creative: creative)).seq
        }
        #expect(await edge.waitFor(seq: last))
        let pid = edge.process.process.processIdentifier
        func downloads() -> Int {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
            return tasks.filter { (try? String(contentsOfFile: "/proc/\(pid)/task/\($0)/comm", encoding: .utf8))?.hasPrefix("rpc-creatives") == true }.count
        }
        var most = 0
        #expect(await eventually { most = max(most, downloads()); return most == 8 })
        // For 1 s, across a heartbeat's look for what is missing, and well before the first downloads time out (5 s):
        // a download that ends frees its place while its thread is still closing.
        for _ in 0..<100 {
            most = max(most, downloads())
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(most == 8)
        syncLink.heal()
        #expect(await edge.waitFor(seq: last, creatives: 21, timeout: .seconds(60)))
        await edge.stop()
        await admin.close()
        await fixture.stop()
    }

    @Test("an edge cut off behind a proxy, its clock 1.5 s (and another's 3 s) behind: never an expired ad, and it converges after healing")
    func partitionAndClockSkew() async throws {
        let fixture = try await CampaignFixture()
        let admin = try fixture.admin()
        let creative = try await fixture.uploadPNG(admin)
        let syncLink = try TCPProxy(upstream: fixture.endpoints["sync"]!)
        let updatesLink = try TCPProxy(upstream: fixture.endpoints["updates"]!)
        defer { syncLink.stop(); updatesLink.stop() }
        // Behind is the dangerous direction: by its own clock, a campaign has not ended yet when it has.
        let near = try await fixture.startEdge("edge-skew-1.5", sync: syncLink.endpoint, updates: updatesLink.endpoint,
                                               environment: ["DELIVERYD_TEST_CLOCK_OFFSET": "-1.5"])
        let far = try await fixture.startEdge("edge-skew-3", sync: syncLink.endpoint, updates: updatesLink.endpoint,
                                              environment: ["DELIVERYD_TEST_CLOCK_OFFSET": "-3"])
        let edges = [near, far]

        var longFields = CampaignFixture.fields(name: "long", creative: creative)
        longFields.priority = 50
        let long = try await admin.call(AdminAPI.campaignCreate, longFields)
        var endingFields = CampaignFixture.fields(name: "ending", creative: creative, startIn: -5, duration: 12)
        endingFields.priority = 90
        let ending = try await admin.call(AdminAPI.campaignCreate, endingFields)
        let endsAt = ending.campaign.endsAt
        for edge in edges {
            #expect(await edge.waitFor(seq: ending.seq, creatives: 1))
            // The edge has measured campaignd's clock from its heartbeats.
            #expect(await eventually(timeout: .seconds(5)) { ((try? await edge.status().skewSeconds) ?? 0) > 1.3 })
        }
        #expect(try await near.health()["clockSkewed"] == false)
        #expect(try await far.health()["clockSkewed"] == true)

        // Query every edge continuously: never "ending" at or after its end (by campaignd's clock, the test's),
        // never "long" from a state that holds its expiry.
        let tally = Tally()
        let longId = long.campaign.id, endingId = ending.campaign.id
        let querying = edges.map { edge in
            Task { [tally] in
                var expiredSeq = Int64.max
                while !Task.isCancelled {
                    let sent = Timestamp(seconds: Date().timeIntervalSince1970)
                    guard let answer = try? await edge.query() else { continue }
                    tally.answers.add(1, ordering: .relaxed)
                    if answer.hasAd && answer.id == endingId && sent >= endsAt {
                        tally.violation("\(edge.name) served 'ending' \(sent.milliseconds - endsAt.milliseconds) ms after its end")
                    }
                    if answer.revoked.contains(longId) { expiredSeq = min(expiredSeq, answer.seq) }
                    if answer.hasAd && answer.id == longId && answer.seq >= expiredSeq {
                        tally.violation("\(edge.name) served 'long' at seq \(answer.seq) after its expiry")
                    }
                    try? await Task.sleep(for: .milliseconds(5))
                }
            }
        }

        // Cut both links: the edges notice, and say so.
        syncLink.cut()
        updatesLink.cut()
        for edge in edges {
            #expect(await eventually(timeout: .seconds(8)) { (try? await edge.health()["stale"]) == true }, "\(edge.name) never said stale")
        }
        // Meanwhile the operator takes "long" down and forces a new one; "ending" reaches its end.
        let expired = try await admin.call(AdminAPI.campaignExpire, CampaignID(id: long.campaign.id))
        var urgentFields = CampaignFixture.fields(name: "urgent", creative: creative)
        urgentFields.priority = 10
        let urgent = try await admin.call(AdminAPI.campaignCreate, urgentFields)
        let forced = try await admin.call(AdminAPI.campaignForce, CampaignID(id: urgent.campaign.id))
        while Timestamp(seconds: Date().timeIntervalSince1970) < endsAt.adding(seconds: 1.5) {
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(try await near.status().seq < expired.seq, "the partition let the change through: the test proves nothing")
        let refused = syncLink.counts.refused + updatesLink.counts.refused

        syncLink.heal()
        updatesLink.heal()
        for edge in edges {
            #expect(await edge.waitFor(seq: forced.seq, timeout: .seconds(20)), "\(edge.name) did not converge after healing")
            #expect(try await edge.query().id == urgent.campaign.id)
            #expect(await eventually(timeout: .seconds(5)) { (try? await edge.health()["stale"]) == false })
        }
        try await Task.sleep(for: .milliseconds(300))
        for task in querying { task.cancel() }
        for task in querying { await task.value }
        #expect(tally.violations.isEmpty, "\(tally.violations)")
        figure("partition: \(tally.answers.load(ordering: .relaxed)) answers checked across the end and the heal; \(refused) reconnections refused while cut")
        let final = try await fixture.snapshot()
        for edge in edges { await expectSavedState(of: edge, in: fixture, equals: final) }
        await admin.close()
        await fixture.stop()
    }

    /// While the sync socket is unreachable, an acknowledgement waits out its timeout and its retries (three tries of
    /// 2 s) for an answer. The update stream still brings each change, and the edge must apply it at once rather than
    /// after such waits.
    @Test("the sync socket cut while the update stream flows: changes apply at once, the edge hears campaignd, and acknowledges after healing")
    func syncCutUpdatesFlow() async throws {
        let fixture = try await CampaignFixture()
        let admin = try fixture.admin()
        let creative = try await fixture.uploadPNG(admin)
        let syncLink = try TCPProxy(upstream: fixture.endpoints["sync"]!)
        defer { syncLink.stop() }
        let edge = try await fixture.startEdge("edge-sync-cut", sync: syncLink.endpoint)
        let first = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "first", creative: creative))
        #expect(await edge.waitFor(seq: first.seq, creatives: 1))

        syncLink.cut()
        // Long enough for heartbeats to arrive and their acknowledgements to hang.
        try await Task.sleep(for: .milliseconds(2_500))
        var last = first.seq
        var delays: [Duration] = []
        for round in 0..<4 {
            let change = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "cut \(round)", creative: creative))
            let sent = ContinuousClock.now
            #expect(await edge.waitFor(seq: change.seq, timeout: .seconds(10)), "change \(change.seq) never applied")
            delays.append(ContinuousClock.now - sent)
            last = change.seq
            try await Task.sleep(for: .milliseconds(700))
        }
        // Queued behind acknowledgements that hang (one per heartbeat, each up to 6 s), a change would wait for seconds
        // or, as heartbeats keep coming, never be reached.
        #expect(delays.allSatisfy { $0 < .milliseconds(600) }, "changes applied after \(delays)")
        #expect(try await edge.health()["stale"] == false, "the edge hears campaignd's heartbeats")
        #expect(try await edge.query().seq == last)
        #expect(syncLink.counts.refused > 0, "the edge never tried the cut sync socket again: the test proves nothing")

        syncLink.heal()
        #expect(await eventually(timeout: .seconds(10)) {
            (try? await admin.call(AdminAPI.edgeList, NoParams()).edges.first { $0.edgeId == "edge-sync-cut" }?.appliedSeq) == last
        }, "campaignd never heard what the edge applied")
        let milliseconds = delays.map { $0.components.seconds * 1000 + $0.components.attoseconds / 1_000_000_000_000_000 }
        figure("sync socket cut: changes applied \(milliseconds.map(String.init).joined(separator: ", ")) ms after their commit")
        await edge.stop()
        await admin.close()
        await fixture.stop()
    }

    /// campaignd's database restored from a copy taken earlier: the same epoch, behind what the edge applied. Its
    /// heartbeats are behind the edge, and the change log cannot answer from the edge's seq: the edge takes a snapshot
    /// and forgets the changes the restored database does not have.
    @Test("campaignd's database restored from an earlier copy, behind what an edge applied: the edge takes a snapshot and answers what it holds")
    func databaseRolledBack() async throws {
        let fixture = try await CampaignFixture()
        let admin = try fixture.admin()
        let creative = try await fixture.uploadPNG(admin)
        let edge = try await fixture.startEdge("edge-rollback")
        let kept = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "kept", creative: creative))
        #expect(await edge.waitFor(seq: kept.seq, creatives: 1))
        let backup = fixture.directory.appendingPathComponent("data-backup")
        try await fixture.restart(signal: SIGTERM, sameEndpoints: true) { data in
            try FileManager.default.copyItem(at: data, to: backup)
        }
        let epoch = try await edge.status().epoch
        var lost = kept.seq
        for name in ["lost 1", "lost 2", "lost 3"] {
            var fields = CampaignFixture.fields(name: name, creative: creative)
            fields.priority = 90
            lost = try await admin.call(AdminAPI.campaignCreate, fields).seq
        }
        #expect(await edge.waitFor(seq: lost, epoch: epoch))
        #expect(try await edge.query().id != kept.campaign.id)
        try await fixture.restart(signal: SIGTERM, sameEndpoints: true) { data in
            try FileManager.default.removeItem(at: data)
            try FileManager.default.copyItem(at: backup, to: data)
        }
        #expect(await eventually(timeout: .seconds(15)) {
            guard let status = try? await edge.status() else { return false }
            return status.epoch == epoch && status.seq == kept.seq && status.campaigns == 1
        }, "\(edge.process.log.suffix(1500))")
        #expect(try await edge.query().id == kept.campaign.id)
        #expect(try await edge.status().resyncs == 2)
        await edge.stop()
        await admin.close()
        await fixture.stop()
    }

    /// The live case (campaignd replaced under a running edge) is `DeliveryServiceTests.newEpoch`; here the edge is
    /// down while it happens and the new database has reached the same seq, so only the epoch tells them apart.
    @Test("campaignd's database replaced while an edge is down, at the same seq: the edge notices the epoch and takes a fresh snapshot")
    func newEpochAtSameSeq() async throws {
        let fixture = try await CampaignFixture()
        var admin = try fixture.admin()
        let creative = try await fixture.uploadPNG(admin)
        var old: [Int64] = []
        for index in 0..<3 {
            old.append(try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "old\(index)", creative: creative)).campaign.id)
        }
        var edge = try await fixture.startEdge("edge-epoch")
        #expect(await edge.waitFor(seq: 3, creatives: 1))
        let oldEpoch = try await edge.status().epoch
        await edge.stop(signal: SIGKILL)

        try await fixture.restart(signal: SIGKILL, sameEndpoints: true, freshData: true)
        await admin.close()
        admin = try fixture.admin()
        let newCreative = try await fixture.uploadPNG(admin, width: 1080, height: 2340, seed: 5)
        var fields = CampaignFixture.fields(name: "new", creative: newCreative)
        fields.app = "news"
        _ = try await admin.call(AdminAPI.campaignCreate, fields)
        _ = try await admin.call(AdminAPI.campaignCreate, fields)
        _ = try await admin.call(AdminAPI.campaignPause, CampaignID(id: 1))
        let fresh = try await fixture.snapshot()
        #expect(fresh.seq == 3 && fresh.epoch != oldEpoch)

        edge = try await fixture.startEdge("edge-epoch")
        #expect(await edge.waitFor(seq: 3, epoch: fresh.epoch, creatives: 1, timeout: .seconds(15)))
        let status = try await edge.status()
        #expect(status.resyncs >= 1 && status.campaigns == 2)
        // Nothing of the old database is answered any more.
        #expect(try await edge.query().hasAd == false)
        // The fresh snapshot lands before the new creative is fetched (the old one still counts as held until
        // then), so the new campaign may take a moment to be answered.
        let newsQuery = LaunchQueryParams(app: "news", platform: "ios", appVersion: "5.2.0", deviceId: "d-1")
        var news = try await edge.query(newsQuery)
        let deadline = ContinuousClock.now + .seconds(10)
        while !news.hasAd && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
            news = try await edge.query(newsQuery)
        }
        #expect(news.hasAd && news.id == 2 && news.epoch == fresh.epoch && news.creative?.sha256 == newCreative)
        await expectSavedState(of: edge, in: fixture, equals: fresh)
        await admin.close()
        await fixture.stop()
    }

    @Test("report counts and event ids outlive edge restarts while campaignd is away (kill -9 once they are on disk, SIGTERM right after a report), and campaignd counts each event once")
    func reportCountsOutliveRestarts() async throws {
        let fixture = try await CampaignFixture()
        var admin = try fixture.admin()
        let creative = try await fixture.uploadPNG(admin)
        let created = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "counted", creative: creative))
        let id = created.campaign.id
        let name = "edge-counts"
        let file = ReportFile(directory: fixture.cacheDirectory(name))
        var edge = try await fixture.startEdge(name)
        #expect(await edge.waitFor(seq: created.seq))
        let probe = ReportProbe(campaign: id, file: file)
        func report(impressions: Int = 0, clicks: Int = 0, skips: Int = 0) async throws {
            try await probe.report(to: edge, impressions: impressions, clicks: clicks, skips: skips)
        }
        func resend(_ serials: ClosedRange<Int>) async throws -> Int { try await probe.resend(serials, to: edge) }
        func counted() async -> [Int64]? { await probe.counted(admin) }
        func onDisk() -> [Int64] { probe.onDisk() }

        // Shipped while campaignd is there.
        try await report(impressions: 3, clicks: 1)
        #expect(await eventually(timeout: .seconds(10)) { await counted() == [3, 1, 0] })
        #expect(await eventually(timeout: .seconds(5)) { onDisk() == [0, 0, 0] && file.load().body.lastReportId > 0 })
        // An edge killed after campaignd took its report but before its file said so: the report is sent again under
        // its id, and campaignd does not count it twice.
        await edge.stop()
        let taken = file.load().body
        try file.save(ReportFile.Body(lastReportId: taken.lastReportId,
                                      pending: EdgeReport(edgeId: name, reportId: taken.lastReportId, counts: [CampaignStats(id: id, impressions: 3, clicks: 1, skips: 0)]),
                                      unsent: []))
        edge = try await fixture.startEdge(name)
        #expect(await eventually(timeout: .seconds(10)) { file.load().body.pending == nil })
        #expect(await counted() == [3, 1, 0])

        // campaignd goes away; the edge keeps taking reports and writes what it cannot ship to its cache folder.
        await fixture.kill()
        try await report(impressions: 2, skips: 1)
        #expect(await eventually(timeout: .seconds(10)) { onDisk() == [2, 0, 1] }, "\(onDisk())")
        await edge.stop(signal: SIGKILL)
        // Restarted while campaignd is still away: it goes on from the file, and knows every event it counted before
        // (those shipped and those waiting) when a client sends them again; a report, and SIGTERM at once.
        edge = try await fixture.startEdge(name)
        #expect(try await resend(1...7) == 7)
        try await report(impressions: 4, clicks: 2)
        await edge.stop()
        #expect(await edge.process.exitStatus() == 0)
        #expect(onDisk() == [6, 2, 1], "\(edge.process.log.suffix(1500))")
        #expect(edge.process.log.contains("kept in the cache folder"))

        // campaignd back: the next start ships all of it, once, and the file is left with nothing to send.
        try await fixture.restart(sameEndpoints: true)
        await admin.close()
        admin = try fixture.admin()
        edge = try await fixture.startEdge(name)
        #expect(try await resend(1...13) == 13)
        #expect(await eventually(timeout: .seconds(15)) { await counted() == [9, 3, 1] }, "\(edge.process.log.suffix(1500))")
        let shipped = await counted()
        #expect(shipped == [9, 3, 1])
        #expect(await eventually(timeout: .seconds(5)) { onDisk() == [0, 0, 0] })
        try await Task.sleep(for: .seconds(5))  // two rounds more: nothing is sent again
        #expect(await counted() == [9, 3, 1])
        await edge.stop()
        await admin.close()
        await fixture.stop()
    }

    @Test("reports wait while the cache folder refuses the report file, so a restart that reads the older file counts nothing twice")
    func reportsWaitForTheirFile() async throws {
        let fixture = try await CampaignFixture()
        var admin = try fixture.admin()
        let creative = try await fixture.uploadPNG(admin)
        let created = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "counted", creative: creative))
        let name = "edge-report-file"
        let reportsURL = fixture.cacheDirectory(name).appendingPathComponent("reports.json")
        let probe = ReportProbe(campaign: created.campaign.id, file: ReportFile(directory: fixture.cacheDirectory(name)))
        var edge = try await fixture.startEdge(name)
        #expect(await edge.waitFor(seq: created.seq))

        // campaignd away: a report waits on disk under its id, and clicks since beside it.
        await fixture.kill()
        try await probe.report(to: edge, impressions: 2)
        #expect(await eventually(timeout: .seconds(10)) { probe.onDisk() == [2, 0, 0] && probe.file.load().body.pending != nil })
        try await probe.report(to: edge, clicks: 3)
        #expect(await eventually(timeout: .seconds(12)) { probe.onDisk() == [2, 3, 0] }, "\(probe.onDisk()) \(edge.process.log.suffix(1500))")
        // The report file can no longer be written (its name becomes a folder: root ignores chmod), and campaignd
        // comes back. Nothing is shipped that the file does not hold.
        let older = try Data(contentsOf: reportsURL)
        try FileManager.default.removeItem(at: reportsURL)
        try FileManager.default.createDirectory(at: reportsURL, withIntermediateDirectories: false)
        try await fixture.restart(sameEndpoints: true)
        await admin.close()
        admin = try fixture.admin()
        #expect(await eventually(timeout: .seconds(10)) { edge.process.log.contains("cannot write the report file") })
        try await Task.sleep(for: .seconds(6))  // three rounds with campaignd there
        // (The report on disk may have reached campaignd: it was sent while campaignd was away, and libzmq kept it.)
        let during = await probe.counted(admin) ?? [0, 0, 0]
        #expect(during[1] == 0, "clicks shipped while the file could not say so: \(during)")

        // Killed, and started on the file as it was: each count reaches campaignd once.
        await edge.stop(signal: SIGKILL)
        try FileManager.default.removeItem(at: reportsURL)
        try older.write(to: reportsURL)
        edge = try await fixture.startEdge(name)
        var shipped: [Int64]?
        #expect(await eventually(timeout: .seconds(15)) { shipped = await probe.counted(admin); return shipped == [2, 3, 0] },
                "\(String(describing: shipped)) \(edge.process.log.suffix(1500))")
        #expect(await eventually(timeout: .seconds(5)) { probe.onDisk() == [0, 0, 0] })
        try await Task.sleep(for: .seconds(5))  // two rounds more: nothing is sent again
        shipped = await probe.counted(admin)
        #expect(shipped == [2, 3, 0], "\(String(describing: shipped))")
        await edge.stop()
        await admin.close()
        await fixture.stop()
    }

    @Test("a cache folder that refuses writes, with more new creatives than memory may hold: the rest wait without being fetched again, and those no campaign needs are let go")
    func unwritableCacheFull() async throws {
        let fixture = try await CampaignFixture()
        let admin = try fixture.admin()
        let warm = try await fixture.uploadPNG(admin)
        let edge = try await fixture.startEdge("edge-full", arguments: ["--creative-memory-bytes", "\(1 << 20)"])
        let first = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "before", creative: warm))
        #expect(await edge.waitFor(seq: first.seq, creatives: 1))
        let cache = fixture.cacheDirectory("edge-full")
        #expect(await eventually { savedState(cache).state.creatives.count == 1 })
        // Creatives cannot be written: their folder is moved away and a file takes its name.
        let folder = cache.appendingPathComponent("creatives"), aside = cache.appendingPathComponent("creatives-aside")
        try FileManager.default.moveItem(at: folder, to: aside)
        try Data("not a folder".utf8).write(to: folder)

        // Three of about 450 KB: memory (1 MiB) holds two.
        var shas: [String] = [], campaigns: [Int64: String] = [:]
        var seq: Int64 = 0
        for seed in 1...3 {
            let sha = try await fixture.uploadLargePNG(admin, bytes: 450_000, seed: UInt64(seed))
            let created = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "new \(seed)", creative: sha))
            shas.append(sha)
            campaigns[created.campaign.id] = sha
            seq = created.seq
        }
        func held() async -> Set<String> { await heldSet(edge, shas) }
        #expect(await edge.waitFor(seq: seq, creatives: 3), "\(edge.process.log.suffix(1500))")
        let heldFirst = await held()
        #expect(heldFirst.count == 2)
        // Heartbeats come and go: the one without room is not downloaded again and again.
        try await Task.sleep(for: .milliseconds(2500))
        let refusals = edge.process.log.components(separatedBy: "no room in memory").count - 1
        #expect(refusals == 1, "\(refusals) refusals: \(edge.process.log.suffix(1500))")
        let status = try await edge.status()
        #expect(status.creatives == 3 && !status.cacheWritable)

        // A campaign deleted: its creative, held only in memory, is let go, and the one waiting takes its room.
        let kept = await held()
        let waiting = try #require(shas.first { !kept.contains($0) })
        let (deletedID, deletedSHA) = try #require(campaigns.first { kept.contains($0.value) })
        let deleted = try await admin.call(AdminAPI.campaignDelete, CampaignID(id: deletedID))
        #expect(await edge.waitFor(seq: deleted.seq))
        #expect(await eventually(timeout: .seconds(5)) { await self.heldSet(edge, shas) == Set(shas).subtracting([deletedSHA]) },
                "\(edge.process.log.suffix(1500))")
        let heldAfter = await held()
        #expect(heldAfter.contains(waiting))
        #expect(try await edge.status().creatives == 3)

        // Room on disk again: what memory holds is written, and the creative let go is nowhere.
        try FileManager.default.removeItem(at: folder)
        try FileManager.default.moveItem(at: aside, to: folder)
        #expect(await eventually(timeout: .seconds(5)) {
            (try? await edge.status().cacheWritable) == true && savedState(cache).state.creatives.count == 3
        })
        let saved = savedState(cache).state
        #expect(saved.creatives[waiting] != nil && saved.creatives[deletedSHA] == nil)
        #expect(unverifiedCreativeFiles(cache).isEmpty)
        for sha in shas {
            let path = folder.appendingPathComponent(String(sha.prefix(2))).appendingPathComponent(sha).path
            #expect(FileManager.default.fileExists(atPath: path) == (sha != deletedSHA), "\(sha)")
        }
        await edge.stop()
        await admin.close()
        await fixture.stop()
    }

    private func heldSet(_ edge: EdgeProcess, _ shas: [String]) async -> Set<String> {
        var held = Set<String>()
        for sha in shas where (try? await edge.creativeBytes(sha)).map(sha256Hex) == sha { held.insert(sha) }
        return held
    }

    @Test("a cache folder that refuses writes: the edge keeps answering from memory, says so in /healthz, edge.status and metrics, and recovers")
    func unwritableCache() async throws {
        let fixture = try await CampaignFixture()
        let admin = try fixture.admin()
        let creative = try await fixture.uploadPNG(admin)
        let edge = try await fixture.startEdge("edge-ro")
        let first = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "before", creative: creative))
        #expect(await edge.waitFor(seq: first.seq, creatives: 1))
        #expect(try await edge.health()["cacheWritable"] == true)

        // Tests may run as root, where chmod stops nothing: break the paths instead. The state file's name becomes
        // a folder (its rename fails), and the folder a new creative goes into becomes a file (its write fails).
        var newCreative = ""
        for seed in 1... {
            newCreative = try await fixture.uploadPNG(admin, width: 1080, height: 2340, seed: seed)
            if newCreative.prefix(2) != creative.prefix(2) { break }
        }
        let cache = fixture.cacheDirectory("edge-ro")
        let stateURL = cache.appendingPathComponent("state.json")
        let blocked = cache.appendingPathComponent("creatives").appendingPathComponent(String(newCreative.prefix(2)))
        // The edge's save of what it holds must be done first, or it could put the file back between the two steps.
        #expect(await eventually {
            let saved = savedState(cache).state
            return saved.seq == first.seq && saved.creatives.count == 1
        })
        try FileManager.default.removeItem(at: stateURL)
        try FileManager.default.createDirectory(at: stateURL, withIntermediateDirectories: false)
        try Data("not a folder".utf8).write(to: blocked)

        var fields = CampaignFixture.fields(name: "during", creative: newCreative)
        fields.priority = 90
        let during = try await admin.call(AdminAPI.campaignCreate, fields)
        #expect(await edge.waitFor(seq: during.seq, creatives: 2))
        // Answers come from memory: the new campaign, with its creative's verified bytes.
        let answer = try await edge.query()
        #expect(answer.id == during.campaign.id && answer.creative?.sha256 == newCreative)
        #expect(sha256Hex(try await edge.creativeBytes(newCreative)) == newCreative)
        let (code, body) = try await edge.httpCreative(newCreative)
        #expect(code == 200 && sha256Hex(body) == newCreative)
        // And it says so.
        #expect(await eventually { (try? await edge.health()["cacheWritable"]) == false })
        let health = try await edge.health()
        #expect(health["status"] == "degraded" && health["cacheError"]?.stringValue?.isEmpty == false, "\(health)")
        #expect(try await edge.status().cacheWritable == false)
        #expect(try await edge.metrics().contains("launchad_deliveryd_cache_writable 0"))
        // campaignd is told what the edge applied (and serves), even though the disk refused it.
        #expect(await eventually {
            (try? await admin.call(AdminAPI.edgeList, NoParams()).edges.first?.appliedSeq) == during.seq
        })

        // Room again: the edge notices by itself and writes what it holds.
        try FileManager.default.removeItem(at: stateURL)
        try FileManager.default.removeItem(at: blocked)
        #expect(await eventually(timeout: .seconds(5)) { (try? await edge.health()["cacheWritable"]) == true })
        #expect(try await edge.health()["status"] == "ok")
        let (saved, discarded) = savedState(cache)
        #expect(!discarded && saved.seq == during.seq && saved.creatives[newCreative] != nil)
        #expect(unverifiedCreativeFiles(cache).isEmpty)
        #expect(FileManager.default.fileExists(atPath: blocked.appendingPathComponent(newCreative).path))

        // What it wrote is what a restart answers from, with campaignd gone.
        await edge.stop(signal: SIGKILL)
        await fixture.kill()
        let again = try await fixture.startEdge("edge-ro")
        let restarted = try await again.query()
        #expect(restarted.id == during.campaign.id && restarted.creative?.sha256 == newCreative)
        #expect(sha256Hex(try await again.creativeBytes(newCreative)) == newCreative)
        await again.stop()
        await admin.close()
        await fixture.stop()
    }
}

/// What the querying tasks saw.
final class Tally: Sendable {
    let answers = Atomic<Int>(0)
    private let found = Mutex<[String]>([])
    var violations: [String] { found.withLock { $0 } }
    func violation(_ text: String) { found.withLock { $0.append(text) } }
}

/// Reports of one campaign's events to an edge, numbered `ev-1`, `ev-2`…, and what campaignd and the edge's report
/// file say of them.
final class ReportProbe {
    let campaign: Int64
    let file: ReportFile
    private var serial = 0

    init(campaign: Int64, file: ReportFile) {
        self.campaign = campaign
        self.file = file
    }

    /// Sends new events; each must be accepted.
    func report(to edge: EdgeProcess, impressions: Int = 0, clicks: Int = 0, skips: Int = 0) async throws {
        var events: [LaunchEvent] = []
        for (type, count) in [(LaunchEvent.Kind.impression, impressions), (.click, clicks), (.skip, skips)] {
            for _ in 0..<count {
                serial += 1
                events.append(LaunchEvent(eventId: "ev-\(serial)", type: type, campaignId: campaign, deviceId: "d-\(serial)"))
            }
        }
        let answer = try await edge.client.call(ClientAPI.launchReport, LaunchReportParams(events: events))
        #expect(answer.accepted == events.count)
    }

    /// Sends again the events numbered `serials` (as clients do when an answer was lost); returns how many the edge
    /// took for duplicates.
    func resend(_ serials: ClosedRange<Int>, to edge: EdgeProcess) async throws -> Int {
        let events = serials.map { LaunchEvent(eventId: "ev-\($0)", type: .impression, campaignId: campaign, deviceId: "d-\($0)") }
        return try await edge.client.call(ClientAPI.launchReport, LaunchReportParams(events: events)).duplicates
    }

    /// campaignd's impressions, clicks and skips of the campaign, or `nil` when it has none or cannot say.
    func counted(_ admin: RPCClient) async -> [Int64]? {
        guard let stats = try? await admin.call(AdminAPI.campaignStats, CampaignStatsParams(id: campaign)).stats.first(where: { $0.id == campaign }) else {
            return nil
        }
        return [stats.impressions, stats.clicks, stats.skips]
    }

    /// What the edge's report file holds for the campaign, pending and unsent together.
    func onDisk() -> [Int64] {
        let body = file.load().body
        let all = (body.pending?.counts ?? []) + body.unsent
        return all.filter { $0.id == campaign }.reduce([0, 0, 0]) { [$0[0] + $1.impressions, $0[1] + $1.clicks, $0[2] + $1.skips] }
    }
}
