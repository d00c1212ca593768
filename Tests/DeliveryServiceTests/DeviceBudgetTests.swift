@testable import DeliveryService
import Foundation
import LaunchAdAPI
@testable import LaunchAdDomain
import LaunchAdTesting
import SeededRandomness
import Testing

/// glibc's `malloc_usable_size` (its header is not in the Glibc module): what a chunk can hold.
@_silgen_name("malloc_usable_size")
private func mallocUsableSize(_ pointer: UnsafeMutableRawPointer?) -> Int

/// The device budget: what the edge keeps of devices stays within its bytes, the least recently reported are
/// forgotten first, and made-up devices push out real ones no faster than that rule says.
@Suite("the device memory budget", .timeLimit(.minutes(5)))
struct DeviceBudgetTests {
    static let now = Timestamp(rfc3339: "2026-11-22T12:00:00Z")!
    static let capped = APIExamples.campaign { $0.id = 1; $0.frequencyCap = FrequencyCap(shows: 50, hours: 24) }
    static let sha256 = String(repeating: "b", count: 64)

    static func impression(_ id: String, device: String, campaign: Int64 = 1) -> LaunchEvent {
        LaunchEvent(eventId: id, type: .impression, campaignId: campaign, deviceId: device, sha256: sha256)
    }

    /// The most bytes one report of a made-up device id (its first impression) adds: its view (a campaign and a variant
    /// seen, one impression: 72 bytes, an 80-byte chunk) and its share of a generation's slots (a generation grows its
    /// slots when it is more than half full, so it has at most four slots of 16 bytes a key, and an array's header).
    static let newDeviceBytes = 80 + 4 * 16
    /// Made-up devices that come after a device's last report before it can be forgotten: half the budget (less its
    /// arrays' headers) over the most each adds.
    static func guaranteed(_ budget: Int) -> Int { (budget / 2 - 1_024) / newDeviceBytes }

    @Test("the budget holds with a million made-up devices; the most recent are all kept, and the rest counted as forgotten")
    func millionDevices() async throws {
        try await onThread {
            let budget = 8 << 20
            let history = DeviceHistory(budget: budget)
            let total = 1_000_000
            var most = 0
            // Each a view of one impression, as a report makes it (stored straight, as a report stores it, without the
            // rest of a report's work, so that a million fit in the suite's time in a debug build).
            let view = { (index: Int) in
                DeviceView.make(impressions: [1: [Self.now]], seenCampaigns: [1], variantKeys: [UInt64(index)], rotation: 1)
            }
            for index in 0..<total {
                history.restore(history.key.fingerprint("made-up-\(index)"), view(index))
                if index % 10_000 == 0 {
                    let usage = history.usage
                    most = max(most, usage.bytes)
                    #expect(usage.bytes <= budget, "after \(index) devices")
                }
            }
            let usage = history.usage
            #expect(usage.bytes <= budget && most <= budget)
            #expect(usage.devices + usage.forgotten == total)
            // The rule: a device is kept while less than half the budget came after it.
            let guaranteed = Self.guaranteed(budget)
            #expect(usage.devices >= guaranteed)
            for index in (total - guaranteed)..<total {
                guard history.view("made-up-\(index)").shows(of: 1, hours: 24, now: Self.now) == 1 else {
                    Issue.record("device \(index) of the last \(guaranteed) was forgotten")
                    break
                }
            }
            #expect(history.view("made-up-0").impressions.isEmpty)
            print("a million made-up devices in \(budget >> 20) MiB: \(usage.devices) kept (\(usage.bytes) bytes), \(usage.forgotten) forgotten")
        }
    }

    @Test("caps hold for the devices kept: real devices capped among made-up ones stay capped while the rule keeps them")
    func capsHoldForKept() async throws {
        try await onThread {
            let budget = 4 << 20
            let history = DeviceHistory(budget: budget)
            let tight = APIExamples.campaign { $0.id = 2; $0.frequencyCap = FrequencyCap(shows: 3, hours: 24) }
            var random = SeededRandom(seed: 35)
            var fake = 0
            // 500 real devices reach their cap of 3 over a run where made-up devices come in between.
            for round in 0..<3 {
                for device in 0..<500 {
                    history.record(Self.impression("r\(round)-\(device)", device: "real-\(device)", campaign: 2), of: tight,
                                   at: Self.now.adding(seconds: Double(round * 60)))
                    for _ in 0..<random.index(4) {
                        history.record(Self.impression("f\(fake)", device: "fake-\(fake)"), of: Self.capped, at: Self.now)
                        fake += 1
                    }
                }
            }
            // Fewer made-up devices since each real one's last report than half the budget holds: all kept, all capped.
            #expect(fake * Self.newDeviceBytes < budget / 2)
            let later = Self.now.adding(seconds: 3_600)
            for device in 0..<500 {
                let view = history.view("real-\(device)")
                #expect(view.shows(of: 2, hours: 24, now: later) == 3, "real-\(device)")
                #expect(!DecisionEngine.underCap(tight.id, tight.frequencyCap, view, later))
            }
        }
    }

    @Test("made-up device ids push a real device out only after half the budget of them: the rule an attacker gets")
    func attackerRule() async throws {
        try await onThread {
            let budget = 4 << 20
            let history = DeviceHistory(budget: budget)
            // Made-up devices before the real one: the generation it lands in may be about to end.
            var fake = 0
            func flood(_ count: Int) {
                for _ in 0..<count {
                    history.record(Self.impression("f\(fake)", device: "fake-\(fake)"), of: Self.capped, at: Self.now)
                    fake += 1
                }
            }
            flood(12_345)
            history.record(Self.impression("real", device: "real"), of: Self.capped, at: Self.now)
            let start = fake
            let floor = Self.guaranteed(budget)
            flood(floor)
            #expect(history.view("real").shows(of: 1, hours: 24, now: Self.now) == 1, "forgotten within \(floor) made-up devices")
            // It is forgotten, once enough came: within two budgets of the smallest devices.
            while history.view("real").shows(of: 1, hours: 24, now: Self.now) == 1 && fake - start < 2 * budget / 80 { flood(1_000) }
            #expect(history.view("real").impressions.isEmpty)
            print("a real device was forgotten after \(fake - start) made-up devices (the rule guarantees \(floor) for a \(budget >> 20) MiB budget)")

            // A real device that reports again is kept through the flood (it moves to the current generation).
            history.record(Self.impression("real-2", device: "real"), of: Self.capped, at: Self.now)
            for _ in 0..<10 {
                flood(floor / 2)
                history.record(Self.impression("real-\(fake)", device: "real"), of: Self.capped, at: Self.now)
            }
            #expect(history.view("real").shows(of: 1, hours: 24, now: Self.now) == 11)
        }
    }

    @Test("the memory metric equals what the allocator holds for the views, within 2% and the slots' arrays counted from their size")
    func metricMatchesHeld() async throws {
        try await onThread {
            let budget = 16 << 20
            let history = DeviceHistory(budget: budget)
            var random = SeededRandom(seed: 9)
            // Views of every size: from one impression to hundreds, with rotations over many campaigns.
            let campaigns = (1...80).map { id in
                APIExamples.campaign { $0.id = Int64(id); $0.frequencyCap = id % 3 == 0 ? nil : FrequencyCap(shows: 1 + id * 5, hours: 720) }
            }
            for index in 0..<20_000 {
                let campaign = campaigns[random.index(campaigns.count)]
                let device = random.index(3) == 0 ? "heavy-\(random.index(200))" : "light-\(index)"
                history.record(Self.impression("m\(index)", device: device, campaign: campaign.id), of: campaign,
                               at: Self.now.adding(seconds: Double(-random.index(86_400))))
            }
            var measured = 0, counted = 0, devices = 0
            var position: Int? = 0
            while let from = position {
                let (entries, next, _) = history.entries(from: from, limit: 10_000)
                position = next
                for (_, view) in entries {
                    let pointer = Unmanaged.passUnretained(view.storage).toOpaque()
                    measured += mallocUsableSize(pointer) + 8  // glibc's chunk: what it can hand out, and its header
                    counted += view.memoryBytes
                    devices += 1
                }
            }
            let usage = history.usage
            #expect(devices == usage.devices)
            #expect(abs(measured - counted) <= counted / 50, "views: allocator \(measured), counted \(counted)")
            #expect(usage.bytes >= counted && usage.bytes <= budget)
            print("\(devices) devices: views \(counted) bytes counted, \(measured) by the allocator; \(usage.bytes) in all with the slots")
        }
    }

    @Test("the budget is shared: a quarter for the event ids, two thirds of the rest for devices, a third for the allocator")
    func budgetShares() {
        var configuration = DeliveryServiceConfiguration()
        #expect(configuration.maxEventIds == 4_194_304 && configuration.eventIdBytes == 64 << 20)
        #expect(configuration.deviceHistoryBytes == 128 << 20 && configuration.allocatorHeadroomBytes == 64 << 20)
        configuration.deviceMemoryBytes = DeliveryServiceConfiguration.minDeviceMemoryBytes
        #expect(configuration.eventIdBytes == 1 << 20 && configuration.deviceHistoryBytes == 2 << 20)
        configuration.deviceMemoryBytes = 100 << 20
        #expect(configuration.eventIdBytes <= 25 << 20 && configuration.eventIdBytes > 12 << 20)
        #expect(configuration.eventIdBytes + configuration.deviceHistoryBytes + configuration.allocatorHeadroomBytes == 100 << 20)
        #expect(abs(configuration.deviceHistoryBytes - 2 * configuration.allocatorHeadroomBytes) <= 3)
    }
}
