/// How ``DeliveryServiceConfiguration/deviceMemoryBytes`` is shared: the event ids' fingerprints (``EventLedger``)
/// take fixed memory, the largest set that fits in a quarter of the budget; the devices' histories
/// (``DeviceHistory``) take two thirds of the rest, counted as they grow; the last third is the allocator's, for the
/// free space it keeps between the devices' views as they are replaced and dropped (measured in the device soak at
/// about a third of the views' bytes), so that the process's resident set, not only what it counts, stays within
/// the budget.
extension DeliveryServiceConfiguration {
    /// Event ids remembered, so that a report sent again is counted once: at least the most recent half of this many.
    /// A power of two whose ``FingerprintSet`` (16 bytes an id) fits in a quarter of the budget: 4,194,304 ids in
    /// 64 MiB for the default 256 MiB.
    public var maxEventIds: Int {
        var capacity = 2
        while FingerprintSet.bytes(capacity: 2 * capacity) <= max(deviceMemoryBytes, Self.minDeviceMemoryBytes) / 4 { capacity *= 2 }
        return capacity
    }

    /// The bytes of the event ids' fingerprints.
    public var eventIdBytes: Int { FingerprintSet.bytes(capacity: maxEventIds) }

    /// The bytes the devices' histories may take: two thirds of the rest of the budget.
    public var deviceHistoryBytes: Int { (max(deviceMemoryBytes, Self.minDeviceMemoryBytes) - eventIdBytes) / 3 * 2 }

    /// The bytes left for the allocator's free space beside the devices' views: the last third of the rest.
    public var allocatorHeadroomBytes: Int { max(deviceMemoryBytes, Self.minDeviceMemoryBytes) - eventIdBytes - deviceHistoryBytes }
}
