import CampaignFollowing
@testable import DeliveryService
import DurableFiles
import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdTesting
import Testing

/// The edge's own files in the cache folder: the report file and the event journal, read back as saved and never
/// trusted when a byte is off; and the event ledger's memory of counted events across a restart.
@Suite("edge report file and event journal", .timeLimit(.minutes(1)))
struct EdgeFilesTests {
    @Test("the report file reads back what was saved, is not written again for the same counts, and sets aside a file it cannot use")
    func reportFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("reportfile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(try ReportFile(directory: directory).load() == (.empty, nil))
        let file = ReportFile(directory: directory)
        let body = ReportFile.Body(lastReportId: 1_764_000_000_123,
                                   pending: EdgeReport(edgeId: "edge \"1\"", reportId: 1_764_000_000_123,
                                                       counts: [CampaignStats(id: 4, impressions: 10, clicks: 2, skips: 1)]),
                                   unsent: [HourlyCount(id: 4, hour: Timestamp(rfc3339: "2026-11-25T10:00:00Z")!, impressions: 3),
                                            HourlyCount(id: 9, hour: Timestamp(rfc3339: "2026-11-25T11:00:00Z")!, clicks: 1)])
        try file.save(body)
        #expect(try ReportFile(directory: directory).load() == (body, nil))
        // The same body again is not written: the file stays as it is, even if something else changed it.
        let written = try Data(contentsOf: file.url)
        try Data("x".utf8).write(to: file.url)
        try file.save(body)
        #expect(try Data(contentsOf: file.url) == Data("x".utf8))
        try written.write(to: file.url)
        func setAside() throws -> [String] { try filesSetAside("reports.json", in: directory) }
        // Damage anywhere is never trusted, nor overwritten: the file is set aside whole, under a name of its own each
        // time, and the next save writes a new one.
        let bytes = [UInt8](written)
        let bodyAt = bytes.count - 20, checksumAt = 20
        var expectedAside = 0
        for (what, damaged) in [("body", bytes.enumerated().map { $0.offset == bodyAt ? $0.element ^ 1 : $0.element }),
                                ("checksum", bytes.enumerated().map { $0.offset == checksumAt ? ($0.element == 0x61 ? 0x62 : 0x61) : $0.element }),
                                ("framing", Array(bytes.dropFirst())), ("cut", Array(bytes.dropLast(5))), ("empty", []),
                                // A verified body that is not a report file's is not taken either.
                                ("not a report", ChecksummedFile.contents(body: Array("{\"seq\":1}".utf8)))] {
            try Data(damaged).write(to: file.url)
            let (loaded, note) = try ReportFile(directory: directory).load()
            expectedAside += 1
            #expect(loaded == .empty && note?.original == file.url, "\(what)")
            #expect(!FileManager.default.fileExists(atPath: file.url.path), "\(what): left where the next save overwrites it")
            #expect(try setAside().count == expectedAside, "\(what)")
            if let note { #expect(try Data(contentsOf: note.setAside) == Data(damaged), "\(what): the bytes set aside are not the file's") }
        }
        // Something there that cannot be read at all (a folder in its place: root reads any file) is set aside too.
        try FileManager.default.createDirectory(at: file.url, withIntermediateDirectories: false)
        let (loaded, note) = try ReportFile(directory: directory).load()
        #expect(loaded == .empty && note?.reason == "a folder is in its place")
        #expect(try setAside().count == expectedAside + 1)
        #expect(!FileManager.default.fileExists(atPath: file.url.path))
        // The next save writes a new file, which reads back.
        try ReportFile(directory: directory).save(body)
        #expect(try ReportFile(directory: directory).load() == (body, nil))
        // A link to nowhere is no file.
        try FileManager.default.removeItem(at: file.url)
        try FileManager.default.createSymbolicLink(atPath: file.url.path, withDestinationPath: directory.appendingPathComponent("gone").path)
        #expect(try ReportFile(directory: directory).load() == (.empty, nil))
    }

    @Test("a file set aside takes a name of its own, and one that cannot be renamed is an error, not a file overwritten")
    func setAsideNames() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("setaside-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("devices.bin")
        let now = Date(timeIntervalSince1970: 1_796_000_000)  // 2026-11-30T00:53:20Z
        var names: [String] = []
        for round in 1...3 {
            try Data([UInt8(round)]).write(to: url)
            let note = try SetAsideFile.move(url, reason: "test", now: now)
            names.append(note.setAside.lastPathComponent)
            #expect(try Data(contentsOf: note.setAside) == Data([UInt8(round)]))
        }
        #expect(names == ["devices.bin.unusable-20261130T005320Z", "devices.bin.unusable-20261130T005320Z-2", "devices.bin.unusable-20261130T005320Z-3"])
        // Nothing there to rename: an error, never a silent success.
        #expect(throws: SetAsideFile.CannotSetAside.self) { try SetAsideFile.move(url, reason: "test", now: now) }
    }

    @Test("the event journal reads back its fingerprints in order across files, keeps two files, and cuts off a batch that does not verify")
    func eventJournal() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("journal-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let keyURL = directory.appendingPathComponent(EventJournal.keyName)
        func files() -> [Int] { EventJournal.journalFiles(in: directory) }
        func newest() -> URL { directory.appendingPathComponent("\(EventJournal.prefix)\(files().last!)") }

        // A new folder: nothing read, and the key is written with the first batch.
        var (journal, loaded) = EventJournal.open(directory: directory, perFile: 3)
        #expect(loaded.fingerprints.isEmpty && !loaded.discarded)
        #expect(!FileManager.default.fileExists(atPath: keyURL.path))
        let key = journal.key
        try journal.append([1, 2])
        try journal.append([])
        try journal.append([3, 4])
        #expect(FileManager.default.fileExists(atPath: keyURL.path))
        (journal, loaded) = EventJournal.open(directory: directory, perFile: 3)
        #expect(journal.key == key)
        #expect(loaded.fingerprints == [1, 2, 3, 4] && !loaded.discarded)

        // A file holds a generation (3 here), then the next begins and the one before the current goes.
        try journal.append([5])
        try journal.append([6, 7])
        #expect(files() == [1, 2])
        try journal.append([8, 9, 10])
        #expect(files() == [2, 3])
        (journal, loaded) = EventJournal.open(directory: directory, perFile: 3)
        #expect(loaded.fingerprints == [5, 6, 7, 8, 9, 10] && !loaded.discarded)

        // A batch cut short (a crash in a write), or one with a byte off, ends what is read; the next batch is
        // written where the good ones end.
        let good = try Data(contentsOf: newest())
        for damage in [{ (bytes: [UInt8]) in Array(bytes.dropLast(3)) },
                       { (bytes: [UInt8]) in bytes.enumerated().map { $0.offset == bytes.count - 1 ? $0.element ^ 0x10 : $0.element } }] {
            try Data(good).write(to: newest())
            (journal, _) = EventJournal.open(directory: directory, perFile: 10)
            try journal.append([11])
            try Data(damage([UInt8](try Data(contentsOf: newest())))).write(to: newest())
            (journal, loaded) = EventJournal.open(directory: directory, perFile: 10)
            #expect(loaded.fingerprints == [5, 6, 7, 8, 9, 10] && loaded.discarded)
            try journal.append([12])
            (journal, loaded) = EventJournal.open(directory: directory, perFile: 10)
            #expect(loaded.fingerprints == [5, 6, 7, 8, 9, 10, 12] && !loaded.discarded)
            #expect(files() == [2, 3])
        }
        try Data(good).write(to: newest())

        // Files older than the two newest (a rotation cut short) are deleted unread.
        try Data(EventJournal.batch([99])).write(to: directory.appendingPathComponent("\(EventJournal.prefix)1"))
        (journal, loaded) = EventJournal.open(directory: directory, perFile: 3)
        #expect(loaded.fingerprints == [5, 6, 7, 8, 9, 10] && files() == [2, 3])

        // Without a valid key the fingerprints mean nothing: a new key, and the files are deleted.
        try Data([1, 2, 3]).write(to: keyURL)
        (journal, loaded) = EventJournal.open(directory: directory, perFile: 3)
        #expect(loaded.fingerprints.isEmpty && loaded.discarded && files().isEmpty && journal.key != key)
    }

    @Test("an event counted before a restart is a duplicate after it, by the fingerprints the journal kept")
    func ledgerRemembers() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ledger-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        func event(_ id: String) -> LaunchEvent { LaunchEvent(eventId: id, type: .impression, campaignId: 1, deviceId: "d") }
        var (journal, loaded) = EventJournal.open(directory: directory, perFile: 100)
        var ledger = EventLedger(capacity: 200, key: journal.key)
        #expect(ledger.admit(event("a")) && ledger.admit(event("b")))
        var saved = ledger.takeForSave()
        #expect(saved.unsent.map(\.impressions) == [2] && saved.fingerprints.count == 2)
        try journal.append(saved.fingerprints)
        #expect(ledger.admit(event("c")))  // counted after the save: not on disk
        #expect(ledger.takeForSave().fingerprints.count == 1)
        ledger.putBack(fingerprints: [7])  // a write that failed: taken again with the next save, first
        #expect(ledger.admit(event("d")))
        saved = ledger.takeForSave()
        #expect(saved.fingerprints.first == 7 && saved.fingerprints.count == 2)

        (journal, loaded) = EventJournal.open(directory: directory, perFile: 100)
        ledger = EventLedger(capacity: 200, key: journal.key)
        ledger.remember(loaded.fingerprints)
        #expect(!ledger.admit(event("a")) && !ledger.admit(event("b")))
        #expect(ledger.admit(event("c")))
        // Another folder's key makes other fingerprints.
        #expect(EventKey.random().fingerprint("a") != journal.key.fingerprint("a"))
    }

    @Test("a device's reports of a campaign count once an hour, whatever their event ids, and again after a restart")
    func reportedOncePerDevice() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ledger-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let now = Timestamp(rfc3339: "2026-11-25T12:30:00Z")!
        func report(_ id: String, device: String = "d1", campaign: Int64 = 1, hours: Double = 0) -> LaunchEvent {
            LaunchEvent(eventId: id, type: .reported, campaignId: campaign, deviceId: device, at: now.adding(seconds: hours * 3600), reason: .misleading)
        }
        var (journal, loaded) = EventJournal.open(directory: directory, perFile: 100)
        var ledger = EventLedger(capacity: 200, key: journal.key)
        #expect(ledger.admit(report("a"), now: now))
        // Fresh ids from the same device, campaign and hour: duplicates.
        #expect(!ledger.admit(report("b"), now: now) && !ledger.admit(report("c"), now: now))
        // Another device, another campaign, another hour: each counted.
        #expect(ledger.admit(report("d", device: "d2"), now: now))
        #expect(ledger.admit(report("e", campaign: 2), now: now))
        #expect(ledger.admit(report("f", hours: -1), now: now))
        // Other events of the device keep their ids: an impression is not a report.
        #expect(ledger.admit(LaunchEvent(eventId: "b", type: .impression, campaignId: 1, deviceId: "d1", at: now), now: now))
        let saved = ledger.takeForSave()
        #expect(saved.unsent.compactMap(\.reasons).map(\.total).reduce(0, +) == 4)
        try journal.append(saved.fingerprints)
        (journal, loaded) = EventJournal.open(directory: directory, perFile: 100)
        ledger = EventLedger(capacity: 200, key: journal.key)
        ledger.remember(loaded.fingerprints)
        #expect(!ledger.admit(report("g"), now: now))
        #expect(ledger.admit(report("h", device: "d3"), now: now))
    }
}

@Suite("report files of older edges", .timeLimit(.minutes(1)))
struct OlderReportFileTests {
    @Test("an older edge's report file, with counts per campaign only, is read: its counts go under the hour it is read in")
    func olderReportFile() throws {
        let json = #"{"lastReportId":5,"unsent":[{"id":4,"impressions":3,"clicks":1,"skips":0}]}"#
        let old = try JSONValueDecoder(rejectUnknownKeys: true).decode(ReportFile.Body.self, fromJSON: Array(json.utf8))
        let now = Timestamp(rfc3339: "2026-11-25T10:42:00Z")!
        #expect(old.hourly(now: now) == [HourlyCount(id: 4, hour: Timestamp(rfc3339: "2026-11-25T10:00:00Z")!, impressions: 3, clicks: 1)])
        let new = ReportFile.Body(lastReportId: 6, pending: nil, unsent: old.hourly(now: now))
        #expect(new.unsent == old.unsent && new.hourly(now: now.adding(seconds: 7200)) == old.hourly(now: now))
    }
}

@Suite("reports that fit a sync call", .timeLimit(.minutes(1)))
struct ReportSplitTests {
    /// A report made of `base` and `taken` as the shipper makes it, sealed, in an `edge.report` call passed on by
    /// eight relays of 64-character ids: its bytes.
    static func callBytes(_ base: EdgeReport, _ taken: [HourlyCount]) throws -> Int {
        var report = base
        report.counts = HourlyCount.totals(taken)
        report.hourly = taken
        report.via = Array(repeating: String(repeating: "r", count: 64), count: 8)
        report.mac = String(repeating: "f", count: 64)
        let head = #"{"jsonrpc":"2.0","id":1099511627776,"method":"\#(SyncAPI.report.name)","params":"#
        return head.utf8.count + (try JSONValueEncoder().encodeJSON(report)).count + 1
    }

    @Test("counts past a sync call's room wait for the next report, the oldest hours first; each report fits the call, the largest counts and an app's 100 counts included")
    func split() throws {
        let hour = HourlyCount.hour(of: Timestamp(rfc3339: "2026-12-07T10:42:00Z")!)
        let big = Int64(1) << 40, reasons = ReportReasons(inappropriate: big, misleading: big, repetitive: big, other: big)
        var hourly: [HourlyCount] = []
        for id in Int64(1)...200 {
            for back in 0..<10 {
                hourly.append(HourlyCount(id: id * 1_000_003, hour: hour.adding(seconds: -3600 * Double(back)), sha256: String(repeating: "ab", count: 32),
                                          impressions: big, clicks: big, skips: big, reasons: reasons))
            }
        }
        hourly.shuffle()
        let apps = (0..<EdgeReport.appHoursPerReport).map {
            AppHourlyCount(app: String("com.example.app-\($0)-" + String(repeating: "x", count: 64)).prefix(AppID.maxBytes).description, hour: hour,
                           requests: big, noAds: big, timeouts: big, failures: big, shows: big)
        }
        let base = EdgeReport(edgeId: String(repeating: "e", count: 64), reportId: big, counts: [], hourly: [], apps: apps, region: "cn-east")
        var rest = hourly, shipped: [HourlyCount] = [], reports = 0
        while !rest.isEmpty {
            let (taken, left) = ReportShipper.fitting(rest, into: base, budget: ReportShipper.reportBudget)
            #expect(!taken.isEmpty)
            #expect(try Self.callBytes(base, taken) <= SyncAPI.maxCallBytes)
            // The oldest hours go first.
            #expect((taken.map(\.hour.milliseconds).max() ?? 0) <= (left.map(\.hour.milliseconds).min() ?? .max))
            shipped += taken
            rest = left
            reports += 1
        }
        #expect(Set(shipped) == Set(hourly) && shipped.count == hourly.count)
        #expect(reports > 1)
        // Few counts: all in one report.
        let few = Array(hourly.prefix(20))
        #expect(ReportShipper.fitting(few, into: base, budget: ReportShipper.reportBudget).rest.isEmpty)
        // One count alone goes even when the rest of the report leaves no room, so that counts always move on.
        #expect(ReportShipper.fitting(few, into: base, budget: 0).taken.count == 1)
    }
}
