import Foundation
@testable import LaunchAdKit
import Testing

/// What a scripted edge was sent, one call a row.
final class SentForms: @unchecked Sendable {
    // @unchecked: `calls` is guarded by `lock`.
    private let lock = NSLock()
    private var calls: [[ReportEvent]] = []
    func append(_ events: [ReportEvent]) { lock.holding { calls.append(events) } }
    var all: [[ReportEvent]] { lock.holding { calls } }
}

/// The edge's JSON-RPC error, as it comes over the wire.
func edgeError(_ code: Int, _ message: String, field: String? = nil) throws -> EdgeError {
    var object: [String: Any] = ["code": code, "message": message]
    if let field { object["data"] = ["field": field, "reason": "refused"] }
    return .rpc(try JSONDecoder().decode(EdgeError.RPCError.self, from: JSONSerialization.data(withJSONObject: object)))
}

@Suite("a queued event keeps its time through refusals, failures, a busy edge and a restart", .timeLimit(.minutes(1)))
struct ReportTimeTests {
    static let start = Date(timeIntervalSince1970: 1_900_000_000)

    func event(_ id: String, _ type: String, campaign: Int64 = 7, at: Date) -> ReportEvent {
        ReportEvent(eventId: id, type: type, campaignId: campaign, app: "shop", deviceId: "d-1", sha256: nil, at: RFC3339.text(at),
                    reason: type == "reported" ? "misleading" : nil)
    }

    @Test("an impression and a report the edge does not answer, then (after a restart, two hours on) a batch refused for the impression's campaign and a busy edge: the report goes with the time it was queued at every time, the impression is given up without ever losing its time")
    func timeKept() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("reports-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        let queued = Self.start
        let report = event("l-1-reported", "reported", at: queued)
        let impression = event("l-2-impression", "impression", campaign: 9, at: queued.addingTimeInterval(1))
        let first = ReportQueue(file: file)
        try await first.enqueue(impression)
        try await first.enqueue(report)
        let sent = SentForms()
        let away = await first.flush(now: queued) { events in
            sent.append(events)
            throw EdgeError.timedOut
        }
        #expect(away.pending == 2 && away.rejected == 0)

        // A kill, and the edge back two hours later: it knows no campaign 9 and is busy at first for the report alone.
        let busy = try edgeError(-32006, "the server holds too many large replies that its peers have not read yet: retry later")
        let unknown = try edgeError(-32602, "Invalid params: events[1].campaignId: is not a campaign this edge knows",
                                    field: "events[1].campaignId")
        let alone = try edgeError(-32602, "Invalid params: events[0].campaignId: is not a campaign this edge knows",
                                  field: "events[0].campaignId")
        let second = ReportQueue(file: file)
        #expect(await second.pending == [impression, report], "the queue on disk holds both, times and all")
        let later = queued.addingTimeInterval(7_200)
        let refused = await second.flush(now: later, force: true) { events in
            sent.append(events)
            if events.count == 2 { throw unknown }
            if events[0].campaignId == 9 { throw alone }
            throw busy
        }
        #expect(refused.rejected == 1 && refused.pending == 1 && refused.accepted == 0, "\(refused)")
        #expect(await second.pending == [report])
        let delivered = await second.flush(now: later.addingTimeInterval(5), force: true) { events in
            sent.append(events)
            return ReportAnswer(accepted: events.count, duplicates: 0)
        }
        #expect(delivered.accepted == 1 && delivered.pending == 0)
        let forms = sent.all.flatMap { $0 }
        let reports = forms.filter { $0.eventId == report.eventId }
        #expect(reports.count == 4, "the first try, in the refused batch, alone to a busy edge, then delivered")
        #expect(reports.allSatisfy { $0.at == report.at && $0.reason == "misleading" }, "\(reports)")
        let impressions = forms.filter { $0.eventId == impression.eventId }
        #expect(impressions.count == 4, "the first try, in the batch, alone, alone without app")
        #expect(impressions.allSatisfy { $0.at == impression.at }, "\(impressions)")
        #expect(impressions.last?.app == nil)
    }

    func tempFile() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("reports-\(UUID().uuidString).json")
    }

    @Test("a refusal of the time itself (named in data.field or in the message alone): an impression however old and a report made a minute ago are sent without it; a report the device sees as 6.9 days old is given up, not counted a week late")
    func timeRefused() async throws {
        for named in [true, false] {
            let file = tempFile()
            defer { try? FileManager.default.removeItem(at: file) }
            let queue = ReportQueue(file: file)
            let now = Self.start.addingTimeInterval(60)
            let weekOld = Self.start.addingTimeInterval(-6.9 * 86_400)
            let lateReport = event("l-0-reported", "reported", at: weekOld)
            let lateImpression = event("l-0-impression", "impression", at: weekOld)
            let recent = event("l-1-reported", "reported", at: Self.start)
            for queued in [lateReport, lateImpression, recent] { try await queue.enqueue(queued) }
            let refusal = try edgeError(-32602, "Invalid params: events[0].at: must be within the last 7 days",
                                        field: named ? "events[0].at" : nil)
            let sent = SentForms()
            let flush = await queue.flush(now: now) { events in
                sent.append(events)
                if events.count > 1 || events[0].at != nil { throw refusal }
                return ReportAnswer(accepted: 1, duplicates: 0)
            }
            #expect(flush.accepted == 2 && flush.rejected == 1 && flush.pending == 0 && flush.dropped == 0, "\(flush)")
            let forms = sent.all.flatMap { $0 }
            #expect(forms.filter { $0.eventId == lateReport.eventId }.map(\.at) == [lateReport.at, lateReport.at], "never without its time")
            #expect(forms.filter { $0.eventId == lateImpression.eventId }.map(\.at) == [weekOld, weekOld, nil].map { $0.map(RFC3339.text) })
            #expect(forms.filter { $0.eventId == recent.eventId }.map(\.at) == [recent.at, recent.at, nil])
            #expect(forms.allSatisfy { $0.app == "shop" }, "the app kept: the refusal named the time")
        }
    }

    @Test("a refusal naming another member (in data.field, or in the message alone) never sends the event without its time: without its app, then given up")
    func otherFieldRefused() async throws {
        for named in [true, false] {
            let file = tempFile()
            defer { try? FileManager.default.removeItem(at: file) }
            let queue = ReportQueue(file: file)
            let report = event("l-1-reported", "reported", at: Self.start)
            let impression = event("l-1-impression", "impression", at: Self.start)
            try await queue.enqueue(report)
            try await queue.enqueue(impression)
            let refusal = try edgeError(-32602, "Invalid params: events[0].deviceId: must be 1 to 64 bytes",
                                        field: named ? "events[0].deviceId" : nil)
            let sent = SentForms()
            let flush = await queue.flush(now: Self.start.addingTimeInterval(60)) { events in
                sent.append(events)
                throw refusal
            }
            #expect(flush.rejected == 2 && flush.accepted == 0 && flush.pending == 0, "\(flush)")
            let forms = sent.all.flatMap { $0 }
            #expect(forms.count == 6, "each: in the batch, alone, alone without its app")
            #expect(!forms.isEmpty && forms.allSatisfy { $0.at == RFC3339.text(Self.start) }, "\(forms)")
            #expect(forms.filter { $0.app == nil }.map(\.eventId) == [report.eventId, impression.eventId])
        }
    }

    @Test("before sending, a report older than the edge's 7 days and a day by the device's clock is dropped (counted once, in dropped); one 7.5 days old is still sent with its time, an impression 20 days old too")
    func pastTheKeepWindow() async throws {
        let file = tempFile()
        defer { try? FileManager.default.removeItem(at: file) }
        let queue = ReportQueue(file: file)
        let stale = event("l-0-reported", "reported", at: Self.start.addingTimeInterval(-8.5 * 86_400))
        let margin = event("l-1-reported", "reported", at: Self.start.addingTimeInterval(-7.5 * 86_400))
        let impression = event("l-2-impression", "impression", at: Self.start.addingTimeInterval(-20 * 86_400))
        for queued in [stale, margin, impression] { try await queue.enqueue(queued) }
        let sent = SentForms()
        let flush = await queue.flush(now: Self.start) { events in
            sent.append(events)
            return ReportAnswer(accepted: events.count, duplicates: 0)
        }
        #expect(flush.dropped == 1 && flush.accepted == 2 && flush.rejected == 0 && flush.pending == 0, "\(flush)")
        #expect(sent.all.flatMap { $0 } == [margin, impression], "the stale report never sent; the others with their times")
        let next = await queue.flush(now: Self.start) { _ in ReportAnswer(accepted: 0, duplicates: 0) }
        #expect(next.dropped == 0)
    }

    @Test("at most `cap` events wait: the oldest dropped, counted in the next flush's dropped, across a restart")
    func capped() async throws {
        let file = tempFile()
        defer { try? FileManager.default.removeItem(at: file) }
        let queue = ReportQueue(file: file, cap: 3)
        let events = (0..<5).map { event("l-\($0)-impression", "impression", at: Self.start.addingTimeInterval(Double($0))) }
        for queued in events { try await queue.enqueue(queued) }
        #expect(await queue.pending == Array(events.suffix(3)))
        let restarted = ReportQueue(file: file, cap: 3)
        let flush = await restarted.flush(now: Self.start) { _ in throw EdgeError.timedOut }
        #expect(flush.dropped == 2 && flush.pending == 3, "\(flush)")
        #expect(await restarted.pending == Array(events.suffix(3)))
    }

    @Test("a busy edge is waited for however long; an internal error (-32603) is retried as a batch, counted per event across a restart, and after 5 the batch goes one by one: the event the edge always fails on is given up, those behind it delivered")
    func internalErrorBounded() async throws {
        let file = tempFile()
        defer { try? FileManager.default.removeItem(at: file) }
        let poison = event("l-0-impression", "impression", at: Self.start)
        let others = [event("l-1-impression", "impression", at: Self.start), event("l-1-reported", "reported", at: Self.start)]
        var queue = ReportQueue(file: file)
        for queued in [poison] + others { try await queue.enqueue(queued) }
        let busy = try edgeError(-32006, "the server holds too many large replies that its peers have not read yet: retry later")
        for second in 0..<8 {
            let flush = await queue.flush(now: Self.start.addingTimeInterval(Double(second)), force: true) { _ in throw busy }
            #expect(flush.pending == 3 && flush.rejected == 0, "\(flush)")
        }
        #expect(await queue.attempts(poison.eventId) == 0, "busy is not counted")

        let failing = try edgeError(-32603, "Internal error")
        let sent = SentForms()
        let edge: @Sendable ([ReportEvent]) async throws -> ReportAnswer = { events in
            sent.append(events)
            if events.contains(where: { $0.eventId == poison.eventId }) { throw failing }
            return ReportAnswer(accepted: events.count, duplicates: 0)
        }
        for attempt in 1..<ReportQueue.attemptsBeforeGivingUp {
            let flush = await queue.flush(now: Self.start.addingTimeInterval(Double(10 + attempt)), force: true, send: edge)
            #expect(flush.pending == 3 && flush.rejected == 0 && flush.accepted == 0, "\(flush)")
            if attempt == 2 { queue = ReportQueue(file: file) }
            #expect(await queue.attempts(poison.eventId) == attempt)
        }
        let last = await queue.flush(now: Self.start.addingTimeInterval(20), force: true, send: edge)
        #expect(last.rejected == 1 && last.accepted == 2 && last.pending == 0, "\(last)")
        #expect(sent.all.map(\.count) == [3, 3, 3, 3, 3, 1, 1, 1], "five batches, then each alone")
        #expect(await queue.pending.isEmpty)
        #expect(await queue.attempts(poison.eventId) == 0, "its count gone with it")
    }
}
