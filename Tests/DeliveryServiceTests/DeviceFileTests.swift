@testable import DeliveryService
import Foundation
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdTesting
import SeededRandomness
import Testing

/// The devices' caps and rotation on disk: what a restart reads back, within the budget, and never a file that does
/// not verify.
@Suite("the devices' file", .timeLimit(.minutes(2)))
struct DeviceFileTests {
    static let now = Timestamp(rfc3339: "2026-11-22T12:00:00Z")!

    /// A history of `count` devices with views of many sizes.
    static func filled(budget: Int, count: Int) -> DeviceHistory {
        let history = DeviceHistory(budget: budget)
        var random = SeededRandom(seed: 30)
        let campaigns = (1...40).map { id in
            APIExamples.campaign { $0.id = Int64(id); $0.frequencyCap = id % 4 == 0 ? nil : FrequencyCap(shows: id, hours: 48) }
        }
        for index in 0..<(count * 3) {
            let campaign = campaigns[random.index(campaigns.count)]
            history.record(LaunchEvent(eventId: "e\(index)", type: .impression, campaignId: campaign.id, deviceId: "d-\(index % count)",
                                       sha256: String(repeating: String(random.index(10)), count: 64)),
                           of: campaign, at: now.adding(seconds: Double(-random.index(80_000))))
        }
        return history
    }

    static func same(_ a: DeviceView, _ b: DeviceView) -> Bool {
        a.rotation == b.rotation && a.seenCampaigns == b.seenCampaigns && a.variantKeys == b.variantKeys && a.impressions == b.impressions
    }

    @Test("a save and a load give back every device's caps and rotation under the same ids, within the budget")
    func roundTrip() throws {
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let history = Self.filled(budget: 8 << 20, count: 5_000)
        let file = DeviceFile(directory: directory)
        #expect(try file.save(history) == DeviceFile.Saved(written: history.count, whole: true))
        let size = try FileManager.default.attributesOfItem(atPath: file.url.path)[.size] as? Int ?? 0
        #expect(size <= history.usage.bytes, "the file (\(size) bytes) is larger than the memory it saves")
        let (loaded, found) = try file.load(budget: 8 << 20)
        #expect(found.setAside == nil && found.devices == 5_000 && loaded.count == 5_000)
        #expect(loaded.key == history.key)
        for index in 0..<5_000 {
            guard Self.same(loaded.view("d-\(index)"), history.view("d-\(index)")) else {
                Issue.record("d-\(index) differs after a load")
                break
            }
        }
        // Loaded into a smaller budget: the most recently reported are kept, within it.
        let (small, _) = try file.load(budget: 256 << 10)
        #expect(small.usage.bytes <= 256 << 10 && small.count > 0 && small.count < 5_000)
    }

    @Test("a file that does not verify (a byte changed, cut short, or not one) or cannot be read is set aside whole, and the next save writes a new one")
    func setAside() throws {
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let history = Self.filled(budget: 1 << 20, count: 300)
        let file = DeviceFile(directory: directory)
        try file.save(history)
        let good = try Data(contentsOf: file.url)
        var flipped = good
        flipped[good.count / 2] ^= 0x01
        func asideCount() throws -> Int { try filesSetAside(DeviceFile.name, in: directory).count }
        var count = 0
        for bytes in [flipped, good.prefix(good.count - 1), good.prefix(good.count / 2), Data("not a file".utf8), Data()] {
            try bytes.write(to: file.url)
            let (loaded, found) = try file.load(budget: 1 << 20)
            count += 1
            #expect(loaded.count == 0 && loaded.key != history.key)
            #expect(found.setAside.map { try? Data(contentsOf: $0.setAside) } == bytes, "the caps it may hold are kept, as they were")
            #expect(try !FileManager.default.fileExists(atPath: file.url.path) && asideCount() == count)
        }
        // A folder in its place cannot be read: set aside too.
        try FileManager.default.createDirectory(at: file.url, withIntermediateDirectories: false)
        let (empty, found) = try file.load(budget: 1 << 20)
        #expect(try empty.count == 0 && found.setAside?.reason == "a folder is in its place" && asideCount() == count + 1)
        let (absent, none) = try DeviceFile(directory: directory.appendingPathComponent("none")).load(budget: 1 << 20)
        #expect(none.setAside == nil && absent.count == 0)
        try file.save(history)
        #expect(try file.load(budget: 1 << 20).1.devices == 300)
    }
}
