import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdTesting
import Testing
import ZMQRPC

extension FaultTests {
    /// Two campaignd over one real PostgreSQL (a cluster the suite shares, a database for each test): the leader killed under writes, expiry
    /// across a failover, PostgreSQL itself restarted under writes.
    @Suite("two campaignd on PostgreSQL: one leader, failover", .serialized, .timeLimit(.minutes(6)), .sharedPostgresCluster)
    struct PostgresFailoverTests {
        /// Two campaignd on one new database; `a` started first, and leading once its log says so.
        static func withPair(_ body: (PostgresCluster, CampaignFixture, CampaignFixture) async throws -> Void) async throws {
            try await withPostgresDatabase { url, cluster in
                try await withStopping(CampaignFixture(arguments: ["--database", url])) { a in
                    #expect(await eventually(timeout: .seconds(10)) { a.process.log.contains("leading") }, "\(a.process.log)")
                    try await withStopping(CampaignFixture(arguments: ["--database", url])) { b in
                        try await body(cluster, a, b)
                    }
                }
            }
        }

        @Test("kill -9 of the leader under writes through both: every answered write kept, seq gapless, the survivor publishes within 2 s, the edge keeps its epoch")
        func leaderKilledUnderWrites() async throws {
            try await Self.withPair { _, a, b in
                let setup = try b.admin()
                let creative = try await b.uploadPNG(setup)
                #expect(!b.process.log.contains("leading"), "only one campaignd leads")
                let both = [a, b].map { $0.endpoints }
                try await withStopping(b.startEdge("edge-pg", sync: both.map { $0["sync"]! }.joined(separator: ","),
                                                   updates: both.map { $0["updates"]! }.joined(separator: ","))) { edge in
                    // b does not lead: its stream is silent until it takes over.
                    try await withStopping(b.subscribe()) { survivor in
                        try await Task.sleep(for: .milliseconds(300))

                        let log = WriteLog()
                        let resyncsBefore = try await edge.status().resyncs
                        let writing = Task {
                            try await withThrowingTaskGroup(of: Void.self) { group in
                                group.addTask { try await writeConcurrently(a, creative: creative, writers: 4, each: 1_000, log: log) }
                                group.addTask { try await writeConcurrently(b, creative: creative, writers: 4, each: 125, log: log) }
                                try await group.waitForAll()
                            }
                        }
                        #expect(await eventually(timeout: .seconds(60)) { await log.answered.count >= 300 })
                        a.process.signal(SIGKILL)
                        let killed = ContinuousClock.now
                        _ = await a.process.exitStatus()
                        // Heartbeats (or changes) from the survivor: it took over.
                        let first = await collect(survivor.messages, timeout: .seconds(5)) { $0.contains { $0.method == "heartbeat" } }
                        let takeover = ContinuousClock.now - killed
                        figure("PostgreSQL failover: the survivor published \(takeover) after the leader's kill -9")
                        #expect(first.contains { $0.method == "heartbeat" } && takeover < .seconds(2), "took \(takeover)")
                        try await writing.value

                        let answered = await log.answered
                        let (epoch, seq, changes) = try await b.changeLog()
                        #expect(changes.map(\.seq) == Array(1...Int64(changes.count)) && seq == Int64(changes.count))
                        for write in answered {
                            let change = changes.indices.contains(Int(write.seq) - 1) ? changes[Int(write.seq) - 1] : nil
                            #expect(change?.id == write.id && change?.op == write.op && change?.campaign.version == write.version,
                                    "answered write seq \(write.seq) is not in the log")
                        }
                        #expect(answered.count >= 500, "\(answered.count) answered (the 500 through the survivor among them)")
                        // Every change after the takeover is published once, in order, and the edge follows without a snapshot.
                        let published = await collect(survivor.messages, timeout: .seconds(10)) { items in
                            items.contains { $0.is(UpdateStream.changed) && $0.params["seq"]?.intValue == Int(seq) }
                        }.filter { $0.is(UpdateStream.changed) }.compactMap { $0.params["seq"]?.intValue }
                        #expect(Set(published).count == published.count && published == published.sorted(), "\(published)")
                        #expect(await edge.waitFor(seq: seq, epoch: epoch, timeout: .seconds(20)), "the edge did not follow the survivor")
                        let status = try await edge.status()
                        #expect(status.epoch == epoch && status.resyncs == resyncsBefore, "snapshots taken: \(resyncsBefore) before, \(status.resyncs) after")
                        // An operator's write through both endpoints (the dead leader first) lands on the survivor, and --wait
                        // sees the edge apply it.
                        let operatorWrite = try ChildProcess("adctl", [
                            "--endpoint", both.map { $0["admin"]! }.joined(separator: ","), "campaign", "create", "--name", "after failover",
                            "--app", "shop", "--starts", "now", "--ends", "+2h", "--creative", "\(creative):3", "--wait",
                        ], directory: b.directory)
                        let exit = await operatorWrite.exitStatus(timeout: .seconds(60))
                        #expect(exit == 0 && operatorWrite.log.contains("edge-pg") && operatorWrite.log.contains("seq \(seq + 1)"), "\(operatorWrite.log)")
                        await setup.close()
                    }
                }
            }
        }

        @Test("adctl backup on PostgreSQL is refused with a reason, and nothing is written")
        func backupRefused() async throws {
            try await withPostgresDatabase { url, _ in
                try await withStopping(CampaignFixture(arguments: ["--database", url])) { fixture in
                    let file = fixture.directory.appendingPathComponent("copy.sqlite")
                    let process = try ChildProcess("adctl", ["--endpoint", fixture.endpoints["admin"]!, "backup", file.path], directory: fixture.directory)
                    let exit = await process.exitStatus(timeout: .seconds(30))
                    #expect(exit == 1 && process.log.contains("PostgreSQL's own tools"), "\(process.log)")
                    #expect(!FileManager.default.fileExists(atPath: file.path))
                }
            }
        }

        @Test("PostgreSQL away: an admin call is answered within 11 s with an error that says so, /healthz says 503, and both recover by themselves")
        func databaseAway() async throws {
            try await withPostgresDatabase { url, cluster in
                try await withStopping(CampaignFixture(arguments: ["--database", url])) { fixture in
                    let admin = try fixture.admin(timeout: .seconds(30))
                    let health = try #require(URL(string: "http://\(fixture.endpoints["http"]!)/healthz"))
                    func healthStatus() async -> Int? {
                        var request = URLRequest(url: health)
                        request.timeoutInterval = 15
                        return ((try? await URLSession.shared.data(for: request))?.1 as? HTTPURLResponse)?.statusCode
                    }
                    _ = try await admin.call(AdminAPI.campaignList, CampaignListParams())
                    #expect(await healthStatus() == 200)

                    try cluster.stop(immediately: true)
                    let asked = ContinuousClock.now
                    do {
                        _ = try await admin.call(AdminAPI.campaignList, CampaignListParams())
                        Issue.record("answered while PostgreSQL was away")
                    } catch let error as JSONRPCError {
                        #expect(error.code == JSONRPCError.internalErrorCode && error.message.contains("campaign store (PostgreSQL) cannot be reached"), "\(error)")
                    }
                    #expect(ContinuousClock.now - asked < .seconds(11), "the call took \(ContinuousClock.now - asked)")
                    #expect(await healthStatus() == 503)
                    #expect(fixture.process.log.contains("cannot use the database"), "the log names the database and the reason")
                    // The leader tries again five times a second, and says so once, then every ten seconds.
                    let away = ContinuousClock.now - asked
                    let tries = fixture.process.log.components(separatedBy: "leadership: lost or not reachable; trying again").count - 1
                    #expect(tries >= 1 && tries <= 2 + Int(away / .seconds(10)), "\(tries) lines in \(away): \(fixture.process.log.suffix(2_000))")

                    try cluster.start()
                    #expect(await eventually(timeout: .seconds(20)) {
                        (try? await admin.call(AdminAPI.campaignList, CampaignListParams())) != nil
                    }, "campaignd did not reconnect: \(fixture.process.log.suffix(4_000))")
                    #expect(await eventually(timeout: .seconds(10)) { fixture.process.log.contains("leadership: PostgreSQL reached again") },
                            "\(fixture.process.log.suffix(2_000))")
                    #expect(await healthStatus() == 200)
                    await admin.close()
                }
            }
        }

        @Test("a campaign ending across a failover is expired once, within 100 ms of its end")
        func expiryAcrossFailover() async throws {
            try await Self.withPair { _, a, b in
                let admin = try b.admin()
                let creative = try await b.uploadPNG(admin)
                let created = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(creative: creative, startIn: -1, duration: 4))
                try await withStopping(b.subscribe()) { subscriber in
                    a.process.signal(SIGKILL)
                    _ = await a.process.exitStatus()
                    var expiredAt: [Timestamp] = []
                    let messages = await collect(subscriber.messages, timeout: .seconds(8)) { items in
                        items.contains { $0.is(UpdateStream.changed) && $0.params["op"] == "expired" }
                    }
                    for message in messages where message.is(UpdateStream.changed) && message.params["op"] == "expired" {
                        expiredAt.append(Timestamp(seconds: Date().timeIntervalSince1970))
                    }
                    let lateness = try #require(expiredAt.first).milliseconds - created.campaign.endsAt.milliseconds
                    #expect(lateness >= 0 && lateness < 100 * Int64(Sanitizer.slowdown), "published \(lateness) ms after the end")
                    let (_, _, changes) = try await b.changeLog()
                    #expect(changes.filter { $0.op == .expired }.count == 1)
                    await admin.close()
                }
            }
        }

        @Test("PostgreSQL restarted under writes: the leader tries again while it is away, campaignd reconnects by itself, and nothing answered is lost")
        func databaseRestartedUnderWrites() async throws {
            try await Self.withPair { cluster, a, b in
                let setup = try a.admin()
                let creative = try await a.uploadPNG(setup)
                let log = WriteLog()
                let writing = Task {
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask { try await writeConcurrently(a, creative: creative, writers: 3, each: 150, log: log, timeout: .seconds(10)) }
                        group.addTask { try await writeConcurrently(b, creative: creative, writers: 3, each: 150, log: log, timeout: .seconds(10)) }
                        try await group.waitForAll()
                    }
                }
                #expect(await eventually(timeout: .seconds(60)) { await log.answered.count >= 100 })
                let stopping = ContinuousClock.now
                try cluster.stop(immediately: true)
                let stopped = ContinuousClock.now
                // The leader's duties end with its session, in the middle of a read or write too, and it tries to lead
                // again while PostgreSQL is away, rather than waiting for the pool to give up a wait for a connection
                // (10 s, counted from a moment before the stop). The wait is looked at for longer than the bound, so a
                // failure says which it was: late, at the pool's time, or never.
                let triedAgain = await eventually(timeout: .seconds(15)) {
                    a.process.log.contains("leadership: lost or not reachable; trying again")
                }
                let waited = ContinuousClock.now - stopped
                #expect(triedAgain && waited < .seconds(7),
                        """
                        the leader \(triedAgain ? "tried again \(waited) after the stop" : "did not try again in \(waited)") \
                        (pg_ctl stop took \(stopped - stopping)): \(a.process.log.suffix(2_000))
                        PostgreSQL's log: \(cluster.log.suffix(1_500))
                        """)
                try cluster.start()
                try await writing.value
                let answered = await log.answered
                // After the restart both answer again.
                for fixture in [a, b] {
                    let admin = try fixture.admin()
                    #expect(await eventually(timeout: .seconds(15)) {
                        (try? await admin.call(AdminAPI.campaignList, CampaignListParams())) != nil
                    }, "campaignd did not reconnect: \(fixture.process.log.suffix(4_000))")
                    await admin.close()
                }
                let (_, seq, changes) = try await b.changeLog()
                #expect(changes.map(\.seq) == Array(1...Int64(changes.count)) && seq == Int64(changes.count))
                for write in answered {
                    let change = changes.indices.contains(Int(write.seq) - 1) ? changes[Int(write.seq) - 1] : nil
                    #expect(change?.id == write.id && change?.op == write.op && change?.campaign.version == write.version,
                            "answered write seq \(write.seq) is not in the log")
                }
                await setup.close()
            }
        }
    }
}
