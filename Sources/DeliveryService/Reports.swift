import DurableFiles
import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import Logging
import ServiceLifecycle
import Synchronization
import ZeroMQ
import ZMQRPC

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
/// Their fingerprints are keyed by `key`, which the ``EventJournal`` keeps, so that those it wrote are known again
/// after a restart.
final class EventLedger: Sendable {
    private let seen: Mutex<FingerprintSet>
    private let key: EventKey
    /// Fingerprints the set holds per generation.
    let generation: Int

    /// The counts not in a report yet, and the fingerprints of the events counted since the journal last took them.
    private struct Unsaved {
        var counts: [Int64: CampaignStats] = [:]
        var fingerprints: [UInt64] = []
    }
    private let unsaved = Mutex(Unsaved())

    init(capacity: Int, key: EventKey = .random()) {
        let set = FingerprintSet(capacity: capacity)
        generation = set.generation
        seen = Mutex(set)
        self.key = key
    }

    /// Event ids held now.
    var count: Int { seen.withLock { $0.count } }

    /// Takes back the fingerprints of events counted before a restart, oldest first.
    func remember(_ fingerprints: [UInt64]) {
        seen.withLock { seen in
            for fingerprint in fingerprints { _ = seen.insert(fingerprint) }
        }
    }

    /// Counts the event unless its id was seen; returns whether it was new.
    func admit(_ event: LaunchEvent) -> Bool {
        let fingerprint = key.fingerprint(event.eventId)
        let new = seen.withLock { $0.insert(fingerprint) }
        guard new else { return false }
        unsaved.withLock { unsaved in
            var entry = unsaved.counts[event.campaignId] ?? CampaignStats(id: event.campaignId, impressions: 0, clicks: 0, skips: 0)
            switch event.type {
            case .impression: entry.impressions += 1
            case .click: entry.clicks += 1
            case .skip: entry.skips += 1
            }
            unsaved.counts[event.campaignId] = entry
            // While the journal cannot take them, the newest generation waits (older ones the set forgets anyway).
            if unsaved.fingerprints.count >= 2 * generation { unsaved.fingerprints.removeFirst(generation) }
            unsaved.fingerprints.append(fingerprint)
        }
        return true
    }

    /// The counts gathered so far, by campaign id.
    var unsent: [CampaignStats] {
        unsaved.withLock { $0.counts.values.sorted { $0.id < $1.id } }
    }

    /// For a save: the counts gathered so far (left in place) and the fingerprints not yet in the journal (taken),
    /// together, so that every count saved has its event's fingerprint saved with or before it.
    func takeForSave() -> (unsent: [CampaignStats], fingerprints: [UInt64]) {
        unsaved.withLock { unsaved in
            defer { unsaved.fingerprints.removeAll(keepingCapacity: true) }
            return (unsaved.counts.values.sorted { $0.id < $1.id }, unsaved.fingerprints)
        }
    }

    /// Puts back fingerprints the journal could not take, ahead of those that came since.
    func putBack(fingerprints: [UInt64]) {
        guard !fingerprints.isEmpty else { return }
        unsaved.withLock { unsaved in
            var all = fingerprints + unsaved.fingerprints
            if all.count > 2 * generation { all.removeFirst(all.count - 2 * generation) }
            unsaved.fingerprints = all
        }
    }

    /// Takes the counts gathered so far.
    func drain() -> [CampaignStats] {
        unsaved.withLock { unsaved in
            defer { unsaved.counts.removeAll() }
            return unsaved.counts.values.sorted { $0.id < $1.id }
        }
    }

    /// Puts back counts that could not be shipped.
    func restore(_ unsent: [CampaignStats]) {
        unsaved.withLock { unsaved in
            for item in unsent {
                var entry = unsaved.counts[item.id] ?? CampaignStats(id: item.id, impressions: 0, clicks: 0, skips: 0)
                entry.impressions += item.impressions
                entry.clicks += item.clicks
                entry.skips += item.skips
                unsaved.counts[item.id] = entry
            }
        }
    }
}

/// The counts campaignd has not taken yet, on disk (`reports.json` in the cache folder, a ``ChecksummedFile`` written
/// atomically), so that a restart loses none of them and counts none twice, even while campaignd is away: the
/// report on its way is kept under its id (campaignd takes an id once), and the counts gathered since beside it. A
/// file that does not verify is discarded, never trusted.
final class ReportFile: Sendable {
    struct Body: Codable, Equatable, Sendable {
        /// The last report id used: ids keep growing across restarts, even when the clock has gone back.
        var lastReportId: Int64
        /// The report sent (or about to be) that campaignd has not answered: sent again as it is.
        var pending: EdgeReport?
        /// Counts gathered since, in no report yet.
        var unsent: [CampaignStats]

        static let empty = Body(lastReportId: 0, pending: nil, unsent: [])
    }

    let url: URL
    /// What the file holds, once written or read by this process (so the same body is not written twice).
    private let written = Mutex<Body?>(nil)

    init(directory: URL) {
        url = directory.appendingPathComponent("reports.json")
    }

    /// Writes `body` unless the file already holds it.
    func save(_ body: Body) throws {
        guard written.withLock({ $0 != body }) else { return }
        try AtomicFile.write(ChecksummedFile.contents(body: try JSONValueEncoder().encodeJSON(body)), to: url)
        written.withLock { $0 = body }
    }

    /// The counts saved, or ``Body/empty`` when there are none or the file does not verify (`discarded`).
    func load() -> (body: Body, discarded: Bool) {
        guard let data = FileManager.default.contents(atPath: url.path) else { return (.empty, false) }
        guard let bytes = ChecksummedFile.body(of: [UInt8](data)),
              let body = try? JSONValueDecoder(rejectUnknownKeys: false).decode(Body.self, fromJSON: bytes) else {
            return (.empty, true)
        }
        written.withLock { $0 = body }
        return (body, false)
    }
}

/// Ships the counts to campaignd every few seconds. A report keeps its id until campaignd takes it, so a report
/// sent again after a lost answer is counted once; ids grow with the clock, so they keep growing across restarts.
/// What campaignd has not taken is in the ``ReportFile`` before each report goes out, and on the way out; the
/// fingerprints of the events counted are in the ``EventJournal`` before their counts are in the file.
final class ReportShipper: Service {
    let configuration: DeliveryServiceConfiguration
    let context: ZMQContext
    let ledger: EventLedger
    let file: ReportFile
    let journal: EventJournal
    let curve: CurveClientOptions?
    let logger: Logger
    let interval: Duration
    /// Where the file is written (its fsyncs off the tasks' shared threads).
    private let disk = DispatchQueue(label: "deliveryd.report-save")
    /// Whether the last write of the file failed (it is said once, not every round).
    private let failing = Mutex(false)

    init(configuration: DeliveryServiceConfiguration, context: ZMQContext, ledger: EventLedger, file: ReportFile,
         journal: EventJournal, curve: CurveClientOptions?, logger: Logger, interval: Duration) {
        self.configuration = configuration
        self.context = context
        self.ledger = ledger
        self.file = file
        self.journal = journal
        self.curve = curve
        self.logger = logger
        self.interval = interval
    }

    /// What is being shipped: the report campaignd has not answered, and the last id used.
    struct Outbox: Sendable {
        var pending: EdgeReport?
        var lastId: Int64
    }

    func run() async throws {
        var clientConfiguration = RPCClientConfiguration(endpoint: configuration.campaignSync)
        clientConfiguration.curve = curve
        clientConfiguration.name = "reports"
        // Each round sends the pending report again itself, after writing what came since: a call that retried would
        // keep the round (and the file) waiting three timeouts while campaignd is away.
        clientConfiguration.retries = 0
        let client = try RPCClient(context: context, configuration: clientConfiguration)
        let (saved, discarded) = file.load()
        if discarded { logger.warning("discarded a report file that did not verify", metadata: ["file": "\(file.url.path)"]) }
        ledger.restore(saved.unsent)
        if saved.pending != nil || !saved.unsent.isEmpty {
            logger.info("counts from before the restart are shipped again", metadata: ["campaigns": "\(saved.unsent.count)",
                                                                                      "pending": "\(saved.pending?.reportId ?? 0)"])
        }
        let start = Outbox(pending: saved.pending, lastId: saved.lastReportId)
        var outbox = await cancelWhenGracefulShutdown { () async -> Outbox in
            var outbox = start
            // Until the shutdown cancels a sleep (or a call, and then the next sleep): the way out below ships last.
            while (try? await Task.sleep(for: self.interval)) != nil {
                _ = await self.ship(&outbox, client: client, timeout: .seconds(3))
            }
            return outbox
        }
        // On the way out (no report comes in any more): what is pending, then what came since; what campaignd does
        // not take stays in the file for the next start.
        for _ in 0..<2 {
            guard await ship(&outbox, client: client, timeout: .seconds(1)) else { break }
        }
        if outbox.pending != nil || !ledger.unsent.isEmpty {
            if failing.withLock({ $0 }) {
                logger.error("counts not shipped before exit are lost: the cache folder refuses the report file", metadata: ["file": "\(file.url.path)"])
            } else {
                logger.warning("counts not shipped before exit are kept in the cache folder", metadata: ["file": "\(file.url.path)"])
            }
        }
        await client.close()
    }

    /// One round: the counts gathered so far become a report unless one is pending, both are written to the file,
    /// and the report goes out once they are. Returns whether campaignd answered it (`true` too when there was
    /// nothing to send).
    private func ship(_ outbox: inout Outbox, client: RPCClient, timeout: Duration) async -> Bool {
        if outbox.pending == nil {
            let counts = ledger.drain()
            if !counts.isEmpty {
                let id = max(outbox.lastId + 1, Int64(Date().timeIntervalSince1970 * 1000))
                outbox.pending = EdgeReport(edgeId: configuration.edgeId, reportId: id, counts: counts)
                outbox.lastId = id
            }
        }
        // On disk before it goes: a report campaignd may have taken is sent again under its own id after a restart.
        // While the file cannot be written, nothing goes: a start that read the older file would ship these counts
        // again, under a new id.
        guard await save(outbox) else { return false }
        guard let report = outbox.pending else { return true }
        do {
            let answer = try await client.call(SyncAPI.report, report, timeout: timeout)
            outbox.pending = nil
            if !answer.accepted && answer.lastReportId > report.reportId {
                // Our id was behind campaignd's (the clock went back): the counts were not taken; send them again.
                outbox.lastId = answer.lastReportId
                ledger.restore(report.counts)
            }
            await save(outbox)
            return true
        } catch {
            logger.debug("could not ship counts yet", metadata: ["error": "\(error)"])
            return false
        }
    }

    /// Writes the fingerprints of the events counted since the last save to the journal, then the outbox and the
    /// counts gathered since to the file, on the disk's queue. When the journal cannot take them, the file is left
    /// as it was, so that no count is on disk without its event. Returns whether both were written.
    @discardableResult
    private func save(_ outbox: Outbox) async -> Bool {
        let (unsent, fingerprints) = ledger.takeForSave()
        let body = ReportFile.Body(lastReportId: outbox.lastId, pending: outbox.pending, unsent: unsent)
        let written: Result<Void, any Error> = await withCheckedContinuation { done in
            disk.async {
                done.resume(returning: Result {
                    do { try self.journal.append(fingerprints) } catch { self.ledger.putBack(fingerprints: fingerprints); throw error }
                    try self.file.save(body)
                })
            }
        }
        let error: (any Error)? = if case .failure(let error) = written { error } else { nil }
        let changed = failing.withLock { failing in
            defer { failing = error != nil }
            return failing != (error != nil)
        }
        if changed, let error {
            logger.error("cannot write the report file or the event ids; counts wait in memory and are not shipped until they can be written",
                         metadata: ["error": "\(error)"])
        } else if changed {
            logger.info("the report file is written again")
        }
        return error == nil
    }
}
