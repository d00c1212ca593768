import LaunchAdAPI
import LaunchAdDomain
import Locking

/// Event ids already counted, and the counts not yet shipped to campaignd. The ids are kept as fingerprints in
/// fixed memory (``FingerprintSet``): at least the last `capacity / 2` events are known, whatever their ids' length.
/// Their fingerprints are keyed by `key`, which the ``EventJournal`` keeps, so that those it wrote are known again
/// after a restart.
final class EventLedger: Sendable {
    private let seen: Locked<FingerprintSet>
    private let key: EventKey
    /// Fingerprints the set holds per generation.
    let generation: Int

    /// The counts not in a report yet (by campaign, hour and creative; and by app and hour for the funnel), and the
    /// fingerprints of the events counted since the journal last took them.
    private struct Unsaved {
        var counts: [HourlyCount.Key: HourlyCount] = [:]
        var apps: [AppHourlyCount.Key: AppHourlyCount] = [:]
        var fingerprints: [UInt64] = []
    }
    private let unsaved = Locked(Unsaved())

    /// The most apps and hours counted and not yet in a report (a report takes ``EdgeReport/appHoursPerReport`` of
    /// them): the apps' reports name any app, and a client making up names must not grow the edge's memory.
    let appLimit: Int
    static let defaultAppLimit = 10_000

    init(capacity: Int, key: EventKey = .random(), appLimit: Int = EventLedger.defaultAppLimit) {
        self.appLimit = appLimit
        let set = FingerprintSet(capacity: capacity)
        generation = set.generation
        seen = Locked(set)
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

    /// Counts the event unless its id was seen, under the hour it happened in (its `at`, or `now`): a campaign's
    /// event by campaign and `creative` (the event's creative when it is one of the campaign's: an unknown one would
    /// only grow the counts), and a funnel's report or an impression by `app` too (the app a report names, the app of
    /// an impression's campaign). A user's report of an ad (`reported`) is known by its device, campaign and hour
    /// instead of its id: one device reports a campaign at most once an hour (as far as the set remembers), so the
    /// reports that reach an app's threshold are reporting devices, not event ids one client can mint. Returns
    /// whether it was new.
    func admit(_ event: LaunchEvent, creative: String? = nil, app: String? = nil, now: Timestamp = .now()) -> Bool {
        let hour = HourlyCount.hour(of: event.at ?? now)
        let fingerprint = if event.type == .reported, let id = event.campaignId {
            key.fingerprint(reportOf: event.deviceId, campaign: id, hour: hour.milliseconds)
        } else {
            key.fingerprint(event.eventId)
        }
        let new = seen.withLock { $0.insert(fingerprint) }
        guard new else { return false }
        unsaved.withLock { unsaved in
            if !event.type.isFunnel, let id = event.campaignId {
                let countKey = HourlyCount.Key(id: id, hour: hour.milliseconds, sha256: creative)
                var entry = unsaved.counts[countKey] ?? HourlyCount(id: id, hour: hour, sha256: creative)
                switch event.type {
                case .impression: entry.impressions += 1
                case .click: entry.clicks += 1
                case .skip: entry.skips += 1
                case .reported: entry.reasons = ReportReasons.merged(entry.reasons, event.reason.map(ReportReasons.init(one:)))
                case .request, .noAd, .timeout, .failed: break
                }
                unsaved.counts[countKey] = entry
            }
            if let app, event.type.isFunnel || event.type == .impression {
                let appKey = AppHourlyCount.Key(app: app, hour: hour.milliseconds)
                // Apps are whatever the reports name (an app with no campaign is counted too): past the bound, a new
                // app and hour waits for a report to take the ones held, and its launches are not counted meanwhile.
                // Counted where it lies: through `subscript(_:default:)` each count made and destroyed a default.
                if let index = unsaved.apps.index(forKey: appKey) {
                    unsaved.apps.values[index].count(event.type)
                } else if unsaved.apps.count < appLimit {
                    var entry = AppHourlyCount(app: app, hour: hour)
                    entry.count(event.type)
                    unsaved.apps[appKey] = entry
                }
            }
            // While the journal cannot take them, the newest generation waits (older ones the set forgets anyway).
            if unsaved.fingerprints.count >= 2 * generation { unsaved.fingerprints.removeFirst(generation) }
            unsaved.fingerprints.append(fingerprint)
        }
        return true
    }

    /// The counts gathered so far, by campaign, hour and creative.
    var unsent: [HourlyCount] {
        HourlyCount.merged(unsaved.withLock { Array($0.counts.values) })
    }

    /// The counts gathered so far by app and hour.
    var unsentApps: [AppHourlyCount] {
        AppHourlyCount.merged(unsaved.withLock { Array($0.apps.values) })
    }

    /// For a save: the counts gathered so far (left in place) and the fingerprints not yet in the journal (taken),
    /// together, so that every count saved has its event's fingerprint saved with or before it.
    func takeForSave() -> (unsent: [HourlyCount], apps: [AppHourlyCount], fingerprints: [UInt64]) {
        let (counts, apps, fingerprints) = unsaved.withLock { unsaved in
            defer { unsaved.fingerprints.removeAll(keepingCapacity: true) }
            return (Array(unsaved.counts.values), Array(unsaved.apps.values), unsaved.fingerprints)
        }
        return (HourlyCount.merged(counts), AppHourlyCount.merged(apps), fingerprints)
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
    func drain() -> [HourlyCount] {
        HourlyCount.merged(unsaved.withLock { unsaved in
            defer { unsaved.counts.removeAll() }
            return Array(unsaved.counts.values)
        })
    }

    /// Takes the counts gathered so far by app and hour, at most `limit` of them (the oldest hours first): the rest
    /// wait for the next report.
    func drainApps(limit: Int = EdgeReport.appHoursPerReport) -> [AppHourlyCount] {
        unsaved.withLock { unsaved in
            guard unsaved.apps.count > limit else {
                defer { unsaved.apps.removeAll() }
                return AppHourlyCount.merged(Array(unsaved.apps.values))
            }
            let taken = unsaved.apps.values.sorted { ($0.hour.milliseconds, $0.app) < ($1.hour.milliseconds, $1.app) }.prefix(limit)
            for item in taken { unsaved.apps[item.key] = nil }
            return AppHourlyCount.merged(Array(taken))
        }
    }

    /// Puts back counts that could not be shipped.
    func restore(_ unsent: [HourlyCount], apps: [AppHourlyCount] = []) {
        unsaved.withLock { unsaved in
            for item in unsent {
                unsaved.counts[item.key, default: HourlyCount(id: item.id, hour: item.hour, sha256: item.sha256)].add(item)
            }
            for item in apps {
                unsaved.apps[item.key, default: AppHourlyCount(app: item.app, hour: item.hour)].add(item)
            }
        }
    }
}
