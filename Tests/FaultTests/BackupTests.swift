import DurableFiles
import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdTesting
import Testing

extension FaultTests {
    /// `adctl backup` against a real campaignd on SQLite while writers go on, and a campaignd started again on the
    /// copy.
    @Suite("adctl backup: an online copy of the SQLite database, restored", .serialized, .timeLimit(.minutes(4)))
    struct BackupTests {
        static func adctl(_ arguments: [String], in directory: URL) async throws -> (status: Int32, output: String) {
            let process = try ChildProcess("adctl", arguments, directory: directory)
            return (await process.exitStatus(timeout: .seconds(60)) ?? -1, process.log)
        }

        @Test("a copy made under concurrent writes holds exactly the changes up to its seq, and campaignd restored from it serves them")
        func copyUnderWritesRestores() async throws {
            try await withStopping(CampaignFixture()) { fixture in
                let admin = try fixture.admin()
                let creative = try await fixture.uploadPNG(admin)
                try await withStopping(fixture.startEdge("edge-restore")) { edge in
                    let log = WriteLog()
                    let writing = Task { try await writeConcurrently(fixture, creative: creative, writers: 4, each: 150, log: log) }
                    #expect(await eventually(timeout: .seconds(60)) { await log.answered.count >= 100 })

                    let file = fixture.directory.appendingPathComponent("copy.sqlite")
                    let made = try await Self.adctl(["--endpoint", fixture.endpoints["admin"]!, "--json", "backup", file.path], in: fixture.directory)
                    try await writing.value
                    #expect(made.status == 0, "\(made.output)")
                    let info = try JSONParser.parse(made.output.trimmingCharacters(in: .whitespacesAndNewlines))
                    let seq = try #require(info["seq"]?.intValue)
                    let copyEpoch = try #require(info["epoch"]?.stringValue)
                    let sha256 = try #require(info["sha256"]?.stringValue)
                    let bytes = try Data(contentsOf: file)
                    #expect(CreativeFiles.name(of: bytes) == sha256 && bytes.count == info["bytes"]?.intValue)
                    let (epoch, current, before) = try await fixture.changeLog()
                    #expect(copyEpoch != epoch, "the copy has an epoch of its own")
                    #expect(await edge.waitFor(seq: current, epoch: epoch), "the edge applied every change before the restore")
                    #expect(before.count > seq, "the writers went on after the copy (\(before.count) changes, the copy holds \(seq))")

                    // A second copy to the same file needs --force, and leaves the first alone.
                    let again = try await Self.adctl(["--endpoint", fixture.endpoints["admin"]!, "backup", file.path], in: fixture.directory)
                    #expect(again.status != 0 && again.output.contains("exists"), "\(again.output)")
                    #expect(try Data(contentsOf: file) == bytes)

                    let resyncsBefore = try await edge.status().resyncs
                    // Restore: campaignd stopped, the copy put in place of the database (creatives' files stay where they are).
                    await admin.close()
                    try await fixture.restart(signal: SIGTERM, sameEndpoints: true) { data in
                        for suffix in ["", "-wal", "-shm"] {
                            try? FileManager.default.removeItem(at: data.appendingPathComponent("campaigns.sqlite\(suffix)"))
                        }
                        try FileManager.default.copyItem(at: file, to: data.appendingPathComponent("campaigns.sqlite"))
                    }
                    let (restoredEpoch, restoredSeq, restored) = try await fixture.changeLog()
                    #expect(restoredEpoch == copyEpoch && restoredSeq == Int64(seq))
                    #expect(restored.map(\.seq) == Array(1...Int64(seq)))
                    #expect(Array(before.prefix(seq)) == restored, "the copy's change log differs from the original's first \(seq) changes")
                    let campaigns = try await fixture.snapshot().campaigns
                    let expected = Set(restored.map(\.id))
                    #expect(Set(campaigns.map(\.id)) == expected)
                    for campaign in campaigns {
                        let last = restored.last { $0.id == campaign.id }
                        #expect(last?.campaign == campaign, "campaign \(campaign.id) is not as its last change left it")
                    }
                    // The restored campaignd takes writes after the copy's seq.
                    let after = try fixture.admin()
                    let created = try await after.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "after restore", creative: creative))
                    #expect(created.seq == Int64(seq) + 1)
                    // The edge, ahead of the restored seq in the old epoch, takes a snapshot and ends with the restored state.
                    #expect(await edge.waitFor(seq: created.seq, epoch: copyEpoch, timeout: .seconds(20)), "the edge did not follow the restored campaignd")
                    #expect(try await edge.status().resyncs > resyncsBefore, "the edge did not take a snapshot of the restored campaigns")
                    await after.close()
                }
            }
        }

        @Test("bad uses are refused with a reason: a folder as FILE, an unknown backup, a read past the end")
        func refusals() async throws {
            try await withStopping(CampaignFixture()) { fixture in
                let folder = try await Self.adctl(["--endpoint", fixture.endpoints["admin"]!, "backup", fixture.directory.path], in: fixture.directory)
                #expect(folder.status != 0 && folder.output.contains("is a folder"), "\(folder.output)")
                let admin = try fixture.admin()
                do {
                    _ = try await admin.call(AdminAPI.backupRead, BackupReadParams(backup: "nope", offset: 0))
                    Issue.record("an unknown backup was read")
                } catch let error as JSONRPCError {
                    #expect(error.code == APIError.backupUnavailable.code)
                }
                let info = try await admin.call(AdminAPI.backupCreate, NoParams())
                let whole = try await admin.call(AdminAPI.backupRead, BackupReadParams(backup: info.backup, offset: 0))
                #expect(whole.last && Data(base64Encoded: whole.data)?.count == Int(info.bytes))
                do {
                    _ = try await admin.call(AdminAPI.backupRead, BackupReadParams(backup: info.backup, offset: info.bytes + 1))
                    Issue.record("a read past the end was answered")
                } catch let error as JSONRPCError {
                    #expect(error.code == JSONRPCError.invalidParamsCode && error.message.contains("past the end"), "\(error)")
                }
                do {
                    _ = try await admin.call(AdminAPI.backupRead, BackupReadParams(backup: info.backup, offset: 0, length: BackupReadParams.maxLength + 1))
                    Issue.record("a read longer than the most was answered")
                } catch let error as JSONRPCError {
                    #expect(error.message.contains("length"), "\(error)")
                }
                await admin.close()
            }
        }
    }
}
