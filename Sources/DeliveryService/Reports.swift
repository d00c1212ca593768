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

/// What the edge remembers of devices, from their reports: impressions (for caps) and the rotation. Bounded: the
/// least recently reported devices are forgotten first. A device is known by its id's fingerprint, so its id is not
/// kept.
///
/// Of a campaign's impressions, only as many as its cap counts are kept, and none for a campaign without a cap. So
/// a cap counts the impressions reported while the campaign had one: a cap added to a running campaign (or lifted
/// and set again) counts from then on. Raising a cap loses nothing, as no more impressions than the old cap could
/// have been shown in its window. A device keeps at most ``keptPerDevice`` times over all its campaigns and 256
/// campaigns, those shown longest ago forgotten first.
final class DeviceHistory: Sendable {
    private let devices: Mutex<FingerprintMap<DeviceView>>
    /// Whether any impression was ever recorded: until then every device is unknown, and a query need not take the
    /// lock to learn it. (Set under the lock, before the first view is stored; never cleared.)
    private let anyRecorded = Atomic<Bool>(false)

    /// Impression times kept per device over all its campaigns: enough for the largest cap (1,000 shows), and a
    /// bound on what one device's reports can make the edge hold and rework on each report.
    static let keptPerDevice = 1_000

    init(capacity: Int) {
        devices = Mutex(FingerprintMap(capacity: capacity))
    }

    func view(_ deviceId: String?) -> DeviceView {
        guard let deviceId, anyRecorded.load(ordering: .acquiring) else { return .unknown }
        let key = fingerprint(deviceId)
        return devices.withLock { $0.peek(key) } ?? .unknown
    }

    /// Records an impression of `campaign` (other events change nothing here). `campaign`'s cap says how many of
    /// its impressions to keep: a cap of `shows` in any window needs only the last `shows` of them. `group` gives
    /// the campaigns the device's rotation goes round with `campaign` (asked for only when it sees one again; none
    /// but `campaign` itself by default).
    func record(_ event: LaunchEvent, of campaign: Campaign, at time: Timestamp, group: () -> [Int64] = { [] }) {
        guard event.type == .impression else { return }
        let key = fingerprint(event.deviceId)
        let kept = campaign.frequencyCap?.shows ?? 0
        let variant = event.sha256.map(DeviceView.variantKey)
        devices.withLock { devices in
            if !anyRecorded.load(ordering: .relaxed) { anyRecorded.store(true, ordering: .releasing) }
            let old = devices.get(key) ?? .unknown
            let seenAgain = old.hasSeen(campaign: event.campaignId) || variant.map(old.hasSeen(variant:)) == true
            guard kept > 0 || seenAgain else {
                // No cap and nothing seen again: no times to keep, and the rotation just grows, so the view is written
                // straight from the old one.
                devices.set(key, old.seeing(uncapped: event.campaignId, variant: variant))
                return
            }
            var impressions = old.impressions
            var times = impressions.removeValue(forKey: event.campaignId) ?? []
            // Reports may come out of order: keep the times sorted, so the last `kept` are the latest.
            let place = times.lastIndex { $0 <= time }.map { $0 + 1 } ?? 0
            times.insert(time, at: place)
            if times.count > kept { times.removeFirst(times.count - kept) }
            impressions[event.campaignId] = times
            var total = impressions.values.reduce(0) { $0 + $1.count }
            while total > Self.keptPerDevice || impressions.count > 256 {  // forget the campaigns shown longest ago
                guard let oldest = impressions.lazy.filter({ $0.key != event.campaignId })
                    .min(by: { ($0.value.last ?? time) < ($1.value.last ?? time) }) else { break }
                total -= oldest.value.count
                impressions[oldest.key] = nil
            }
            // The rotation moves on (and starts over for what is seen again).
            let rotation = DeviceView.rotated(campaigns: old.seenCampaigns, variants: old.variantKeys, after: event.campaignId,
                                              variant: variant, group: group,
                                              campaignVariants: { campaign.creatives.map { DeviceView.variantKey($0.sha256) } })
            devices.set(key, DeviceView.make(impressions: impressions, seenCampaigns: rotation.campaigns, variantKeys: rotation.variants,
                                             rotation: old.rotation &+ 1))
        }
    }

    var count: Int { devices.withLock { $0.count } }
}

/// Event ids already counted, and the counts not yet shipped to campaignd. The ids are kept as fingerprints in
/// fixed memory (``FingerprintSet``): at least the last `capacity / 2` events are known, whatever their ids' length.
final class EventLedger: Sendable {
    private let seen: Mutex<FingerprintSet>
    private let counts = Mutex<[Int64: CampaignStats]>([:])

    init(capacity: Int) {
        seen = Mutex(FingerprintSet(capacity: capacity))
    }

    /// Event ids held now.
    var count: Int { seen.withLock { $0.count } }

    /// Counts the event unless its id was seen; returns whether it was new.
    func admit(_ event: LaunchEvent) -> Bool {
        let key = fingerprint(event.eventId)
        let new = seen.withLock { $0.insert(key) }
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
