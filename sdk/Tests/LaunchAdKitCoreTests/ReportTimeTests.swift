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

    @Test("only a refusal of the time itself (a device clock far off) sends the event without it, named in data.field or in the message alone; one older than the edge takes by the device's clock is given up instead")
    func timeRefused() async throws {
        for named in [true, false] {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("reports-\(UUID().uuidString).json")
            defer { try? FileManager.default.removeItem(at: file) }
            let queue = ReportQueue(file: file)
            let recent = event("l-1-reported", "reported", at: Self.start)
            let old = event("l-0-reported", "reported", at: Self.start.addingTimeInterval(-8 * 86_400))
            try await queue.enqueue(old)
            try await queue.enqueue(recent)
            let refusal = try edgeError(-32602, "Invalid params: events[0].at: must be within the last 7 days",
                                        field: named ? "events[0].at" : nil)
            let sent = SentForms()
            let flush = await queue.flush(now: Self.start.addingTimeInterval(60)) { events in
                sent.append(events)
                if events.count > 1 || events[0].at != nil { throw refusal }
                return ReportAnswer(accepted: 1, duplicates: 0)
            }
            #expect(flush.accepted == 1 && flush.rejected == 1 && flush.pending == 0, "\(flush)")
            let forms = sent.all.flatMap { $0 }
            #expect(forms.filter { $0.eventId == old.eventId }.allSatisfy { $0.at == old.at }, "never sent without its time")
            #expect(forms.filter { $0.eventId == recent.eventId }.map(\.at) == [recent.at, recent.at, nil])
            #expect(forms.filter { $0.eventId == recent.eventId }.allSatisfy { $0.app == "shop" }, "its app kept")
        }
    }
}
