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
