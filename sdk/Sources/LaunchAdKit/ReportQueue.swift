import Foundation

/// What a session reports to the edge.
public enum ReportKind: String, Sendable, Codable, CaseIterable {
    case impression, click, skip
}

/// The result of sending what the queue holds.
public struct ReportFlush: Sendable, Equatable {
    /// Events the edge counted now.
    public var accepted = 0
    /// Events the edge had counted before (sent again after a kill between sending and noting it).
    public var duplicates = 0
    /// Events the edge refused outright (dropped: sending them again cannot succeed).
    public var rejected = 0
    /// Events still waiting (the edge did not answer; retried with backoff).
    public var pending = 0
    /// Whether the backoff held the queue back this time.
    public var deferred = false

    public init() {}
}

/// Impressions, clicks and skips waiting for the edge, in `reports.json` in the state folder, written atomically
/// before anything is sent, so they outlive a kill of the app; each event once per event id (the edge counts a
/// resent id once, so a retry is safe). A failed send waits 1, 2, 4 ... up to 300 seconds (by the SDK's clock)
/// before the next, also across restarts.
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

    /// Sends what waits, in batches, unless the backoff says not yet (`force` ignores it).
    func flush(now: Date, force: Bool = false, send: @Sendable ([ReportEvent]) async throws -> ReportAnswer) async -> ReportFlush {
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
            } catch EdgeError.rpc {
                // One bad event refuses the batch: send them one by one, so only that one is dropped.
                for event in batch {
                    guard await deliverAlone(event, send, into: &result) else { return backOff(now: now, result: result) }
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

    /// Sends one event and notes it delivered (or refused, and dropped); false when the edge did not answer.
    private func deliverAlone(_ event: ReportEvent, _ send: @Sendable ([ReportEvent]) async throws -> ReportAnswer,
                              into result: inout ReportFlush) async -> Bool {
        do {
            let answer = try await sendAlone(event, send)
            result.accepted += answer.accepted
            result.duplicates += answer.duplicates
        } catch EdgeError.rpc {
            result.rejected += 1
        } catch {
            return false
        }
        settle([event])
        return true
    }

    /// Sends one event; when the edge refuses it and it carries a time (a device clock far off is refused), once
    /// more without it (the edge then counts it when received) before it is given up.
    private func sendAlone(_ event: ReportEvent, _ send: @Sendable ([ReportEvent]) async throws -> ReportAnswer) async throws -> ReportAnswer {
        do {
            return try await send([event])
        } catch EdgeError.rpc where event.at != nil {
            var untimed = event
            untimed.at = nil
            return try await send([untimed])
        }
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
