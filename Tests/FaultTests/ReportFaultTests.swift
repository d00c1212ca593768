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


extension FaultTests {
    /// Report counts and event ids across kills, restarts and a report file that cannot be written: each event counted once.
    @Suite("reports across restarts", .serialized, .timeLimit(.minutes(10)))
    struct ReportFaultTests {
        @Test("report counts and event ids outlive edge restarts while campaignd is away (kill -9 once they are on disk, SIGTERM right after a report), and campaignd counts each event once")
        func reportCountsOutliveRestarts() async throws {
            try await withStopping(CampaignFixture()) { fixture in
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
                #expect(await eventually(timeout: .seconds(5)) { onDisk() == [0, 0, 0] && file.onDisk.lastReportId > 0 })
                // An edge killed after campaignd took its report but before its file said so: the report is sent again under
                // its id, and campaignd does not count it twice.
                await edge.stop()
                let taken = file.onDisk
                try file.save(ReportFile.Body(lastReportId: taken.lastReportId,
                                              pending: EdgeReport(edgeId: name, reportId: taken.lastReportId, counts: [CampaignStats(id: id, impressions: 3, clicks: 1, skips: 0)]),
                                              unsent: []))
                edge = try await fixture.startEdge(name)
                #expect(await eventually(timeout: .seconds(10)) { file.onDisk.pending == nil })
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
                try await Task.sleep(for: .seconds(5))  // two rounds more: nothing is sent again (no event to await for what must not happen)
                #expect(await counted() == [9, 3, 1])
                await edge.stop()
                await admin.close()
            }
        }

        @Test("counts far more than one sync call holds (after campaignd was away) go in reports that each fit it, a pending one too large included, and campaignd counts each once")
        func backlogShipsInReportsThatFit() async throws {
            try await withStopping(CampaignFixture()) { fixture in
                let admin = try fixture.admin()
                let creative = try await fixture.uploadPNG(admin)
                var ids: [Int64] = []
                for index in 0..<10 {
                    ids.append(try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "backlog \(index)", creative: creative)).campaign.id)
                }
                // Left in the cache folder by an edge that could not ship for days: 2,000 counts waiting (about 180 KB),
                // and a pending report of 1,000 more (about 90 KB), as an edge made them before reports were split, which
                // no sync call could carry.
                let name = "edge-backlog"
                let hour = HourlyCount.hour(of: .now())
                func counts(hours: Range<Int>, skips: Int64) -> [HourlyCount] {
                    ids.flatMap { id in hours.map { HourlyCount(id: id, hour: hour.adding(seconds: -3600 * Double($0)), impressions: 1, skips: skips) } }
                }
                let waiting = counts(hours: 1..<201, skips: 0), pendingCounts = counts(hours: 201..<301, skips: 1)
                let lastId = Timestamp.now().milliseconds - 60_000
                let pending = EdgeReport(edgeId: name, reportId: lastId, counts: HourlyCount.totals(pendingCounts), hourly: pendingCounts)
                #expect(try JSONValueEncoder().encodeJSON(pending).count > SyncAPI.maxCallBytes)
                let file = try Self.leave(ReportFile.Body(lastReportId: lastId, pending: pending, unsent: waiting), for: name, in: fixture)
                let edge = try await fixture.startEdge(name)
                func counted() async -> [[Int64]] {
                    var all: [[Int64]] = []
                    for id in ids { all.append(await ReportProbe(campaign: id, file: file).counted(admin) ?? []) }
                    return all
                }
                let expected = Array(repeating: [Int64(300), 0, 100], count: ids.count)
                #expect(await eventually(timeout: .seconds(30)) { await counted() == expected }, "\(edge.process.log.suffix(2000))")
                #expect(await eventually(timeout: .seconds(5)) { file.onDisk.pending == nil && file.onDisk.unsent.isEmpty
                    && (file.onDisk.unsentHourly ?? []).isEmpty })
                #expect(edge.process.log.contains("too large for a sync call"))
                try await Task.sleep(for: .seconds(5))  // two rounds more: nothing is sent again (no event to await for what must not happen)
                #expect(await counted() == expected)
                await edge.stop()
                await admin.close()
            }
        }

        @Test("a pending report numbered while the edge's clock ran days ahead, which campaignd refuses, goes again under an id from the clock")
        func reportIdFromAClockAhead() async throws {
            try await withStopping(CampaignFixture()) { fixture in
                let admin = try fixture.admin()
                let creative = try await fixture.uploadPNG(admin)
                let id = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(creative: creative)).campaign.id
                let name = "edge-ahead"
                let ahead = Timestamp.now().milliseconds + 3 * 86_400_000
                let hourly = [HourlyCount(id: id, hour: HourlyCount.hour(of: .now()), impressions: 4, clicks: 1)]
                let pending = EdgeReport(edgeId: name, reportId: ahead, counts: HourlyCount.totals(hourly), hourly: hourly)
                let file = try Self.leave(ReportFile.Body(lastReportId: ahead, pending: pending, unsent: []), for: name, in: fixture)
                let edge = try await fixture.startEdge(name)
                let probe = ReportProbe(campaign: id, file: file)
                #expect(await eventually(timeout: .seconds(20)) { await probe.counted(admin) == [4, 1, 0] }, "\(edge.process.log.suffix(1500))")
                #expect(edge.process.log.contains("refuses this report's id"))
                #expect(await eventually(timeout: .seconds(5)) { file.onDisk.pending == nil && file.onDisk.lastReportId < ahead })
                await edge.stop()
                await admin.close()
            }
        }

        @Test("a report file that does not verify is set aside whole, never overwritten, and the edge's counts since are shipped")
        func unusableReportFileSetAside() async throws {
            try await withStopping(CampaignFixture()) { fixture in
                let admin = try fixture.admin()
                let creative = try await fixture.uploadPNG(admin)
                let created = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(creative: creative))
                let id = created.campaign.id
                let name = "edge-unusable"
                let hourly = [HourlyCount(id: id, hour: HourlyCount.hour(of: .now()), impressions: 7)]
                let pending = EdgeReport(edgeId: name, reportId: Timestamp.now().milliseconds - 1000, counts: HourlyCount.totals(hourly), hourly: hourly)
                let file = try Self.leave(ReportFile.Body(lastReportId: pending.reportId, pending: pending, unsent: []), for: name, in: fixture)
                // One byte of the counts changed: the checksum no longer verifies.
                var damaged = try Data(contentsOf: file.url)
                let seven = damaged.lastIndex(of: UInt8(ascii: "7"))!
                damaged[seven] = UInt8(ascii: "9")
                try damaged.write(to: file.url)
                let edge = try await fixture.startEdge(name)
                let probe = ReportProbe(campaign: id, file: file)
                #expect(await eventually(timeout: .seconds(10)) { edge.process.log.contains("a report file that could not be used was set aside") })
                let folder = fixture.cacheDirectory(name)
                let aside = try filesSetAside("reports.json", in: folder)
                #expect(aside.count == 1)
                #expect(try aside.first.map { try Data(contentsOf: folder.appendingPathComponent($0)) } == damaged, "the file set aside is not the one found")
                // Its counts are not trusted; the edge's own go on as before.
                #expect(await edge.waitFor(seq: created.seq))
                try await probe.report(to: edge, impressions: 2)
                #expect(await eventually(timeout: .seconds(20)) { await probe.counted(admin) == [2, 0, 0] }, "\(edge.process.log.suffix(1500))")
                #expect(try filesSetAside("reports.json", in: folder) == aside)
                await edge.stop()
                await admin.close()
            }
        }

        /// The report file an earlier run of edge `name` left in its cache folder, holding `body`.
        static func leave(_ body: ReportFile.Body, for name: String, in fixture: CampaignFixture) throws -> ReportFile {
            try FileManager.default.createDirectory(at: fixture.cacheDirectory(name), withIntermediateDirectories: true)
            let file = ReportFile(directory: fixture.cacheDirectory(name))
            try file.save(body)
            return file
        }

        @Test("reports wait while the cache folder refuses the report file, so a restart that reads the older file counts nothing twice")
        func reportsWaitForTheirFile() async throws {
            try await withStopping(CampaignFixture()) { fixture in
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
                #expect(await eventually(timeout: .seconds(10)) { probe.onDisk() == [2, 0, 0] && probe.file.onDisk.pending != nil })
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
                try await Task.sleep(for: .seconds(6))  // three rounds with campaignd there: reports must wait out time itself
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
                try await Task.sleep(for: .seconds(5))  // two rounds more: nothing is sent again (no event to await for what must not happen)
                shipped = await probe.counted(admin)
                #expect(shipped == [2, 3, 0], "\(String(describing: shipped))")
                await edge.stop()
                await admin.close()
            }
        }
    }
}
