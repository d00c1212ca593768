import CampaignStore
import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import Logging
import ServiceLifecycle
import Synchronization
import ZMQRPC
import ZeroMQ

/// A map bounded in size: two generations, the older dropped whole when the newer fills up. Lookups promote.
struct BoundedMap<Key: Hashable, Value> {
    private var current: [Key: Value] = [:]
    private var previous: [Key: Value] = [:]
    let generation: Int

    init(capacity: Int) {
        generation = max(1, capacity / 2)
    }

    var count: Int { current.count + previous.count }

    mutating func get(_ key: Key) -> Value? {
        if let value = current[key] { return value }
        guard let value = previous.removeValue(forKey: key) else { return nil }
        set(key, value)
        return value
    }

    /// The value of `key`, without hashing it into a generation that holds nothing.
    func peek(_ key: Key) -> Value? {
        if !current.isEmpty, let value = current[key] { return value }
        return previous.isEmpty ? nil : previous[key]
    }

    mutating func set(_ key: Key, _ value: Value) {
        if current[key] == nil && current.count >= generation {
            previous = current
            current = [:]
        }
        current[key] = value
    }
}

/// What the edge remembers of devices, from their reports: impressions (for caps) and the rotation. Bounded: the
/// least recently reported devices are forgotten first.
final class DeviceHistory: Sendable {
    private let devices: Mutex<BoundedMap<String, DeviceView>>
    /// Whether any impression was ever recorded: until then every device is unknown, and a query need not take the
    /// lock to learn it. (Set under the lock, before the first view is stored; never cleared.)
    private let anyRecorded = Atomic<Bool>(false)
    /// Impressions kept per campaign and device (caps never look further than 720 hours).
    static let keptImpressions = 64

    init(capacity: Int) {
        devices = Mutex(BoundedMap(capacity: capacity))
    }

    func view(_ deviceId: String?) -> DeviceView {
        guard let deviceId, anyRecorded.load(ordering: .acquiring) else { return .unknown }
        return devices.withLock { $0.peek(deviceId) } ?? .unknown
    }

    func record(_ event: LaunchEvent, at time: Timestamp) {
        guard event.type == .impression else { return }
        devices.withLock { devices in
            if !anyRecorded.load(ordering: .relaxed) { anyRecorded.store(true, ordering: .releasing) }
            var view = devices.get(event.deviceId) ?? DeviceView()
            var times = view.impressions[event.campaignId] ?? []
            times.append(time)
            if times.count > Self.keptImpressions { times.removeFirst(times.count - Self.keptImpressions) }
            view.impressions[event.campaignId] = times
            if view.impressions.count > 256 {  // forget the campaigns shown longest ago
                let oldest = view.impressions.min { ($0.value.last ?? time) < ($1.value.last ?? time) }!.key
                view.impressions[oldest] = nil
            }
            // The rotation moves on; once the sets grow large, it starts over.
            if view.seenCampaigns.count >= 64 { view.seenCampaigns.removeAll() }
            if view.seenVariants.count >= 64 { view.seenVariants.removeAll() }
            view.seenCampaigns.insert(event.campaignId)
            if let sha256 = event.sha256 { view.seenVariants.insert(sha256) }
            view.rotation &+= 1
            devices.set(event.deviceId, view)
        }
    }

    var count: Int { devices.withLock { $0.count } }
}

/// Event ids already counted (bounded), and the counts not yet shipped to campaignd.
final class EventLedger: Sendable {
    private let seen: Mutex<BoundedMap<String, Void>>
    private let counts = Mutex<[Int64: CampaignStats]>([:])

    init(capacity: Int) {
        seen = Mutex(BoundedMap(capacity: capacity))
    }

    /// Counts the event unless its id was seen; returns whether it was new.
    func admit(_ event: LaunchEvent) -> Bool {
        let new = seen.withLock { seen in
            if seen.peek(event.eventId) != nil { return false }
            seen.set(event.eventId, ())
            return true
        }
        guard new else { return false }
        counts.withLock { counts in
            var entry = counts[event.campaignId] ?? CampaignStats(id: event.campaignId, impressions: 0, clicks: 0, skips: 0)
            switch event.type {
            case .impression: entry.impressions += 1
            case .click: entry.clicks += 1
            case .skip: entry.skips += 1
            }
            counts[event.campaignId] = entry
        }
        return true
    }

    /// Takes the counts gathered so far.
    func drain() -> [CampaignStats] {
        counts.withLock { counts in
            defer { counts.removeAll() }
            return counts.values.sorted { $0.id < $1.id }
        }
    }

    /// Puts back counts that could not be shipped.
    func restore(_ unsent: [CampaignStats]) {
        counts.withLock { counts in
            for item in unsent {
                var entry = counts[item.id] ?? CampaignStats(id: item.id, impressions: 0, clicks: 0, skips: 0)
                entry.impressions += item.impressions
                entry.clicks += item.clicks
                entry.skips += item.skips
                counts[item.id] = entry
            }
        }
    }
}

/// Ships the counts to campaignd every few seconds. A report keeps its id until campaignd takes it, so a report
/// sent again after a lost answer is counted once; ids grow with the clock, so they keep growing across restarts.
struct ReportShipper: Service {
    let configuration: DeliveryServiceConfiguration
    let context: ZMQContext
    let ledger: EventLedger
    let curve: CurveClientOptions?
    let logger: Logger
    let interval: Duration

    func run() async throws {
        var clientConfiguration = RPCClientConfiguration(endpoint: configuration.campaignSync)
        clientConfiguration.curve = curve
        clientConfiguration.name = "reports"
        let client = try RPCClient(context: context, configuration: clientConfiguration)
        let ledger = self.ledger
        let edgeId = configuration.edgeId
        let interval = self.interval
        let logger = self.logger
        @Sendable func next(after lastId: Int64) -> EdgeReport? {
            let counts = ledger.drain()
            guard !counts.isEmpty else { return nil }
            return EdgeReport(edgeId: edgeId, reportId: max(lastId + 1, Int64(Date().timeIntervalSince1970 * 1000)), counts: counts)
        }
        let (unsent, lastId) = await cancelWhenGracefulShutdown { () async -> (EdgeReport?, Int64) in
            var lastId: Int64 = 0
            var pending: EdgeReport?
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                if pending == nil, let report = next(after: lastId) {
                    pending = report
                    lastId = report.reportId
                }
                guard let report = pending else { continue }
                do {
                    let answer = try await client.call(SyncAPI.report, report, timeout: .seconds(3))
                    pending = nil
                    if !answer.accepted && answer.lastReportId > report.reportId {
                        // Our id was behind campaignd's (the clock went back): the counts were not taken; send them again.
                        lastId = answer.lastReportId
                        ledger.restore(report.counts)
                    }
                } catch {
                    logger.debug("could not ship counts yet", metadata: ["error": "\(error)"])
                }
            }
            return (pending, lastId)
        }
        // Flush on the way out: what is pending, then what came since.
        for report in [unsent, next(after: max(lastId, unsent?.reportId ?? 0))].compactMap({ $0 }) {
            do {
                _ = try await client.call(SyncAPI.report, report, timeout: .seconds(1))
            } catch {
                logger.warning("counts not shipped before exit", metadata: ["campaigns": "\(report.counts.count)"])
            }
        }
        await client.close()
    }
}
