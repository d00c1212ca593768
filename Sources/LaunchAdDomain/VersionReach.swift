/// Which members of a tier a request's app version reaches: those without a version range, and those whose range
/// (`min` inclusive, `max` exclusive) holds it. The ranges' bounds cut the versions into intervals, and a segment
/// tree over the intervals keeps each range in at most two nodes a level; a version reaches the ranges of the nodes
/// on its interval's path to the root, O(log n) lists and no member asked one by one.
struct VersionReach: Sendable {
    /// The members without a version range.
    let untargeted: [UInt64]
    let targeted: Bool
    /// The distinct bounds, ascending: interval `i` holds the versions with exactly `i` bounds at or below them.
    private let bounds: [AppVersion]
    /// Leaves of the tree (a power of two, at least the number of intervals); node 1 is the root.
    private let leaves: Int
    /// The members each node of the tree holds.
    private let nodes: Postings

    init(_ tier: [Candidate]) {
        let ranged = tier.indices.filter { tier[$0].minVersion != nil || tier[$0].maxVersion != nil }
        let isRanged = Set(ranged)
        untargeted = MemberBits.of(tier.count) { !isRanged.contains($0) }
        targeted = !ranged.isEmpty
        var bounds: [AppVersion] = []
        for position in ranged {
            if let min = tier[position].minVersion { bounds.append(min) }
            if let max = tier[position].maxVersion { bounds.append(max) }
        }
        bounds.sort()
        var distinct: [AppVersion] = []
        for bound in bounds where distinct.last != bound { distinct.append(bound) }
        self.bounds = distinct
        var leaves = 1
        while leaves < distinct.count + 1 { leaves <<= 1 }
        self.leaves = leaves
        var lists = [[Int32]](repeating: [], count: 2 * leaves)
        func interval(after bound: AppVersion) -> Int { distinct.partitionPoint { !(bound < $0) } }
        for position in ranged {
            // Versions from `min` on are in the intervals after it; versions below `max` are before the one after it.
            var low = tier[position].minVersion.map(interval(after:)) ?? 0
            var high = tier[position].maxVersion.map(interval(after:)) ?? distinct.count + 1
            low += leaves
            high += leaves
            while low < high {
                if low & 1 == 1 { lists[low].append(Int32(position)); low += 1 }
                if high & 1 == 1 { high -= 1; lists[high].append(Int32(position)) }
                low >>= 1
                high >>= 1
            }
        }
        // Members were added in ascending order, node by node.
        nodes = Postings(lists)
    }

    /// Writes into `bits` the members that `version` reaches.
    func reach(_ version: AppVersion, into bits: UnsafeMutableBufferPointer<UInt64>) {
        MemberBits.copy(untargeted, into: bits)
        var node = bounds.partitionPoint { !(version < $0) } + leaves
        while node >= 1 {
            nodes.mark(node, in: bits)
            node >>= 1
        }
    }
}
