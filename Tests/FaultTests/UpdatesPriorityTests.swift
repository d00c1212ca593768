import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdTesting
import Testing

extension FaultTests {
    /// `--updates-priority`: the thread that receives and applies the update stream runs that many nice values ahead of
    /// the process's other threads where the process may lower a nice (CI runs as root), and at the process's where it
    /// may not; the log says which, once.
    @Suite("the update stream's priority", .serialized, .timeLimit(.minutes(2)))
    struct UpdatesPriorityTests {
        /// The nice `process`'s update stream thread should have with `boost`, its main thread's nice, and its threads.
        static func expected(_ process: ChildProcess, boost: Int) async throws -> (nice: Int, main: Int, threads: [ProcessThread]) {
            let pid = Int(process.pid)
            let threads = ProcessThread.list("\(pid)")
            let main = try #require(threads.first { $0.tid == pid }, "no main thread among \(threads)").nice
            let ahead = max(-20, main - boost)
            let allowed = await ProcessThread.mayLowerNice(to: ahead)
            return (boost > 0 && allowed ? ahead : main, main, threads)
        }

        /// Checks that `process` applies the update stream at the nice `boost` asks for where it may, that its other
        /// threads keep the process's, and that its log says which.
        static func check(_ process: ChildProcess, boost: Int) async throws {
            let (nice, main, threads) = try await expected(process, boost: boost)
            let subscribers = threads.filter { $0.name == "sub-updates" }
            #expect(!subscribers.isEmpty, "no sub-updates thread among \(threads)")
            #expect(subscribers.allSatisfy { $0.nice == nice }, "expected nice \(nice): \(subscribers)")
            let served = threads.filter { $0.name.hasPrefix("rpc-") }
            #expect(!served.isEmpty && served.allSatisfy { $0.nice == main }, "expected nice \(main): \(served)")
            let said = ["changes are applied ahead of the other threads", "changes are applied at the process's priority"]
            switch (boost, nice == main) {
            case (0, _):
                #expect(!said.contains { process.log.contains($0) }, "\(process.log)")
            case (_, false):
                #expect(await eventually(timeout: .seconds(5)) { process.log.contains(said[0]) }, "\(process.log)")
                #expect(process.log.contains("nice=\(nice)"), "\(process.log)")
            case (_, true):
                #expect(await eventually(timeout: .seconds(5)) { process.log.contains(said[1]) }, "\(process.log)")
                ProcessThread.noteFallbackOnly("\(process.name)'s update stream thread, asked to run \(boost) ahead, was checked to run at the process's nice \(main)")
            }
        }

        @Test("an edge behind a relay: each applies changes on a thread its --updates-priority ahead of its others, or 0 at the process's nice")
        func aheadWhereAllowed() async throws {
            try await withStopping(CampaignFixture()) { fixture in
                let admin = try fixture.admin()
                let creative = try await fixture.uploadPNG(admin)
                try await withStopping(fixture.startRelay("relay-ahead", arguments: ["--updates-priority", "7"])) { relay in
                    try await withStopping(fixture.startEdge("edge-ahead", arguments: ["--updates-priority", "3"],
                                                             sync: relay.endpoints["sync"], updates: relay.endpoints["updates"])) { behind in
                        try await withStopping(fixture.startEdge("edge-level", arguments: ["--updates-priority", "0"])) { level in
                            let created = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(creative: creative))
                            // The change went through the relay's update stream thread and each edge's.
                            #expect(await behind.waitFor(seq: created.seq, creatives: 1))
                            #expect(await level.waitFor(seq: created.seq, creatives: 1))

                            try await Self.check(relay.process, boost: 7)
                            try await Self.check(behind.process, boost: 3)
                            try await Self.check(level.process, boost: 0)

                            await admin.close()
                        }
                    }
                }
            }
        }

        @Test("an update priority that is not 0 to 20 is refused, from the flag or the environment, by deliveryd's and relayd's mains (every other refusal: DaemonOptionsTests, in process)")
        func refused() async throws {
            let directory = try makeTemporaryDirectory()
            defer { removeTemporaryDirectory(directory) }
            for program in ["deliveryd", "relayd"] {
                try await ChildProcess.expectRefused(program, ["--cache-dir", directory.appendingPathComponent("cache").path],
                                                     [(["--updates-priority", "21"], [:]), ([], ["\(program.uppercased())_UPDATES_PRIORITY": "-1"])],
                                                     message: "--updates-priority must be a number of nice values, 0 to 20",
                                                     directory: directory)
            }
        }
    }
}
