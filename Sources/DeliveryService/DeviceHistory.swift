import LaunchAdAPI
import LaunchAdDomain
import Locking
import Synchronization

/// What the edge remembers of devices, from their reports: impressions (for caps) and the rotation. Bounded in
/// bytes (see ``FingerprintMap``): the least recently reported devices are forgotten first, once the others' reports
/// have filled half the budget since. A device is known by its id's fingerprint under a ``DeviceKey``, so its id is
/// not kept.
///
/// Of a campaign's impressions, only as many as its cap counts are kept, and none for a campaign without a cap. So
/// a cap counts the impressions reported while the campaign had one: a cap added to a running campaign (or lifted
/// and set again) counts from then on. Raising a cap loses nothing, as no more impressions than the old cap could
/// have been shown in its window. A device keeps at most ``keptPerDevice`` times over all its campaigns and 256
/// campaigns, those shown longest ago forgotten first.
final class DeviceHistory: Sendable {
    private let devices: Locked<FingerprintMap<DeviceView>>
    /// Whether any impression was ever recorded: until then every device is unknown, and a query need not take the
    /// lock to learn it. (Set under the lock, before the first view is stored; never cleared.)
    private let anyRecorded = Atomic<Bool>(false)
    /// Grows with every view stored: a save is needed when it moved since the last.
    private let changes = Atomic<Int>(0)
    let key: DeviceKey
    /// The bytes the views and their slots may take.
    let budget: Int

    /// Impression times kept per device over all its campaigns: enough for the largest cap (1,000 shows), and a
    /// bound on what one device's reports can make the edge hold and rework on each report.
    static let keptPerDevice = 1_000

    init(budget: Int, key: DeviceKey = .random()) {
        self.budget = budget
        self.key = key
        // The count never binds before the bytes do: a key takes at least a slot of 16 bytes.
        devices = Locked(FingerprintMap(capacity: max(2, budget / 16), budget: budget))
    }

    func view(_ deviceId: String?) -> DeviceView {
        guard let deviceId, anyRecorded.load(ordering: .acquiring) else { return .unknown }
        let key = key.fingerprint(deviceId)
        return devices.withLock { $0.peek(key) } ?? .unknown
    }

    /// Records an impression of `campaign` (other events change nothing here). `campaign`'s cap says how many of
    /// its impressions to keep: a cap of `shows` in any window needs only the last `shows` of them. `group` gives
    /// the campaigns the device's rotation goes round with `campaign` (asked for only when it sees one again; none
    /// but `campaign` itself by default).
    func record(_ event: LaunchEvent, of campaign: Campaign, at time: Timestamp, group: () -> [Int64] = { [] }) {
        guard event.type == .impression else { return }
        let id = campaign.id
        let key = key.fingerprint(event.deviceId)
        let kept = campaign.frequencyCap?.shows ?? 0
        let variant = event.sha256.map(DeviceView.variantKey)
        devices.withLock { devices in
            // Counted once stored, under the lock: a save that read the count before would otherwise walk past the
            // device before its view lands, record the count as saved, and leave the view out until the next change.
            defer { changes.add(1, ordering: .relaxed) }
            if !anyRecorded.load(ordering: .relaxed) { anyRecorded.store(true, ordering: .releasing) }
            let old = devices.get(key) ?? .unknown
            let seenAgain = old.hasSeen(campaign: id) || variant.map(old.hasSeen(variant:)) == true
            guard kept > 0 || seenAgain else {
                // No cap and nothing seen again: no times to keep, and the rotation just grows, so the view is written
                // straight from the old one.
                devices.set(key, old.seeing(uncapped: id, variant: variant))
                return
            }
            var impressions = old.impressions
            var times = impressions.removeValue(forKey: id) ?? []
            // Reports may come out of order: keep the times sorted, so the last `kept` are the latest.
            let place = times.lastIndex { $0 <= time }.map { $0 + 1 } ?? 0
            times.insert(time, at: place)
            if times.count > kept { times.removeFirst(times.count - kept) }
            impressions[id] = times
            var total = impressions.values.reduce(0) { $0 + $1.count }
            while total > Self.keptPerDevice || impressions.count > 256 {  // forget the campaigns shown longest ago
                guard let oldest = impressions.lazy.filter({ $0.key != id })
                    .min(by: { ($0.value.last ?? time) < ($1.value.last ?? time) }) else { break }
                total -= oldest.value.count
                impressions[oldest.key] = nil
            }
            // The rotation moves on (and starts over for what is seen again).
            let rotation = DeviceView.rotated(campaigns: old.seenCampaigns, variants: old.variantKeys, after: id,
                                              variant: variant, group: group,
                                              campaignVariants: { campaign.creatives.map { DeviceView.variantKey($0.sha256) } })
            devices.set(key, DeviceView.make(impressions: impressions, seenCampaigns: rotation.campaigns, variantKeys: rotation.variants,
                                             rotation: old.rotation &+ 1))
        }
    }

    var count: Int { devices.withLock { $0.count } }

    /// What the history holds now, for the metrics.
    struct Usage: Sendable {
        var devices: Int
        var bytes: Int
        var budget: Int
        var forgotten: Int
    }

    var usage: Usage { devices.withLock { Usage(devices: $0.count, bytes: $0.bytes, budget: budget, forgotten: $0.forgotten) } }

    /// How many views were stored since the history was made.
    var changeCount: Int { changes.load(ordering: .relaxed) }

    /// Up to `limit` devices' fingerprints and views from `position` on, the least recently reported first, and the
    /// position to go on from (`nil` at the end). The lock is held for one call only, so a walk lets reports in.
    func entries(from position: Int, limit: Int) -> (entries: [(key: UInt64, value: DeviceView)], next: Int?, layouts: Int) {
        devices.withLock { devices in
            let (entries, next) = devices.entries(from: position, limit: limit)
            return (entries, next, devices.layouts)
        }
    }

    /// Takes back a device's view from before a restart (the least recently reported first).
    func restore(_ fingerprint: UInt64, _ view: DeviceView) {
        devices.withLock { devices in
            if !anyRecorded.load(ordering: .relaxed) { anyRecorded.store(true, ordering: .releasing) }
            devices.set(fingerprint, view)
        }
    }
}

extension DeviceView: MemorySized {
    /// The view's one allocation: the object's header (16 bytes), the counts (20, padded to 24) and 8 bytes an element.
    var memoryBytes: Int { allocationBytes(40 + 8 * elementCount) }
}
