/// Which members of a tier a request's value of one list-valued targeting field (platforms, regions) reaches: those
/// that leave the field out, and those that list the value. Found by the value, not by asking each member.
struct ValueReach: Sendable {
    /// How a request's value is compared with a member's listed values.
    enum Comparison: Sendable {
        /// As strings (what `contains` on the list asks); the values are few, so they are compared one by one.
        case exact
        /// Listed values are lower case and a request's matches in any case of its ASCII letters (see
        /// ``DecisionEngine/sameIgnoringASCIICase(lowercased:_:)``); found through a hash of the lowered bytes.
        case asciiCaseInsensitive
    }

    private let comparison: Comparison
    /// The members that leave the field out.
    let untargeted: [UInt64]
    /// Whether any member lists values: if none does, every member is reached whatever the request says.
    let targeted: Bool
    /// The distinct values listed, and for each the members listing it.
    private let values: [String]
    private let members: Postings
    /// Open addressing over `values` (by ``hash(_:)``): an index into `values`, or -1.
    private let slots: [Int32]

    init(_ tier: [Candidate], comparison: Comparison, values listed: (Candidate) -> [String]?) {
        self.comparison = comparison
        var values: [String] = [], lists: [[Int32]] = [], slotOf: [String: Int] = [:]
        var untargeted = [Bool](repeating: false, count: tier.count)
        for (position, candidate) in tier.enumerated() {
            guard let list = listed(candidate) else { untargeted[position] = true; continue }
            for value in list {
                let slot: Int
                if let known = slotOf[value] {
                    slot = known
                } else {
                    slot = values.count
                    slotOf[value] = slot
                    values.append(value)
                    lists.append([])
                }
                if lists[slot].last != Int32(position) { lists[slot].append(Int32(position)) }
            }
        }
        self.untargeted = MemberBits.of(tier.count) { untargeted[$0] }
        targeted = untargeted.contains(false)
        self.values = values
        members = Postings(lists)
        guard comparison == .asciiCaseInsensitive, !values.isEmpty else { slots = []; return }
        var size = 4
        while size < 2 * values.count { size <<= 1 }
        var slots = [Int32](repeating: -1, count: size)
        for (index, value) in values.enumerated() {
            var slot = Int(Self.hash(value) & UInt64(size - 1))
            while slots[slot] >= 0 { slot = (slot + 1) & (size - 1) }
            slots[slot] = Int32(index)
        }
        self.slots = slots
    }

    /// Writes into `bits` the members that `value` reaches.
    func reach(_ value: String?, into bits: UnsafeMutableBufferPointer<UInt64>) {
        MemberBits.copy(untargeted, into: bits)
        guard let value, let list = find(value) else { return }
        members.mark(list, in: bits)
    }

    private func find(_ value: String) -> Int? {
        switch comparison {
        case .exact:
            return values.firstIndex(of: value)
        case .asciiCaseInsensitive:
            guard !slots.isEmpty else { return nil }
            let mask = slots.count - 1
            var slot = Int(Self.hash(value) & UInt64(mask))
            while slots[slot] >= 0 {
                let index = Int(slots[slot])
                if DecisionEngine.sameIgnoringASCIICase(lowercased: values[index], value) { return index }
                slot = (slot + 1) & mask
            }
            return nil
        }
    }

    /// FNV-1a over the bytes with ASCII letters lowered: the same for two texts that differ only in that case.
    private static func hash(_ text: String) -> UInt64 {
        var text = text
        return text.withUTF8 { bytes in
            var hash = FNV1a.offsetBasis
            for byte in bytes {
                let lower = byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte
                hash = (hash ^ UInt64(lower)) &* FNV1a.prime
            }
            return hash
        }
    }
}
