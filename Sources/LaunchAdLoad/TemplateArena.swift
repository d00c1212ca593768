/// Immutable bytes shared by every worker: each device's request tails in one allocation, so the send path copies
/// from a pointer without touching reference counts.
final class TemplateArena: @unchecked Sendable {
    let base: UnsafeMutablePointer<UInt8>
    /// Per device and kind (cold query, hot query, prefetch, device id, app id; ``kinds`` of them, in that order):
    /// offset and length in `base`.
    let offsets: UnsafeMutablePointer<Int32>
    let lengths: UnsafeMutablePointer<Int32>
    let longest: Int
    /// How many pieces each device has.
    static let kinds = 5

    init(_ templates: RequestTemplates) {
        let all = templates.coldQuery.indices.flatMap { device in
            [templates.coldQuery[device], templates.hotQuery[device], templates.prefetch[device], templates.deviceIds[device],
             templates.apps[device]]
        }
        let total = all.reduce(0) { $0 + $1.count }
        let base = UnsafeMutablePointer<UInt8>.allocate(capacity: max(total, 1))
        let offsets = UnsafeMutablePointer<Int32>.allocate(capacity: all.count)
        let lengths = UnsafeMutablePointer<Int32>.allocate(capacity: all.count)
        var offset = 0
        for (index, bytes) in all.enumerated() {
            bytes.withUnsafeBufferPointer { (base + offset).update(from: $0.baseAddress!, count: bytes.count) }
            offsets[index] = Int32(offset)
            lengths[index] = Int32(bytes.count)
            offset += bytes.count
        }
        self.base = base
        self.offsets = offsets
        self.lengths = lengths
        longest = templates.longest
    }

    deinit {
        base.deallocate()
        offsets.deallocate()
        lengths.deallocate()
    }
}
