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

    /// The counts not in a report yet (by campaign, hour and creative), and the fingerprints of the events counted
    /// since the journal last took them.
    private struct Unsaved {
        var counts: [HourlyCount.Key: HourlyCount] = [:]
        var fingerprints: [UInt64] = []
    }
    private let unsaved = Locked(Unsaved())

    init(capacity: Int, key: EventKey = .random()) {
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

    /// Counts the event unless its id was seen, under the hour it happened in (its `at`, or `now`) and `creative` (the
    /// event's creative when it is one of the campaign's: an unknown one would only grow the counts); returns whether
    /// it was new.
    func admit(_ event: LaunchEvent, creative: String? = nil, now: Timestamp = .now()) -> Bool {
        let fingerprint = key.fingerprint(event.eventId)
        let new = seen.withLock { $0.insert(fingerprint) }
        guard new else { return false }
        let hour = HourlyCount.hour(of: event.at ?? now)
        let countKey = HourlyCount.Key(id: event.campaignId, hour: hour.milliseconds, sha256: creative)
        unsaved.withLock { unsaved in
            var entry = unsaved.counts[countKey] ?? HourlyCount(id: event.campaignId, hour: hour, sha256: creative)
            switch event.type {
            case .impression: entry.impressions += 1
            case .click: entry.clicks += 1
            case .skip: entry.skips += 1
            }
            unsaved.counts[countKey] = entry
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

    /// For a save: the counts gathered so far (left in place) and the fingerprints not yet in the journal (taken),
    /// together, so that every count saved has its event's fingerprint saved with or before it.
    func takeForSave() -> (unsent: [HourlyCount], fingerprints: [UInt64]) {
        let (counts, fingerprints) = unsaved.withLock { unsaved in
            defer { unsaved.fingerprints.removeAll(keepingCapacity: true) }
            return (Array(unsaved.counts.values), unsaved.fingerprints)
        }
        return (HourlyCount.merged(counts), fingerprints)
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

    /// Puts back counts that could not be shipped.
    func restore(_ unsent: [HourlyCount]) {
        unsaved.withLock { unsaved in
            for item in unsent {
                unsaved.counts[item.key, default: HourlyCount(id: item.id, hour: item.hour, sha256: item.sha256)].add(item)
            }
        }
    }
}
