#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A 64-bit fingerprint of a text: SipHash under this process's random seed, so nobody outside can aim two texts
/// at one fingerprint. Never 0. Two different texts share one by chance only, about once in 2⁶⁴ comparisons.
/// (64 bits where `Int` has them, as on every platform the edge is built for; and the seed is random unless the
/// process runs with `SWIFT_DETERMINISTIC_HASHING` set, which nobody should do to an edge.)
func fingerprint(_ text: String) -> UInt64 {
    var text = text
    var hasher = Hasher()
    text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    let value = UInt64(UInt(bitPattern: hasher.finalize()))
    return value == 0 ? 1 : value
}

/// The slots of a generation of `generation` keys in a fingerprint table: the power of two at least twice that, so a
/// generation is never more than half full and a probe always ends at an empty slot.
func fingerprintSlots(_ generation: Int) -> Int { powerOfTwo(atLeast: 2 * generation) }

/// The least power of two, from 2 up, that is at least `count`.
func powerOfTwo(atLeast count: Int) -> Int {
    var value = 2
    while value < count { value <<= 1 }
    return value
}

/// A set of fingerprints in fixed memory, bounded in count: two generations of open-addressed slots, each mapped
/// once. When the current generation holds its share, the older one is dropped whole (its pages go back to the
/// system) and becomes the current one. So the most recent `capacity / 2` fingerprints are always kept, and
/// at most `capacity`; the memory is ``bytes(capacity:)`` at most, whatever comes in.
struct FingerprintSet: ~Copyable {
    /// Fingerprints per generation: at most half its slots, so a probe always ends at an empty slot.
    let generation: Int
    private let mask: Int
    private let bytes: Int
    private var current: UnsafeMutablePointer<UInt64>
    private var previous: UnsafeMutablePointer<UInt64>
    private var currentCount = 0
    private var previousCount = 0

    init(capacity: Int) {
        generation = Self.generation(capacity: capacity)
        let slots = fingerprintSlots(generation)
        mask = slots - 1
        bytes = slots * MemoryLayout<UInt64>.stride
        current = Self.map(bytes)
        previous = Self.map(bytes)
    }

    deinit {
        munmap(current, bytes)
        munmap(previous, bytes)
    }

    /// The memory the set can come to hold (its pages are taken only as fingerprints land on them).
    static func bytes(capacity: Int) -> Int { 2 * fingerprintSlots(generation(capacity: capacity)) * MemoryLayout<UInt64>.stride }

    /// Fingerprints per generation for a set of `capacity`.
    static func generation(capacity: Int) -> Int { max(1, capacity / 2) }

    private static func map(_ bytes: Int) -> UnsafeMutablePointer<UInt64> {
        // Anonymous pages read as zero (an empty slot) and take memory only once written.
        guard let pages = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
              pages != MAP_FAILED else {
            fatalError("cannot map \(bytes) bytes for a fingerprint set: \(String(cString: strerror(errno)))")
        }
        return pages.bindMemory(to: UInt64.self, capacity: bytes / MemoryLayout<UInt64>.stride)
    }

    var count: Int { currentCount + previousCount }

    func contains(_ fingerprint: UInt64) -> Bool {
        let key = fingerprint == 0 ? 1 : fingerprint
        return (currentCount > 0 && probe(current, key).found) || (previousCount > 0 && probe(previous, key).found)
    }

    /// Adds `fingerprint` unless the set holds it; returns whether it was new.
    mutating func insert(_ fingerprint: UInt64) -> Bool {
        let key = fingerprint == 0 ? 1 : fingerprint
        if previousCount > 0 && probe(previous, key).found { return false }
        var (found, slot) = probe(current, key)
        if found { return false }
        if currentCount >= generation {
            Self.clear(previous, bytes)
            swap(&current, &previous)
            previousCount = currentCount
            currentCount = 0
            slot = probe(current, key).slot
        }
        current[slot] = key
        currentCount += 1
        return true
    }

    /// Empties a generation. On Linux its pages go back to the system and read as zero again when next touched
    /// (what `MADV_DONTNEED` does to private anonymous memory there); elsewhere, or should that fail, it is zeroed.
    private static func clear(_ table: UnsafeMutablePointer<UInt64>, _ bytes: Int) {
        #if os(Linux)
        if madvise(table, bytes, MADV_DONTNEED) == 0 { return }
        #endif
        table.update(repeating: 0, count: bytes / MemoryLayout<UInt64>.stride)
    }

    private func probe(_ table: UnsafeMutablePointer<UInt64>, _ key: UInt64) -> (found: Bool, slot: Int) {
        var slot = Int(truncatingIfNeeded: key) & mask
        while true {
            let value = table[slot]
            if value == key { return (true, slot) }
            if value == 0 { return (false, slot) }
            slot = (slot &+ 1) & mask
        }
    }
}

/// A map from fingerprints to values, bounded in count: two generations of open-addressed slots, each slot a key
/// and its value side by side (for a class or a reference-holding value, the reference: one probe finds both).
/// When the current generation holds its share and a new key comes, the older generation is dropped whole.
/// Reading a key of the older generation through ``get(_:)`` moves it to the current one, so the keys in use stay.
///
/// A generation's slots grow with its keys (doubling whenever it would be more than half full, up to the size its
/// share needs), so the slots of a few thousand devices stay in the processor's caches.
struct FingerprintMap<Value> {
    private struct Slot {
        var key: UInt64
        var value: Value?
    }

    /// Keys per generation: at most half its slots, so a probe always ends at an empty slot.
    let generation: Int
    /// The most slots a generation takes, and the fewest it starts with.
    private let maxSlots: Int
    private let firstSlots: Int
    /// Allocated at the first key (an edge that never hears a report holds none); each a power of two.
    private var current: [Slot] = []
    private var previous: [Slot] = []
    private var currentCount = 0
    private var previousCount = 0

    /// `initialSlots` (rounded up to a power of two, at most what a generation needs) is where a generation starts.
    init(capacity: Int, initialSlots: Int = 1_024) {
        generation = max(1, capacity / 2)
        maxSlots = fingerprintSlots(generation)
        firstSlots = powerOfTwo(atLeast: min(initialSlots, maxSlots))
    }

    /// A slot of the older generation whose key moved to the current one: probes go on past it.
    private static var moved: UInt64 { .max }

    /// Keys held.
    var count: Int { currentCount + previousCount }

    /// Slots allocated now, over both generations.
    var slots: Int { current.count + previous.count }

    /// Keys are never 0 (an empty slot) or `moved`.
    private static func key(_ fingerprint: UInt64) -> UInt64 { fingerprint == 0 ? 1 : fingerprint == moved ? moved - 1 : fingerprint }

    /// The value of `key`, as last set.
    func peek(_ key: UInt64) -> Value? {
        let key = Self.key(key)
        if currentCount > 0, let value = Self.find(current, key).value { return value }
        return previousCount > 0 ? Self.find(previous, key).value : nil
    }

    /// The value of `key`, kept in the current generation from now on.
    mutating func get(_ key: UInt64) -> Value? {
        let key = Self.key(key)
        if currentCount > 0, let value = Self.find(current, key).value { return value }
        guard previousCount > 0 else { return nil }
        let old = Self.find(previous, key)
        guard let value = old.value else { return nil }
        previous[old.slot] = Slot(key: Self.moved, value: nil)
        previousCount -= 1
        set(key, value)
        return value
    }

    mutating func set(_ key: UInt64, _ value: Value) {
        let key = Self.key(key)
        if current.isEmpty { current = Self.empty(firstSlots) }
        var place = Self.find(current, key)
        if !place.found {
            if currentCount >= generation {
                previous = current
                previousCount = currentCount
                current = Self.empty(firstSlots)
                currentCount = 0
                place = Self.find(current, key)
            } else if 2 * (currentCount + 1) > current.count && current.count < maxSlots {
                grow()
                place = Self.find(current, key)
            }
            currentCount += 1
        }
        current[place.slot] = Slot(key: key, value: value)
    }

    /// Moves the current generation's keys into twice the slots.
    private mutating func grow() {
        var larger = Self.empty(2 * current.count)
        for slot in current where slot.key != 0 {
            larger[Self.find(larger, slot.key).slot] = slot
        }
        current = larger
    }

    private static func empty(_ count: Int) -> [Slot] { Array(repeating: Slot(key: 0, value: nil), count: count) }

    private static func find(_ slots: [Slot], _ key: UInt64) -> (slot: Int, found: Bool, value: Value?) {
        slots.withUnsafeBufferPointer { slots in
            let mask = slots.count - 1
            var slot = Int(truncatingIfNeeded: key) & mask
            while true {
                let held = slots[slot].key
                if held == key { return (slot, true, slots[slot].value) }
                if held == 0 { return (slot, false, nil) }
                slot = (slot &+ 1) & mask
            }
        }
    }
}
