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
    /// Events the edge refused outright (dropped: sending them again cannot succeed).
    public var rejected = 0
    /// Events still waiting (the edge did not answer; retried with backoff).
    public var pending = 0
    /// Whether the backoff held the queue back this time.
    public var deferred = false

    public init() {}
}

/// Events waiting for the edge, in `reports.json` in the state folder, written atomically
/// before anything is sent, so they outlive a kill of the app; each event once per event id (the edge counts a
/// resent id once, so a retry is safe), with the time it was queued at, sent with it however often it is sent. A
/// failed send (no answer, or an error that says nothing of the events, as a busy edge's) waits 1, 2, 4 ... up to
/// 300 seconds (by the SDK's clock) before the next, also across restarts.
actor ReportQueue {
    struct Stored: Codable {
        var pending: [ReportEvent] = []
        /// Event ids already delivered (the last 1,000), so a session's event enqueued again is not sent twice.
        var delivered: [String] = []
        var failures = 0
        var nextAttempt: Date?
    }

    private let file: URL
    private var stored: Stored
    /// The latest flush asked for (the next waits for it).
    private var flushing: Task<Void, Never>?
    static let batch = 100
    static let remembered = 1_000

    init(file: URL) {
        self.file = file
        stored = (try? Data(contentsOf: file)).flatMap { try? JSONDecoder().decode(Stored.self, from: $0) } ?? Stored()
    }

    var pending: [ReportEvent] { stored.pending }

    /// Adds an event unless its id is queued or was delivered; saved before it returns.
    func enqueue(_ event: ReportEvent) throws {
        guard !stored.pending.contains(where: { $0.eventId == event.eventId }), !stored.delivered.contains(event.eventId) else { return }
        stored.pending.append(event)
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
                for event in batch {
                    guard await deliverAlone(event, now: now, send, into: &result) else { return backOff(now: now, result: result) }
                }
            } catch {
                return backOff(now: now, result: result)
            }
        }
        stored.failures = 0
        stored.nextAttempt = nil
        try? save()
        return result
    }

    /// Sends one event and notes it delivered (or refused, and dropped); false when the edge did not answer (or
    /// answered an error that says nothing of the event, as busy): it stays queued, its time with it.
    private func deliverAlone(_ event: ReportEvent, now: Date, _ send: @Sendable ([ReportEvent]) async throws -> ReportAnswer,
                              into result: inout ReportFlush) async -> Bool {
        do {
            let answer = try await sendAlone(event, now: now, send)
            result.accepted += answer.accepted
            result.duplicates += answer.duplicates
        } catch EdgeError.rpc(let error) where error.refusesTheCall {
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
    /// off by more than the edge allows) sends it without, the edge then counting it when received; an event older
    /// than the edge takes by this device's own clock is given up instead, counting it days late being wrong.
    private func sendAlone(_ event: ReportEvent, now: Date, _ send: @Sendable ([ReportEvent]) async throws -> ReportAnswer) async throws -> ReportAnswer {
        var form = event
        while true {
            do {
                return try await send([form])
            } catch EdgeError.rpc(let error) where error.refusesTheCall {
                if form.at != nil, error.namesTime, !Self.tooOld(event, now: now) {
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

    /// Whether `event` happened longer ago than the edge takes, by the device's clock at `now`.
    static func tooOld(_ event: ReportEvent, now: Date) -> Bool {
        guard let at = event.at.flatMap(RFC3339.date) else { return false }
        return now.timeIntervalSince(at) > edgeKeepsDays * 86_400
    }

    private func settle(_ events: [ReportEvent]) {
        let ids = Set(events.map(\.eventId))
        stored.pending.removeAll { ids.contains($0.eventId) }
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
