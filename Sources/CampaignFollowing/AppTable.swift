import LaunchAdDomain

/// The apps of an index in an open-addressed table under an FNV-1a hash of their names. Only names the index holds
/// are in it, at most half full, so a lookup of any name (chosen by a client or not) probes at most the run of
/// known names it lands in.
struct AppTable: Sendable {
    private let slots: [(name: String, entry: AppIndex)?]
    private let mask: Int

    init(_ index: [String: AppIndex]) {
        var size = 4
        while size < index.count * 2 { size *= 2 }
        var slots = [(name: String, entry: AppIndex)?](repeating: nil, count: size)
        for (name, entry) in index {
            var slot = Self.hash(name) & (size - 1)
            while slots[slot] != nil { slot = (slot + 1) & (size - 1) }
            slots[slot] = (name, entry)
        }
        self.slots = slots
        mask = size - 1
    }

    func find(_ name: String) -> AppIndex? {
        var slot = Self.hash(name) & mask
        while let found = slots[slot] {
            if found.name == name { return found.entry }
            slot = (slot + 1) & mask
        }
        return nil
    }

    static func hash(_ name: String) -> Int {
        let hash = FNV1a.hash(name)
        return Int(truncatingIfNeeded: hash ^ (hash >> 32))
    }
}
