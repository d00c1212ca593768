import Foundation

/// What the SDK reports to the edge: a session's impression, click and skip, and the launch funnel's `request`
/// (a launch the SDK decided), `noAd` (neither the edge nor the cache had an ad), `timeout` (the budget passed with
/// nothing shown) and `failed` (the media could not be shown).
public enum ReportKind: String, Sendable, Codable, CaseIterable {
    case impression, click, skip
    case request, noAd, timeout, failed
}

/// Why the user reported an ad (``LaunchAdClient/report(_:reason:launch:)``): what the edge takes as `reason`.
public enum AdReportReason: String, Sendable, Codable, CaseIterable {
    /// Offensive, adult or otherwise unfit for the app's users.
    case inappropriate
    /// Says what is not so, or hides what it is.
    case misleading
    /// Shown too often.
    case repetitive
    case other
}

/// The result of sending what the queue holds.
public struct ReportFlush: Sendable, Equatable {
    /// Events the edge counted now.
    public var accepted = 0
    /// Events the edge had counted before (sent again after a kill between sending and noting it), or a second report
    /// of a campaign from this device within the hour (the edge counts one).
    public var duplicates = 0
    /// Events the edge refused outright, or that met an error saying nothing of them (other than busy) once more
    /// after five (sent alone then): dropped, sending them again being of no use.
    public var rejected = 0
    /// Events given up without asking the edge since the last flush said so: the oldest when more than 1,000 waited,
    /// and user reports older than the edge takes by this device's clock (its 7 days and a day's margin).
    public var dropped = 0
    /// Events still waiting (the edge did not answer, was busy, or failed; retried with backoff).
    public var pending = 0
    /// Whether the backoff held the queue back this time.
    public var deferred = false

    public init() {}
}

/// Events waiting for the edge, in `reports.json` in the state folder, written atomically
/// before anything is sent, so they outlive a kill of the app; each event once per event id (the edge counts a
/// resent id once, so a retry is safe), with the time it was queued at, sent with it however often it is sent. A
/// failed send (no answer, or an error that says nothing of the events, as a busy edge's) waits 1, 2, 4 ... up to
/// 300 seconds (by the SDK's clock) before the next, also across restarts. A busy edge is waited for however long
/// it is busy; any other such error (an internal one) is counted against each event it met, and after
/// ``attemptsBeforeGivingUp`` the events are sent one by one and one failing again is given up, so that an event
/// the edge always fails on does not hold back those behind it. At most ``cap`` events wait, the oldest dropped.
actor ReportQueue {
    struct Stored: Codable {
        var pending: [ReportEvent] = []
        /// Event ids already delivered (the last 1,000), so a session's event enqueued again is not sent twice.
        var delivered: [String] = []
        var failures = 0
        var nextAttempt: Date?
        /// By event id: the errors saying nothing of the event (other than busy) it has met, kept with the queue so
        /// a restart does not start the count again.
        var attempts: [String: Int] = [:]
        /// Events given up without the edge since the last flush said so (``ReportFlush/dropped``).
        var dropped = 0

        init() {}

        // A file written before `attempts` and `dropped` existed still reads: its events are not lost.
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            pending = try container.decodeIfPresent([ReportEvent].self, forKey: .pending) ?? []
            delivered = try container.decodeIfPresent([String].self, forKey: .delivered) ?? []
            failures = try container.decodeIfPresent(Int.self, forKey: .failures) ?? 0
            nextAttempt = try container.decodeIfPresent(Date.self, forKey: .nextAttempt)
            attempts = try container.decodeIfPresent([String: Int].self, forKey: .attempts) ?? [:]
            dropped = try container.decodeIfPresent(Int.self, forKey: .dropped) ?? 0
        }
    }

    private let file: URL
    private let cap: Int
    private var stored: Stored
    /// The latest flush asked for (the next waits for it).
    private var flushing: Task<Void, Never>?
    static let batch = 100
    static let remembered = 1_000
    /// Errors saying nothing of an event (other than busy) after which it is sent alone, and given up if it fails
    /// again: with the backoff, some 15 s of an edge failing at the soonest, longer when flushes are far apart.
    static let attemptsBeforeGivingUp = 5

    /// `cap`: the most events that wait (a device long away from any edge keeps its latest).
    init(file: URL, cap: Int = 1_000) {
        self.file = file
        self.cap = cap
        stored = (try? Data(contentsOf: file)).flatMap { try? JSONDecoder().decode(Stored.self, from: $0) } ?? Stored()
    }

    var pending: [ReportEvent] { stored.pending }

    /// The errors saying nothing of `eventId` it has met (persisted).
    func attempts(_ eventId: String) -> Int { stored.attempts[eventId] ?? 0 }

    /// Adds an event unless its id is queued or was delivered, the oldest dropped past the cap; saved before it
    /// returns.
    func enqueue(_ event: ReportEvent) throws {
        guard !stored.pending.contains(where: { $0.eventId == event.eventId }), !stored.delivered.contains(event.eventId) else { return }
        stored.pending.append(event)
        if stored.pending.count > cap { drop(Array(stored.pending.prefix(stored.pending.count - cap))) }
        try save()
    }

    /// Sends what waits, in batches, unless the backoff says not yet (`force` ignores it). One flush at a time: a
    /// flush asked for while another runs starts after it (two at once would send the same events twice).
    func flush(now: Date, force: Bool = false, send: @escaping @Sendable ([ReportEvent]) async throws -> ReportAnswer) async -> ReportFlush {
        let previous = flushing
        let turn = Task {
            await previous?.value
            return await self.flushAlone(now: now, force: force, send: send)
        }
        flushing = Task { _ = await turn.value }
        return await turn.value
    }

    private func flushAlone(now: Date, force: Bool, send: @Sendable ([ReportEvent]) async throws -> ReportAnswer) async -> ReportFlush {
        var result = ReportFlush()
        drop(stored.pending.filter { Self.pastKeepWindow($0, now: now) })
        (result.dropped, stored.dropped) = (stored.dropped, 0)
        try? save()
        if !force, let next = stored.nextAttempt, now < next {
            result.pending = stored.pending.count
            result.deferred = true
            return result
        }
        while !stored.pending.isEmpty {
            let batch = Array(stored.pending.prefix(Self.batch))
            do {
                let answer = try await send(batch)
                result.accepted += answer.accepted
                result.duplicates += answer.duplicates
                settle(batch)
            } catch EdgeError.rpc(let error) where error.refusesTheCall {
                // One bad event refuses the batch: send them one by one, so only that one is dropped.
                guard await deliverEachAlone(batch, now: now, send, into: &result) else { return backOff(now: now, result: result) }
            } catch EdgeError.rpc(let error) where !error.isBusy {
                // Nothing said of which event: retried as a batch until one has failed too often, then one by one.
                guard countFailure(batch) else { return backOff(now: now, result: result) }
                guard await deliverEachAlone(batch, now: now, send, into: &result) else { return backOff(now: now, result: result) }
            } catch {
                return backOff(now: now, result: result)
            }
        }
        stored.failures = 0
        stored.nextAttempt = nil
        try? save()
        return result
    }

    /// Sends each of `batch` alone; false at the first that stays queued (the rest waiting behind it).
    private func deliverEachAlone(_ batch: [ReportEvent], now: Date, _ send: @Sendable ([ReportEvent]) async throws -> ReportAnswer,
                                  into result: inout ReportFlush) async -> Bool {
        for event in batch {
            guard await deliverAlone(event, now: now, send, into: &result) else { return false }
        }
        return true
    }

    /// Sends one event and notes it delivered (or refused, or failed too often, and dropped); false when the edge
    /// did not answer, was busy, or failed on it fewer times than it may: it stays queued, its time with it.
    private func deliverAlone(_ event: ReportEvent, now: Date, _ send: @Sendable ([ReportEvent]) async throws -> ReportAnswer,
                              into result: inout ReportFlush) async -> Bool {
        do {
            let answer = try await sendAlone(event, now: now, send)
            result.accepted += answer.accepted
            result.duplicates += answer.duplicates
        } catch EdgeError.rpc(let error) where error.refusesTheCall {
            result.rejected += 1
        } catch EdgeError.rpc(let error) where !error.isBusy {
            guard countFailure([event]) else { return false }
            result.rejected += 1
        } catch {
            return false
        }
        settle([event])
        return true
    }

    /// Sends one event; when the edge refuses it, again without its `app` (an edge from before the funnel knows no
    /// such member), before it is given up. The event keeps the time it was queued with through every form and
    /// every retry: the edge counts an event without one when it receives it, which can move it (a user's report
    /// towards a campaign's hourly threshold) into another hour. Only a refusal of the time itself (a device clock
    /// off by more than the edge allows, or an event older than it takes) sends it without, the edge then counting
    /// it when received, except a user's report made longer ago than ``reportLateAllowance`` by this device's clock:
    /// counting that one now (days late, perhaps) would be wrong, and it is given up instead.
    private func sendAlone(_ event: ReportEvent, now: Date, _ send: @Sendable ([ReportEvent]) async throws -> ReportAnswer) async throws -> ReportAnswer {
        var form = event
        while true {
            do {
                return try await send([form])
            } catch EdgeError.rpc(let error) where error.refusesTheCall {
                if form.at != nil, error.namesTime, Self.mayCountNow(event, now: now) {
                    form.at = nil
                } else if form.app != nil, !error.namesTime {
                    form.app = nil
                } else {
                    throw EdgeError.rpc(error)
                }
            }
        }
    }

    /// Days back the edge takes an event's time (its `LaunchEvent` rules).
    static let edgeKeepsDays = 7.0
    /// Days past the edge's window a user's report still waits, by this device's clock, which may be off by that
    /// much: only the edge's refusal of its time gives up one younger.
    static let keepMarginDays = 1.0
    /// How long ago (by this device's clock) a user's report whose time the edge refuses may have been made and be
    /// counted when received: within the hour, it lands in its hour or the next, which the edge's pause counts alike.
    static let reportLateAllowance: TimeInterval = 3_600

    /// How long before `now` `event` happened by this device's clock; nil without a time.
    static func age(_ event: ReportEvent, now: Date) -> TimeInterval? {
        event.at.flatMap(RFC3339.date).map { now.timeIntervalSince($0) }
    }

    /// Whether `event` is a user's report made longer ago than the edge takes and the margin, by the device's clock:
    /// dropped without sending. The session's and funnel's events are sent however old (without their time if the
    /// edge refuses it).
    static func pastKeepWindow(_ event: ReportEvent, now: Date) -> Bool {
        guard event.type == LaunchAdClient.reportedType, let age = age(event, now: now) else { return false }
        return age > (edgeKeepsDays + keepMarginDays) * 86_400
    }

    /// Whether `event`, its time refused, may be counted when the edge receives it: any but a user's report, and a
    /// report made within ``reportLateAllowance``.
    static func mayCountNow(_ event: ReportEvent, now: Date) -> Bool {
        guard event.type == LaunchAdClient.reportedType, let age = age(event, now: now) else { return true }
        return age <= reportLateAllowance
    }

    /// Counts an error saying nothing of `events` against each; true when one of them has now met
    /// ``attemptsBeforeGivingUp`` (the batch then goes one by one, and such an event failing again is given up).
    private func countFailure(_ events: [ReportEvent]) -> Bool {
        var exhausted = false
        for event in events {
            let count = (stored.attempts[event.eventId] ?? 0) + 1
            stored.attempts[event.eventId] = count
            if count >= Self.attemptsBeforeGivingUp { exhausted = true }
        }
        try? save()
        return exhausted
    }

    /// Gives up `events` without the edge's word, counted for the next flush's answer.
    private func drop(_ events: [ReportEvent]) {
        guard !events.isEmpty else { return }
        let ids = Set(events.map(\.eventId))
        stored.pending.removeAll { ids.contains($0.eventId) }
        for id in ids { stored.attempts[id] = nil }
        stored.dropped += ids.count
    }

    private func settle(_ events: [ReportEvent]) {
        let ids = Set(events.map(\.eventId))
        stored.pending.removeAll { ids.contains($0.eventId) }
        for id in ids { stored.attempts[id] = nil }
        stored.delivered.append(contentsOf: ids.sorted())
        if stored.delivered.count > Self.remembered { stored.delivered.removeFirst(stored.delivered.count - Self.remembered) }
        try? save()
    }

    private func backOff(now: Date, result: ReportFlush) -> ReportFlush {
        stored.failures += 1
        stored.nextAttempt = now.addingTimeInterval(min(300, pow(2, Double(stored.failures - 1))))
        try? save()
        var result = result
        result.pending = stored.pending.count
        return result
    }

    private func save() throws {
        try JSONEncoder().encode(stored).write(to: file, options: .atomic)
    }
}

extension EdgeError.RPCError {
    /// Whether the error names an event's time (`events[i].at`) as the member at fault: by its `data.field`, or in
    /// its message when it names none.
    var namesTime: Bool {
        if let field { return field.hasSuffix("].at") }
        return message.contains("].at:")
    }
}
