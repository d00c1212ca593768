/// Lists of a tier's members, each by their positions in the tier (ascending), kept one after another in one array:
/// list `k` is `positions[offsets[k]..<offsets[k + 1]]`.
struct Postings: Sendable {
    private let offsets: [Int32]
    private let positions: [Int32]

    init(_ lists: [[Int32]]) {
        var offsets: [Int32] = [0]
        offsets.reserveCapacity(lists.count + 1)
        var positions: [Int32] = []
        positions.reserveCapacity(lists.reduce(0) { $0 + $1.count })
        for list in lists {
            positions += list
            offsets.append(Int32(positions.count))
        }
        self.offsets = offsets
        self.positions = positions
    }

    var count: Int { offsets.count - 1 }

    /// Sets the bit of each member of list `list` in `bits`.
    func mark(_ list: Int, in bits: UnsafeMutableBufferPointer<UInt64>) {
        offsets.withUnsafeBufferPointer { offsets in
            positions.withUnsafeBufferPointer { positions in
                for position in positions[Int(offsets[list])..<Int(offsets[list + 1])] {
                    bits[Int(position) >> 6] |= 1 << UInt64(position & 63)
                }
            }
        }
    }
}

/// Sets of a tier's members as bits, one a member, 64 to a word.
enum MemberBits {
    static func words(_ members: Int) -> Int { (members + 63) >> 6 }

    /// The set of the members `isMember` takes.
    static func of(_ count: Int, _ isMember: (Int) -> Bool) -> [UInt64] {
        var bits = [UInt64](repeating: 0, count: words(count))
        for position in 0..<count where isMember(position) { bits[position >> 6] |= 1 << UInt64(position & 63) }
        return bits
    }

    /// Writes `bits` over the start of `target`.
    @inline(__always)
    static func copy(_ bits: [UInt64], into target: UnsafeMutableBufferPointer<UInt64>) {
        bits.withUnsafeBufferPointer { source in
            for index in source.indices { target[index] = source[index] }
        }
    }

    /// `target` &= `other`, over `count` words.
    @inline(__always)
    static func intersect(_ target: UnsafeMutableBufferPointer<UInt64>, with other: UnsafeMutableBufferPointer<UInt64>, count: Int) {
        for index in 0..<count { target[index] &= other[index] }
    }
}
