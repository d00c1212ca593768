import DurableFiles
import Synchronization
import Locking

/// The hot creatives' bytes in memory, within a byte budget, least recently used first out; the rest is read from
/// disk. Bytes come from files that were verified by sha256 when stored, or, while the cache folder cannot be
/// written, from verified downloads pinned here until they reach the disk (within a budget of the same size).
public final class CreativeCache: Sendable {
    private struct Entry {
        var bytes: [UInt8]
        var lastUse: UInt64
    }

    private struct Storage {
        var entries: [String: Entry] = [:]
        /// Verified creatives that could not be written to disk: kept whole until stored, at most `budget` bytes of them
        /// (beside the hot ones').
        var pinned: [String: [UInt8]] = [:]
        var pinnedBytes = 0
        var bytes = 0
        var clock: UInt64 = 0
    }

    private let storage = Locked(Storage())
    private let files: CreativeFiles
    let budget: Int
    /// Reads served from memory, and reads that went to the disk (for the edge's metrics).
    public let hits = Atomic<Int>(0)
    public let misses = Atomic<Int>(0)

    init(files: CreativeFiles, budget: Int) {
        self.files = files
        self.budget = budget
    }

    /// Whether a creative of `size` bytes is stored whole (in memory or on disk), without reading it: what a `HEAD`
    /// of it answers.
    public func holds(sha256: String, size: Int) -> Bool {
        let inMemory = storage.withLock { storage in
            storage.pinned[sha256]?.count == size || storage.entries[sha256]?.bytes.count == size
        }
        return inMemory || files.storedSize(sha256: sha256) == size
    }

    /// Bytes `offset ..< offset + length` of a creative of `size` bytes, or `nil` when it is not stored.
    public func read(sha256: String, size: Int, offset: Int, length: Int) throws -> [UInt8]? {
        let cached = storage.withLock { storage -> [UInt8]? in
            if let pinned = storage.pinned[sha256] { return pinned }
            guard var entry = storage.entries[sha256] else { return nil }
            storage.clock += 1
            entry.lastUse = storage.clock
            storage.entries[sha256] = entry
            return entry.bytes
        }
        if let cached {
            hits.add(1, ordering: .relaxed)
            return Self.slice(cached, offset: offset, length: length)
        }
        misses.add(1, ordering: .relaxed)
        // Small enough to keep: read it whole once, then serve from memory.
        guard size <= budget / 4 else { return try files.read(sha256: sha256, offset: offset, length: length) }
        guard let whole = try files.read(sha256: sha256, offset: 0, length: size), whole.count == size else { return nil }
        storage.withLock { storage in
            guard storage.entries[sha256] == nil else { return }
            while storage.bytes + whole.count > budget, let victim = storage.entries.min(by: { $0.value.lastUse < $1.value.lastUse }) {
                storage.bytes -= victim.value.bytes.count
                storage.entries[victim.key] = nil
            }
            storage.clock += 1
            storage.entries[sha256] = Entry(bytes: whole, lastUse: storage.clock)
            storage.bytes += whole.count
        }
        return Self.slice(whole, offset: offset, length: length)
    }

    /// Keeps a verified creative's bytes in memory because the disk refused them, when they fit in the budget beside
    /// those already waiting; returns whether they are kept.
    func pin(_ bytes: [UInt8], sha256: String) -> Bool {
        storage.withLock { storage in
            if storage.pinned[sha256] != nil { return true }
            guard storage.pinnedBytes + bytes.count <= budget else { return false }
            storage.pinned[sha256] = bytes
            storage.pinnedBytes += bytes.count
            return true
        }
    }

    /// The creatives waiting for the disk.
    var pinned: [(sha256: String, bytes: [UInt8])] {
        storage.withLock { $0.pinned.map { ($0.key, $0.value) } }
    }

    /// Whether any creative waits for the disk.
    var hasPinned: Bool { storage.withLock { !$0.pinned.isEmpty } }

    /// A pinned creative reached the disk: it is read from there (and cached within the budget) from now on.
    func unpin(_ sha256: String) {
        storage.withLock { storage in
            if let bytes = storage.pinned.removeValue(forKey: sha256) { storage.pinnedBytes -= bytes.count }
        }
    }

    /// Lets go of the creatives waiting for the disk that `keep` does not name (no campaign that may still serve
    /// needs them); returns their names. Their bytes are nowhere else, so the edge no longer holds them.
    func releasePins(keeping keep: Set<String>) -> [String] {
        storage.withLock { storage in
            let released = storage.pinned.keys.filter { !keep.contains($0) }
            for sha256 in released {
                if let bytes = storage.pinned.removeValue(forKey: sha256) { storage.pinnedBytes -= bytes.count }
            }
            return released
        }
    }

    /// Bytes of the creatives waiting for the disk.
    var pinnedBytes: Int { storage.withLock { $0.pinnedBytes } }

    /// Bytes held in memory now.
    public var bytesHeld: Int { storage.withLock { $0.bytes + $0.pinnedBytes } }

    static func slice(_ bytes: [UInt8], offset: Int, length: Int) -> [UInt8] {
        guard offset < bytes.count else { return [] }
        return Array(bytes[offset..<min(bytes.count, offset + length)])
    }
}
