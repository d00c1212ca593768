import CampaignStore
import DurableFiles
import Foundation
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdTesting
import Testing

/// A campaign changed thousands of times, each change carrying it whole: its page reads a bounded page of its history.
@Suite("The console's campaign page with a long history, against a campaignd process", .timeLimit(.minutes(3)))
struct ConsoleHistoryTests {
    /// The resident memory of `pid`, from `VmRSS` in /proc/PID/status.
    static func residentBytes(_ pid: Int32) -> Int {
        let text = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = text.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return (line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0) * 1024
    }

    /// The `seq`s of the history table's rows, in page order.
    static func seqs(_ page: String) -> [Int64] {
        guard let table = page.range(of: "<table id=\"history\">") else { return [] }
        return page[table.upperBound...].components(separatedBy: "<tr><td>").dropFirst().compactMap { row in
            Int64(row.prefix { $0.isNumber })
        }
    }

    /// The "Older changes" link's `before`, if the page has one.
    static func older(_ page: String, id: Int64) -> Int64? {
        let prefix = "id=\"older\" href=\"/campaigns/\(id)?before="
        guard let start = page.range(of: prefix) else { return nil }
        return Int64(page[start.upperBound...].prefix { $0.isNumber })
    }

    @Test("800 changes of a 50 KB campaign: its page answers in well under a second within a memory bound, a page of changes newest first, and the older pages follow on to its creation")
    func longHistory() async throws {
        // Eight hundred durable writes of a large campaign: on a memory-backed folder when there is one.
        let shared = URL(fileURLWithPath: "/dev/shm")
        let folder = FileManager.default.fileExists(atPath: shared.path)
            ? shared.appendingPathComponent("console-history-\(UUID().uuidString)") : try makeTemporaryDirectory("console-history")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { removeTemporaryDirectory(folder) }
        let now = Timestamp.now()
        let (id, created, last): (Int64, Int64, Int64) = try await {
            let store = try SQLiteStore(directory: folder.appendingPathComponent("data").path)
            let png = CampaignFixture.png(width: 1080, height: 1920)
            let facts = CreativeFacts(sha256: CreativeFiles.name(of: png), contentType: "image/png", width: 1080, height: 1920, size: png.count)
            try await store.addCreative(facts, bytes: png, actor: "local", now: now)
            var fields = CampaignFixture.fields(creative: facts.sha256)
            // About 50 KB: a thousand regions and five hundred locales.
            fields.targeting = Targeting(regions: (0..<1000).map { "region-\(10_000 + $0)-" + String(repeating: "x", count: 19) },
                                         locales: (0..<500).map { "en-\(10_000 + $0)-abcdefgh-abcdefgh-ab" })
            let created = try await store.create(fields, actor: "alice", now: now)
            #expect(PageBound.bytes(of: created.campaign) > 48_000)
            var last = created.seq
            for version in 0..<800 {
                last = try await store.update(id: created.campaign.id, fields: CampaignFields(priority: version % 100), actor: "bob", now: now).seq
            }
            return (created.campaign.id, created.seq, last)
        }()

        let ready = folder.appendingPathComponent("ready.json")
        let process = try ChildProcess("campaignd", [
            "--data-dir", folder.appendingPathComponent("data").path, "--admin-endpoint", "tcp://127.0.0.1:0",
            "--sync-endpoint", "tcp://127.0.0.1:0", "--updates-endpoint", "tcp://127.0.0.1:0", "--http-address", "127.0.0.1:0",
            "--console-address", "127.0.0.1:0", "--ready-file", ready.path,
        ], directory: folder)
        defer { process.signal(SIGKILL) }
        let endpoints = try await ChildProcess.waitForReadyFile(ready)
        let client = ConsoleClient(try #require(endpoints["console"]))
        let pid = process.pid
        _ = try await client.get("/")  // the console's first answer: what serving allocates is in the baseline
        let before = Self.residentBytes(pid)

        // Three views of the page, as the report of the problem had: each quick, and the memory stays level.
        var slowest: Duration = .zero, peak = before
        var first = ConsoleResponse(status: 0, headers: [:], body: "")
        for _ in 0..<3 {
            let started = ContinuousClock.now
            first = try await client.get("/campaigns/\(id)")
            slowest = max(slowest, ContinuousClock.now - started)
            peak = max(peak, Self.residentBytes(pid))
        }
        print("console history: 800 changes of 50 KB; page in \(slowest) at worst; RSS \(before >> 20) -> \(peak >> 20) MiB")
        #expect(first.status == 200)
        // Loaded whole (every change and the campaign before it, 80 MB of JSON) the page took 4.7 s and 60 -> 721 MiB; a page at a time, 0.15 s and 59 -> 81 MiB.
        #expect(slowest < Sanitizer.scaled(.seconds(1)), "the page took \(slowest)")
        // The growth spreads with the allocator's arenas and the host's load: 19 to 53 MiB in twelve runs of 2026-12-07
        // (with and without the RPC servers' reply pools), against 661 MiB for the whole history loaded.
        #expect(peak - before < 64 << 20, "RSS grew from \(before >> 20) to \(peak >> 20) MiB")

        // A page of the newest changes: fewer than its 50 since each reads 100 KB of campaigns, within 2 MiB.
        let page1 = Self.seqs(first.body)
        #expect(page1.first == last && page1.count >= 10 && page1.count < 25, "\(page1)")
        #expect(page1 == Array(page1.sorted().reversed()))
        #expect(first.body.contains("<td>bob</td><td>priority</td>"))
        #expect(!first.body.contains("id=\"newest\""))
        // Older and older: each page goes on from the last, with a link back to the newest.
        var before1 = try #require(Self.older(first.body, id: id))
        #expect(before1 == page1.last)
        for _ in 0..<2 {
            let older = try await client.get("/campaigns/\(id)?before=\(before1)")
            let seqs = Self.seqs(older.body)
            #expect(older.status == 200 && seqs.first == before1 - 1 && !seqs.isEmpty)
            #expect(older.body.contains("id=\"newest\" href=\"/campaigns/\(id)\""))
            before1 = try #require(Self.older(older.body, id: id))
        }
        // The oldest page ends at the creation, with no older link.
        let oldest = try await client.get("/campaigns/\(id)?before=\(created + 3)")
        #expect(Self.seqs(oldest.body) == [created + 2, created + 1, created])
        #expect(oldest.body.contains("<td>created</td><td>alice</td>") && Self.older(oldest.body, id: id) == nil)
        #expect(try await client.get("/campaigns/\(id)?before=\(created)").body.contains("No older changes."))
        // A `before` that is not a sequence number is refused, saying what it must be.
        for bad in ["abc", "0", "-5", "99999999999999999999"] {
            let refused = try await client.get("/campaigns/\(id)?before=\(bad)")
            #expect(refused.status == 400 && refused.body.contains("sequence number: a positive whole number"), "\(bad): \(refused.status)")
        }
        process.signal(SIGTERM)
        _ = await process.exitStatus()
    }
}
