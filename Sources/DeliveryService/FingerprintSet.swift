#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
