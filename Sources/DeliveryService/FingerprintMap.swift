/// A value whose memory a ``FingerprintMap`` counts.
protocol MemorySized {
    /// The bytes the value holds beyond its slot: its allocations, as the allocator sizes them.
    var memoryBytes: Int { get }
}

/// A map from fingerprints to values, bounded in count and in bytes: two generations of open-addressed slots, each
/// slot a key and its value side by side (for a class or a reference-holding value, the reference: one probe finds
/// both). When the current generation holds its share of keys, or of bytes (its slots and its values: half the
/// budget), and a key comes that does not fit, the older generation is dropped whole and its keys are forgotten.
/// Reading a key of the older generation through ``get(_:)`` moves it to the current one, so the keys in use stay.
///
/// So the map holds at most `budget` bytes, and a key is kept at least until another half budget of keys and
/// values came after it was last set (or read with ``get(_:)``): the least recently used are forgotten first.
///
/// A generation's slots grow with its keys (doubling whenever it would be more than half full, up to the size its
/// share needs), so the slots of a few thousand devices stay in the processor's caches.
struct FingerprintMap<Value: MemorySized> {
    private struct Slot {
        var key: UInt64
        var value: Value?
    }

    /// Keys per generation: at most half its slots, so a probe always ends at an empty slot.
    let generation: Int
    /// Bytes per generation: its slots and its values.
    let generationBytes: Int
    /// The most slots a generation takes, and the fewest it starts with.
    private let maxSlots: Int
    private let firstSlots: Int
    /// Allocated at the first key (an edge that never hears a report holds none); each a power of two.
    private var current: [Slot] = []
    private var previous: [Slot] = []
    private var currentCount = 0
    private var previousCount = 0
    /// The bytes of the values in each generation.
    private var currentValueBytes = 0
    private var previousValueBytes = 0
    /// Keys dropped with their generation, since the map was made.
    private(set) var forgotten = 0
    /// How many times the slots were laid out anew (a rotation, a growth): a walk of ``entries(from:limit:)`` in
    /// pieces is whole only while this stays the same.
    private(set) var layouts = 0

    /// `initialSlots` (rounded up to a power of two, at most what a generation needs) is where a generation starts.
    init(capacity: Int, budget: Int = .max, initialSlots: Int = 1_024) {
        generation = max(1, capacity / 2)
        generationBytes = budget / 2
        maxSlots = fingerprintSlots(generation)
        firstSlots = powerOfTwo(atLeast: min(initialSlots, maxSlots))
    }

    /// A slot of the older generation whose key moved to the current one: probes go on past it.
    private static var moved: UInt64 { .max }

    /// Keys held.
    var count: Int { currentCount + previousCount }

    /// Slots allocated now, over both generations.
    var slots: Int { current.count + previous.count }

    /// Bytes held now: both generations' slots and values.
    var bytes: Int { currentBytes + previousValueBytes + Self.slotBytes(previous.count) }

    private var currentBytes: Int { currentValueBytes + Self.slotBytes(current.count) }

    /// The allocation of `count` slots: an array's header and the slots, as the allocator sizes it.
    static func slotBytes(_ count: Int) -> Int {
        count == 0 ? 0 : allocationBytes(32 + count * MemoryLayout<Slot>.stride)
    }

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
        previousValueBytes -= value.memoryBytes
        set(key, value)
        return value
    }

    mutating func set(_ key: UInt64, _ value: Value) {
        let key = Self.key(key)
        let size = value.memoryBytes
        if current.isEmpty { current = Self.empty(firstSlots) }
        var place = Self.find(current, key)
        if place.found, let old = current[place.slot].value?.memoryBytes {
            guard currentBytes - old + size > generationBytes, currentCount > 1 else {
                currentValueBytes += size - old
                current[place.slot].value = value
                return
            }
            // Grown past the generation's share: the key begins the next generation, the others of this one older.
            current[place.slot] = Slot(key: Self.moved, value: nil)
            currentCount -= 1
            currentValueBytes -= old
            rotate()
            place = Self.find(current, key)
        } else if currentCount > 0 && (currentCount >= generation || currentBytes + size > generationBytes) {
            rotate()
            place = Self.find(current, key)
        } else if 2 * (currentCount + 1) > current.count && current.count < maxSlots {
            if currentCount > 0 && currentValueBytes + size + Self.slotBytes(2 * current.count) > generationBytes {
                rotate()  // no room for twice the slots: a new generation instead
            } else {
                grow()
            }
            place = Self.find(current, key)
        }
        currentCount += 1
        currentValueBytes += size
        current[place.slot] = Slot(key: key, value: value)
    }

    /// The older generation goes, with its keys; the current one becomes the older, and a new one begins in the
    /// older one's slots, emptied (so a rotation neither frees nor allocates slots: the memory held stays level,
    /// where a new table growing from ``firstSlots`` would take and give back pages at every rotation).
    private mutating func rotate() {
        layouts += 1
        forgotten += previousCount
        var reused = previous
        previous = current
        previousCount = currentCount
        previousValueBytes = currentValueBytes
        current = []
        if reused.count >= firstSlots {
            // `reused` is the only reference to the old slots now: emptied in place, letting go of their values.
            reused.withUnsafeMutableBufferPointer { slots in
                for index in slots.indices where slots[index].key != 0 { slots[index] = Slot(key: 0, value: nil) }
            }
            current = reused
        } else {
            reused = []
            current = Self.empty(firstSlots)
        }
        currentCount = 0
        currentValueBytes = 0
    }

    /// Moves the current generation's keys into twice the slots.
    private mutating func grow() {
        layouts += 1
        var larger = Self.empty(2 * current.count)
        for slot in current where slot.key != 0 && slot.key != Self.moved {
            larger[Self.find(larger, slot.key).slot] = slot
        }
        current = larger
    }

    /// Up to `limit` keys and values from `position` on, the older generation's first (so the most recently used come
    /// last), and the position to go on from (`nil` at the end). Keys set in between may be missed or listed twice,
    /// and many keys when the slots were laid out anew in between (see ``layouts``).
    func entries(from position: Int, limit: Int) -> (entries: [(key: UInt64, value: Value)], next: Int?) {
        var entries: [(key: UInt64, value: Value)] = []
        var position = position
        while entries.count < limit && position < previous.count + current.count {
            let slot = position < previous.count ? previous[position] : current[position - previous.count]
            if let value = slot.value { entries.append((slot.key, value)) }
            position += 1
        }
        return (entries, position < previous.count + current.count ? position : nil)
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

/// The bytes an allocation of `requested` bytes takes from glibc's malloc: a chunk of the request and an 8-byte
/// header, in steps of 16 and at least 32; large ones (from 128 KiB, its default threshold) are mapped pages.
func allocationBytes(_ requested: Int) -> Int {
    if requested >= 128 * 1024 { return (requested + 16 + 4095) & ~4095 }
    return max(32, (requested + 8 + 15) & ~15)
}
