/// The fixed part of a ``DeviceView``: its rotation and how many of each kind of element follow.
struct DeviceViewHeader: Sendable {
    let rotation: Int
    let campaigns: Int32
    let variants: Int32
    let impressions: Int32

    /// The elements that follow: the campaigns, the variants, and two per impression.
    var elementCount: Int { Int(campaigns) + Int(variants) + 2 * Int(impressions) }
}

/// What the engine knows of one device: impressions per campaign (for caps) and what it has seen in the current
/// rotation (so the rotation moves on after an impression and does not repeat before the others were seen).
///
/// Immutable, and one allocation (``DeviceViewStorage``): the rotation and counts, then the campaigns seen, the variants seen (by
/// ``variantKey(_:)``) and the impressions as (campaign, milliseconds) pairs, grouped by campaign and oldest first.
/// The edge keeps one per device; a query takes it as one reference and reads it in place, where a structure of
/// collections cost a cache miss per collection on a device not asked for lately.
public struct DeviceView: @unchecked Sendable {
    // Sendable: the storage is never written after `make` fills it.
    let storage: DeviceViewStorage

    /// A view of these facts. `seenCampaigns` and `variantKeys` are kept as given (without repeats, as sets).
    public static func make(impressions: [Int64: [Timestamp]] = [:], seenCampaigns: [Int64] = [], variantKeys: [UInt64] = [],
                            rotation: Int = 0) -> DeviceView {
        let campaigns = uniqued(seenCampaigns), variants = uniqued(variantKeys)
        let shown = impressions.filter { !$0.value.isEmpty }.sorted { $0.key < $1.key }
        let pairs = shown.reduce(0) { $0 + $1.value.count }
        let header = DeviceViewHeader(rotation: rotation, campaigns: Int32(campaigns.count), variants: Int32(variants.count),
                                      impressions: Int32(pairs))
        return filled(header) { elements in
            var next = elements
            for id in campaigns { next.initialize(to: id); next += 1 }
            for key in variants { next.initialize(to: Int64(bitPattern: key)); next += 1 }
            for (campaign, times) in shown {
                for time in times.sorted() {
                    next.initialize(to: campaign)
                    (next + 1).initialize(to: time.milliseconds)
                    next += 2
                }
            }
        }
    }

    /// A view of `header`'s counts, its elements written by `write` (exactly as many as the header says).
    private static func filled(_ header: DeviceViewHeader, _ write: (UnsafeMutablePointer<Int64>) -> Void) -> DeviceView {
        let buffer = DeviceViewStorage.create(minimumCapacity: header.elementCount) { _ in header }
        buffer.withUnsafeMutablePointerToElements(write)
        return DeviceView(storage: unsafeDowncast(buffer, to: DeviceViewStorage.self))
    }

    /// The seen campaigns and variants a rotation holds at most: at this many, the next impression starts it over.
    public static let rotationLimit = 64

    /// This view after an impression of `campaign`, a campaign without a cap: the campaign and `variant` seen (a
    /// list that has reached ``rotationLimit`` starts over first), the rotation one step on, and no times kept for
    /// `campaign` (a cap it had was lifted); the other campaigns' times as they were. The same view as `make` gives
    /// for those facts, written straight from this one's elements (reports are answered on the socket's thread,
    /// between queries).
    public func seeing(uncapped campaign: Int64, variant: UInt64?) -> DeviceView {
        storage.withUnsafeMutablePointers { header, elements in
            let old = header.pointee
            let campaigns = UnsafeBufferPointer(start: elements, count: Int(old.campaigns))
            let variants = UnsafeBufferPointer(start: elements + campaigns.count, count: Int(old.variants))
            let pairs = elements + campaigns.count + variants.count
            // Kept as they are when the rotation goes on; empty, then the new one, when it starts over.
            let keptCampaigns = campaigns.count >= Self.rotationLimit ? UnsafeBufferPointer(start: elements, count: 0) : campaigns
            let keptVariants = variants.count >= Self.rotationLimit ? UnsafeBufferPointer(start: pairs, count: 0) : variants
            let addCampaign = !keptCampaigns.contains(campaign)
            let addVariant = variant.map { !keptVariants.contains(Int64(bitPattern: $0)) } ?? false
            var dropped = 0
            for pair in 0..<Int(old.impressions) where pairs[2 * pair] == campaign { dropped += 1 }
            let header = DeviceViewHeader(rotation: old.rotation &+ 1, campaigns: Int32(keptCampaigns.count + (addCampaign ? 1 : 0)),
                                          variants: Int32(keptVariants.count + (addVariant ? 1 : 0)),
                                          impressions: old.impressions - Int32(dropped))
            return Self.filled(header) { target in
                var next = target
                for id in keptCampaigns { next.initialize(to: id); next += 1 }
                if addCampaign { next.initialize(to: campaign); next += 1 }
                for key in keptVariants { next.initialize(to: key); next += 1 }
                if addVariant, let variant { next.initialize(to: Int64(bitPattern: variant)); next += 1 }
                for pair in 0..<Int(old.impressions) where pairs[2 * pair] != campaign {
                    next.initialize(to: pairs[2 * pair])
                    (next + 1).initialize(to: pairs[2 * pair + 1])
                    next += 2
                }
            }
        }
    }

    /// The campaigns and variants a device's rotation holds after an impression of `campaign` (with `variant`).
    ///
    /// A list that has reached ``rotationLimit`` starts over first. Within a rotation nothing repeats: a campaign is
    /// chosen again only once the device has seen its whole group (see ``DecisionEngine/rotationGroup(of:in:)``), so a
    /// campaign seen again starts its group's rotation over, the group's campaigns leaving the list and it coming
    /// last; likewise a variant seen again starts its campaign's variants (`campaignVariants`) over. The lists keep
    /// the order things were shown in, which is how the next choice knows the one shown last. `group` and
    /// `campaignVariants` are asked for only when something is seen again.
    public static func rotated(campaigns: [Int64], variants: [UInt64], after campaign: Int64, variant: UInt64?,
                               group: () -> [Int64], campaignVariants: () -> [UInt64]) -> (campaigns: [Int64], variants: [UInt64]) {
        var campaigns = campaigns.count >= rotationLimit ? [] : campaigns
        var variants = variants.count >= rotationLimit ? [] : variants
        if campaigns.contains(campaign) {
            let restarting = Set(group()).union([campaign])
            campaigns.removeAll(where: restarting.contains)
        }
        campaigns.append(campaign)
        if let variant {
            if variants.contains(variant) {
                let restarting = Set(campaignVariants()).union([variant])
                variants.removeAll(where: restarting.contains)
            }
            variants.append(variant)
        }
        return (campaigns, variants)
    }

    /// The same, with the variants named by their sha256.
    public static func make(impressions: [Int64: [Timestamp]] = [:], seenCampaigns: [Int64] = [], seenVariants: [String],
                            rotation: Int = 0) -> DeviceView {
        make(impressions: impressions, seenCampaigns: seenCampaigns, variantKeys: seenVariants.map(variantKey), rotation: rotation)
    }

    private static func uniqued<T: Hashable>(_ values: [T]) -> [T] {
        var seen = Set<T>()
        return values.filter { seen.insert($0).inserted }
    }

    public static let unknown = DeviceView.make()

    /// A variant's key: the first 64 bits of its sha256 when the text is one (64 lowercase hex digits), else a hash
    /// of the whole text.
    public static func variantKey(_ sha256: String) -> UInt64 {
        var key: UInt64 = 0, count = 0, hex = true
        for byte in sha256.utf8 {
            count += 1
            guard count <= 16 else { hex = hex && (byte &- UInt8(ascii: "0") < 10 || byte &- UInt8(ascii: "a") < 6); continue }
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): key = key << 4 | UInt64(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): key = key << 4 | UInt64(byte - UInt8(ascii: "a") + 10)
            default: hex = false
            }
        }
        if hex && count == 64 { return key }
        return DecisionEngine.mix(FNV1a.hash(sha256) ^ UInt64(count))
    }

    /// Grows with each impression: it moves the stable choice on.
    public var rotation: Int { counts.rotation }

    /// Campaigns seen since the rotation last started over, in the order first seen.
    public var seenCampaigns: [Int64] {
        storage.withUnsafeMutablePointers { header, elements in Array(UnsafeBufferPointer(start: elements, count: Int(header.pointee.campaigns))) }
    }

    /// Variants seen since the rotation last started over, by ``variantKey(_:)``.
    public var variantKeys: [UInt64] {
        storage.withUnsafeMutablePointers { header, elements in
            UnsafeBufferPointer(start: elements + Int(header.pointee.campaigns), count: Int(header.pointee.variants)).map { UInt64(bitPattern: $0) }
        }
    }

    /// Impression times per campaign, oldest first.
    public var impressions: [Int64: [Timestamp]] {
        storage.withUnsafeMutablePointers { header, elements in
            var result: [Int64: [Timestamp]] = [:]
            let start = elements + Int(header.pointee.campaigns + header.pointee.variants)
            for pair in 0..<Int(header.pointee.impressions) {
                result[start[2 * pair], default: []].append(Timestamp(milliseconds: start[2 * pair + 1]))
            }
            return result
        }
    }

    /// The elements the view holds: the campaigns and variants of its rotation, and two per impression time. Its one
    /// allocation takes a fixed header and 8 bytes for each.
    public var elementCount: Int { counts.elementCount }

    /// Calls `body` with the view's counts and its elements in place (the campaigns seen, the variants seen, then the
    /// impressions as campaign and milliseconds pairs, grouped by campaign): what a file of views writes.
    public func withElements<R>(_ body: (_ campaigns: Int, _ variants: Int, _ impressions: Int, UnsafeBufferPointer<Int64>) throws -> R) rethrows -> R {
        try storage.withUnsafeMutablePointers { header, elements in
            let counts = header.pointee
            return try body(Int(counts.campaigns), Int(counts.variants), Int(counts.impressions),
                            UnsafeBufferPointer(start: elements, count: counts.elementCount))
        }
    }

    var hasSeenAnyCampaign: Bool { counts.campaigns > 0 }
    var hasSeenAnyVariant: Bool { counts.variants > 0 }

    /// The header, read through its pointer: `ManagedBuffer.header` is a class's stored property, so reading it
    /// directly costs a dynamic exclusivity check (`swift_beginAccess`) on every query, and the header is never
    /// written after the view is made.
    @inline(__always)
    private var counts: DeviceViewHeader { storage.withUnsafeMutablePointerToHeader { $0.pointee } }

    public func hasSeen(campaign id: Int64) -> Bool {
        storage.withUnsafeMutablePointers { header, elements in
            for offset in 0..<Int(header.pointee.campaigns) where elements[offset] == id { return true }
            return false
        }
    }

    /// Of the campaigns seen in the current rotation that `isMember` takes, the one shown last.
    func lastSeen(campaignWhere isMember: (Int64) -> Bool) -> Int64? {
        storage.withUnsafeMutablePointers { header, elements in
            for offset in (0..<Int(header.pointee.campaigns)).reversed() where isMember(elements[offset]) { return elements[offset] }
            return nil
        }
    }

    /// Of the variants seen in the current rotation that `isMember` takes, the one shown last.
    func lastSeen(variantWhere isMember: (UInt64) -> Bool) -> UInt64? {
        storage.withUnsafeMutablePointers { header, elements in
            let start = elements + Int(header.pointee.campaigns)
            for offset in (0..<Int(header.pointee.variants)).reversed() where isMember(UInt64(bitPattern: start[offset])) {
                return UInt64(bitPattern: start[offset])
            }
            return nil
        }
    }

    public func hasSeen(variant key: UInt64) -> Bool {
        storage.withUnsafeMutablePointers { header, elements in
            let start = elements + Int(header.pointee.campaigns), wanted = Int64(bitPattern: key)
            for offset in 0..<Int(header.pointee.variants) where start[offset] == wanted { return true }
            return false
        }
    }

    /// Impressions of `campaign` within the last `hours` before `now`.
    public func shows(of campaign: Int64, hours: Int, now: Timestamp) -> Int {
        let since = now.milliseconds - Int64(hours) * 3_600_000
        return storage.withUnsafeMutablePointers { header, elements in
            let start = elements + Int(header.pointee.campaigns + header.pointee.variants)
            // The pairs are grouped by campaign in ascending order, oldest first within a group: find the end of the
            // campaign's group, then count back while the times are recent enough.
            var low = 0, high = Int(header.pointee.impressions)
            while low < high {
                let middle = (low + high) / 2
                if start[2 * middle] <= campaign { low = middle + 1 } else { high = middle }
            }
            var count = 0, pair = low - 1
            while pair >= 0, start[2 * pair] == campaign, start[2 * pair + 1] > since {
                count += 1
                pair -= 1
            }
            return count
        }
    }
}

/// The one allocation of a ``DeviceView``.
final class DeviceViewStorage: ManagedBuffer<DeviceViewHeader, Int64> {
    deinit {
        _ = withUnsafeMutablePointers { header, elements in
            elements.deinitialize(count: header.pointee.elementCount)
        }
    }
}
