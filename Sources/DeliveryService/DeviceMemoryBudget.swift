/// How ``DeliveryServiceConfiguration/deviceMemoryBytes`` is shared: the event ids' fingerprints (``EventLedger``)
/// take fixed memory, the largest set that fits in a quarter of the budget; the devices' histories
/// (``DeviceHistory``) take the rest, counted as they grow.
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

    /// The bytes the devices' histories may take: the rest of the budget.
    public var deviceHistoryBytes: Int { max(deviceMemoryBytes, Self.minDeviceMemoryBytes) - eventIdBytes }
}
