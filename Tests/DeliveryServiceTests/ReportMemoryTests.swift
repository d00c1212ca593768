@testable import DeliveryService
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdTesting
import SeededRandomness
import Testing

extension Int: MemorySized {
    public var memoryBytes: Int { 0 }
}

@Suite("what reports leave in memory: event ids and device histories", .timeLimit(.minutes(1)))
struct ReportMemoryTests {
    /// The rule `FingerprintSet` follows, with ordinary sets: two generations, the older dropped when the newer
    /// holds `generation` fingerprints and a new one comes.
    struct Model {
        var current = Set<UInt64>()
        var previous = Set<UInt64>()
        let generation: Int

        mutating func insert(_ value: UInt64) -> Bool {
            let key = value == 0 ? 1 : value
            if current.contains(key) || previous.contains(key) { return false }
            if current.count >= generation {
                previous = current
                current = []
            }
            current.insert(key)
            return true
        }

        func contains(_ value: UInt64) -> Bool { current.contains(value == 0 ? 1 : value) || previous.contains(value == 0 ? 1 : value) }
    }

    @Test("the fingerprint set keeps and forgets exactly as two generations do", arguments: [1, 2, 7, 64, 1000])
    func generations(capacity: Int) {
        var set = FingerprintSet(capacity: capacity)
        var model = Model(generation: max(1, capacity / 2))
        var random = SeededRandom(seed: UInt64(capacity))
        var recent: [UInt64] = []
        for step in 0..<6_000 {
            // New values, repeats of recent ones, and values that share low bits (the same first slot), and 0.
            let value: UInt64 = switch random.index(5) {
            case 0 where !recent.isEmpty: recent[random.index(recent.count)]
            case 1: UInt64(random.index(8)) << 40
            case 2: 0
            default: random.next()
            }
            let inserted = set.insert(value)
            #expect(inserted == model.insert(value), "step \(step), value \(value)")
            recent.append(value)
            if recent.count > 3 * capacity { recent.removeFirst(recent.count - 3 * capacity) }
            let probe = recent[random.index(recent.count)]
            let (holds, count) = (set.contains(probe), set.count)
            #expect(holds == model.contains(probe), "step \(step), probe \(probe)")
            #expect(count == model.current.count + model.previous.count)
            #expect(count <= 2 * max(1, capacity / 2))
        }
    }

    @Test("the fingerprint map keeps, promotes and forgets as two generations do, its slots growing or not",
          arguments: [(1, 1), (2, 2), (9, 1_024), (9, 2), (100, 1_024), (100, 2), (1_000, 4)])
    func mapGenerations(capacity: Int, initialSlots: Int) {
        var map = FingerprintMap<Int>(capacity: capacity, initialSlots: initialSlots)
        // The model: a read from the older generation moves the key into the newer one.
        var current: [UInt64: Int] = [:], previous: [UInt64: Int] = [:]
        let generation = max(1, capacity / 2)
        func modelSet(_ key: UInt64, _ value: Int) {
            if current[key] == nil && current.count >= generation { (previous, current) = (current, [:]) }
            current[key] = value
        }
        var random = SeededRandom(seed: UInt64(capacity) &+ 99)
        var keys: [UInt64] = []
        for step in 0..<4_000 {
            let key: UInt64 = switch random.index(4) {
            case 0 where !keys.isEmpty: keys[random.index(keys.count)]
            case 1: UInt64(random.index(4)) << 33  // the same first slot, and 0
            case 2: UInt64.max - UInt64(random.index(2))  // the moved mark, and the key it is taken for
            default: random.next()
            }
            keys.append(key)
            if keys.count > 4 * capacity { keys.removeFirst() }
            let model = key == 0 ? UInt64(1) : key == .max ? .max - 1 : key
            if random.chance(0.5) {
                map.set(key, step)
                modelSet(model, step)
            } else {
                let expected = current[model] ?? previous[model]
                if current[model] == nil, let value = previous.removeValue(forKey: model) { modelSet(model, value) }
                let got = map.get(key)
                #expect(got == expected, "step \(step)")
            }
            let probe = keys[random.index(keys.count)], probeModel = probe == 0 ? UInt64(1) : probe == .max ? .max - 1 : probe
            let (peeked, count) = (map.peek(probe), map.count)
            #expect(peeked == current[probeModel] ?? previous[probeModel], "step \(step)")
            #expect(count == current.count + previous.count)
            #expect(map.slots <= 2 * fingerprintSlots(generation))
        }
    }

    @Test("a generation's slots grow with its keys: twice the keys, rounded up to a power of two")
    func mapGrowth() {
        var map = FingerprintMap<Int>(capacity: 1_000_000)
        var random = SeededRandom(seed: 5)
        var keys: [UInt64] = []
        for index in 0..<10_000 {
            let key = random.next()
            keys.append(key)
            map.set(key, index)
            if index == 511 { #expect(map.slots == 1_024) }
            if index == 512 { #expect(map.slots == 2_048) }
        }
        #expect(map.slots == 32_768)  // not the 1,048,576 a full generation of 500,000 takes
        #expect(keys.indices.allSatisfy { map.peek(keys[$0]) == $0 })
    }

    @Test("a walk in pieces sees every key while the slots stay laid out; a growth or a rotation in between is told by layouts")
    func mapWalkAndLayouts() {
        var map = FingerprintMap<Int>(capacity: 2_000, initialSlots: 4)
        var random = SeededRandom(seed: 17)
        var keys: [UInt64] = []
        var layouts: [Int] = []
        func add(_ count: Int) {
            for _ in 0..<count {
                keys.append(random.next())
                map.set(keys[keys.count - 1], keys.count - 1)
                layouts.append(map.layouts)
            }
        }
        add(1_500)  // grown from 4 slots, and rotated once (a generation holds 1,000)
        #expect(layouts.first == 0 && layouts.last! > 0 && layouts == layouts.sorted())
        func walk(between: () -> Void = {}) -> (seen: Set<Int>, whole: Bool) {
            var seen = Set<Int>(), position: Int? = 0, first: Int?, whole = true
            while let from = position {
                let (entries, next) = map.entries(from: from, limit: 100)
                if first == nil { first = map.layouts } else if first != map.layouts { whole = false }
                seen.formUnion(entries.map(\.value))
                position = next
                between()
            }
            return (seen, whole)
        }
        let still = walk()
        #expect(still.whole && still.seen.count == map.count)
        // Keys set during the walk, enough to rotate: the walk is not whole, and may have missed keys.
        var added = false
        let moving = walk { if !added { added = true; add(1_000) } }
        #expect(!moving.whole)
    }

    @Test("a rotation begins the new generation in the older one's emptied slots: the slots held stay level")
    func mapRotationKeepsSlots() {
        var map = FingerprintMap<Int>(capacity: 2_000, initialSlots: 4)
        var random = SeededRandom(seed: 11)
        var keys: [UInt64] = []
        var levels = Set<Int>()
        for index in 0..<20_000 {
            let key = random.next()
            keys.append(key)
            map.set(key, index)
            // From the second rotation on, both generations have the slots a full one needs.
            if index >= 2_000 { levels.insert(map.slots) }
        }
        #expect(levels == [2 * fingerprintSlots(1_000)])
        // The emptied slots hold nothing of the dropped generation; the last generation and a half are all there.
        #expect(map.count == 2_000)
        #expect(keys.suffix(1_000).indices.allSatisfy { map.peek(keys[$0]) == $0 })
        #expect(keys.prefix(18_000).allSatisfy { map.peek($0) == nil })
    }

    @Test("the last half of the capacity is always remembered, and the memory is fixed")
    func recentKept() {
        let capacity = 10_000
        var set = FingerprintSet(capacity: capacity)
        var random = SeededRandom(seed: 7)
        var values: [UInt64] = []
        for step in 1...(5 * capacity) {
            let value = random.next()
            let inserted = set.insert(value)
            #expect(inserted)
            values.append(value)
            // Checked at seeded points inside generations and at their edges.
            guard step % 1_237 == 0 || step % (capacity / 2) == 0 || step % (capacity / 2) == 1 else { continue }
            let kept = values.suffix(capacity / 2).filter { set.contains($0) }.count
            #expect(kept == min(step, capacity / 2), "step \(step)")
            let held = set.count
            #expect(held <= capacity && held >= min(step, capacity / 2))
        }
        let forgotten = values.prefix(2 * capacity).filter { !set.contains($0) }.count
        #expect(forgotten == 2 * capacity)
        // Two generations of 8,192 slots for 5,000 each; 64 MiB for the edge's default of 4,000,000 event ids.
        #expect(FingerprintSet.bytes(capacity: capacity) == 2 * 16_384 * 8)
        #expect(FingerprintSet.bytes(capacity: DeliveryServiceConfiguration().maxEventIds) == 64 << 20)
    }

    @Test("fingerprints tell texts apart, are stable under one key and differ under another")
    func fingerprints() {
        let key = DeviceKey.random(), other = DeviceKey.random()
        var seen = Set<UInt64>()
        for index in 0..<50_000 {
            let text = "adload-k3x9-\(index % 4)-\(index)"
            let value = key.fingerprint(text)
            #expect(value != 0)
            #expect(seen.insert(value).inserted, "\(text)")
            #expect(key.fingerprint(String(decoding: Array(text.utf8), as: UTF8.self)) == value)  // another string, the same text
            #expect(DeviceKey(k0: key.k0, k1: key.k1).fingerprint(text) == value)  // the key read back from a file
            #expect(other.fingerprint(text) != value)
        }
        #expect(key.fingerprint("") != key.fingerprint("\u{0}"))
        #expect(key.fingerprint(String(repeating: "d", count: 128)) == key.fingerprint(String(repeating: "d", count: 128)))
    }

    @Test("event ids' fingerprints are the first 64 bits of sha256(key ‖ id), as the journals on disk hold them")
    func eventFingerprints() {
        // Worked out apart from the code (Python's hashlib), so that a journal written by any earlier build still reads.
        let key = EventKey(bytes: Array(0..<32))!
        #expect(key.fingerprint("adload-k3x9-0-17r") == 0xe402_fd24_d499_e882)
        #expect(key.fingerprint("launch-é") == 0x2d21_8ebc_1dcd_926b)
        // A device's report of a campaign: sha256(key ‖ 0xFF ‖ device ‖ 0 ‖ campaign ‖ hour), both little-endian.
        #expect(key.fingerprint(reportOf: "d-1", campaign: 42, hour: 1_700_000_000_000) == 0x416a_30c7_406f_e515)
        #expect(key.fingerprint(reportOf: "d-1", campaign: 42, hour: 1_700_000_000_000) != key.fingerprint(reportOf: "d-1", campaign: 43, hour: 1_700_000_000_000))
    }

    @Test("SipHash-2-4 gives the published test vectors, so the rounds and the padding are SipHash's")
    func sipHashVectors() {
        // The reference key 00 01 ... 0f and messages 00 01 ... (n-1): the vectors of the SipHash paper's appendix.
        let k0 = UInt64(littleEndian: 0x0706_0504_0302_0100), k1 = UInt64(littleEndian: 0x0f0e_0d0c_0b0a_0908)
        let expected: [Int: UInt64] = [0: 0x726f_db47_dd0e_0e31, 1: 0x74f8_39c5_93dc_67fd, 8: 0x93f5_f579_9a93_2462,
                                       15: 0xa129_ca61_49be_45e5]
        for (length, value) in expected {
            let message = (0..<length).map { UInt8($0) }
            let hash = message.withUnsafeBytes { SipHash.hash($0, k0: k0, k1: k1, compressionRounds: 2, finalizationRounds: 4) }
            #expect(hash == value, "length \(length)")
        }
    }

    static func impression(_ id: String, device: String, campaign: Int64 = 42, sha256: String? = nil) -> LaunchEvent {
        LaunchEvent(eventId: id, type: .impression, campaignId: campaign, deviceId: device, sha256: sha256)
    }

    @Test("an event id is counted once, long or short")
    func ledger() {
        let ledger = EventLedger(capacity: 1_000)
        let long = String(repeating: "e", count: 64)
        #expect(ledger.admit(Self.impression(long, device: "d")))
        #expect(!ledger.admit(Self.impression(long, device: "d")))
        #expect(ledger.admit(Self.impression("e", device: "d")))
        #expect(!ledger.admit(LaunchEvent(eventId: "e", type: .click, campaignId: 7, deviceId: "other")))
        #expect(ledger.admit(LaunchEvent(eventId: "c", type: .click, campaignId: 42, deviceId: "d")))
        #expect(ledger.count == 3)
        let counts = ledger.drain()
        #expect(counts.map(\.id) == [42])
        #expect(counts.first.map { [$0.impressions, $0.clicks, $0.skips] } == [2, 1, 0])
    }

    @Test("a campaign's impressions are kept as far as its cap counts, even past 64, in time order")
    func caps() {
        let now = Timestamp(rfc3339: "2026-11-22T12:00:00Z")!
        let history = DeviceHistory(budget: 1 << 20)
        let wide = APIExamples.campaign { $0.id = 1; $0.frequencyCap = FrequencyCap(shows: 100, hours: 720) }
        for index in 0..<100 {
            history.record(Self.impression("w\(index)", device: "d-1", campaign: 1), of: wide, at: now.adding(seconds: Double(-index * 60)))
        }
        #expect(history.view("d-1").shows(of: 1, hours: 720, now: now) == 100)
        #expect(history.view("d-2").rotation == 0)
        #expect(history.view("d-2").impressions.isEmpty)

        // Out of order: the latest three are kept, whatever order they came in.
        let three = APIExamples.campaign { $0.id = 2; $0.frequencyCap = FrequencyCap(shows: 3, hours: 1) }
        for minutes in [-10, -90, -5, -200, -1, -30] {
            history.record(Self.impression("t\(minutes)", device: "d-1", campaign: 2), of: three, at: now.adding(seconds: Double(minutes * 60)))
        }
        #expect(history.view("d-1").impressions[2] == [-10, -5, -1].map { now.adding(seconds: Double($0 * 60)) })
        #expect(history.view("d-1").shows(of: 2, hours: 1, now: now) == 3)
        #expect(history.view("d-1").shows(of: 2, hours: 1, now: now.adding(seconds: 51 * 60)) == 2)

        // Without a cap, no times are kept; the rotation still moves on.
        let open = APIExamples.campaign { $0.id = 3; $0.frequencyCap = nil }
        let sha256 = String(repeating: "a", count: 64)
        history.record(Self.impression("o", device: "d-1", campaign: 3, sha256: sha256), of: open, at: now)
        let view = history.view("d-1")
        #expect(view.impressions[3] == nil)
        #expect(view.seenCampaigns == [1, 2, 3])
        #expect(view.variantKeys == [DeviceView.variantKey(sha256)])
        #expect(view.rotation == 107)
        // A cap lifted: the campaign's times go; set again, it counts from then on.
        let lifted = APIExamples.campaign { $0.id = 2; $0.frequencyCap = nil }
        history.record(Self.impression("l", device: "d-1", campaign: 2), of: lifted, at: now)
        #expect(history.view("d-1").impressions[2] == nil)
        history.record(Self.impression("l2", device: "d-1", campaign: 2), of: three, at: now)
        #expect(history.view("d-1").shows(of: 2, hours: 1, now: now) == 1)
        // Clicks and skips change nothing.
        history.record(LaunchEvent(eventId: "k", type: .click, campaignId: 3, deviceId: "d-3"), of: open, at: now)
        #expect(history.count == 1)
    }

    @Test("a device keeps at most 1,000 impression times and 256 campaigns, forgetting those shown longest ago")
    func deviceBounds() async throws {
        try await onThread(Self.checkDeviceBounds)  // a second of work, off the test pool
    }

    static func checkDeviceBounds() {
        let now = Timestamp(rfc3339: "2026-11-22T12:00:00Z")!
        let history = DeviceHistory(budget: 1 << 20)
        // 300 campaigns capped at 10 shows, each shown 5 times, the later campaigns later.
        for id in 1...300 {
            let campaign = APIExamples.campaign { $0.id = Int64(id); $0.frequencyCap = FrequencyCap(shows: 10, hours: 720) }
            for shown in 0..<5 {
                history.record(Self.impression("c\(id)-\(shown)", device: "d", campaign: Int64(id)), of: campaign,
                               at: now.adding(seconds: Double(id * 60 + shown)))
            }
        }
        var impressions = history.view("d").impressions
        #expect(impressions.count == 200)  // 1,000 times of 5 each: campaigns 101 to 300
        #expect(impressions.values.reduce(0) { $0 + $1.count } == 1_000)
        #expect(impressions.keys.min() == 101 && impressions.keys.max() == 300)
        // 300 campaigns capped at one show, each shown once: the latest 256 campaigns are kept.
        for id in 1...300 {
            let campaign = APIExamples.campaign { $0.id = Int64(id); $0.frequencyCap = FrequencyCap(shows: 1, hours: 24) }
            history.record(Self.impression("e\(id)", device: "e", campaign: Int64(id)), of: campaign, at: now.adding(seconds: Double(id)))
        }
        #expect(history.view("e").impressions.keys.sorted() == Array(45...300))
        // A campaign capped at 1,000 shows keeps its own 1,000, the others forgotten first.
        let wide = APIExamples.campaign { $0.id = 7_000; $0.frequencyCap = FrequencyCap(shows: 1_000, hours: 720) }
        for shown in 0..<1_200 {
            history.record(impression("w\(shown)", device: "d", campaign: 7_000), of: wide, at: now.adding(seconds: Double(30_000 + shown)))
        }
        impressions = history.view("d").impressions
        #expect(impressions.keys.sorted() == [7_000])
        #expect(impressions[7_000]?.count == 1_000)
        #expect(impressions[7_000]?.first == now.adding(seconds: 30_200))
    }
}
