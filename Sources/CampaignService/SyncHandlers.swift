import CampaignStore
import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdRuntime
import ZMQRPC

enum SyncHandlers {
    /// `edgeKeys`, with CURVE: which edge id each admitted key speaks for (acknowledgements and reports for another are
    /// refused); `seals`, with CURVE: each edge's seal, without which its acknowledgements and reports are refused
    /// whatever key brought them. `seqs` bounds the acknowledged seqs, `statsRetention` (seconds) the hours of reports.
    static func table(store: any Store, edges: EdgeRegistry, edgeKeys: EdgeKeys?, seals: RecordSeals?, seqs: SeqCeiling,
                      statsRetention: Double, clock: @escaping WallClock) -> MethodTable {
        var table = MethodTable()
        table.register(SyncAPI.snapshot) { params, _ in
            guard params.isPaged else { return seqs.raised(by: try await store.snapshot()) }
            let (after, limit) = try params.checked()
            return seqs.raised(by: try await store.snapshotPage(after: after, limit: limit, maxBytes: SyncAPI.maxPageBytes))
        }
        table.register(SyncAPI.changes) { params, _ in
            let unavailable = JSONRPCError(code: APIError.changesUnavailable.code, message: APIError.changesUnavailable.message)
            guard params.epoch == store.epoch else { throw unavailable }
            guard let changes = try await store.changes(since: params.since, limit: params.pageLimit, maxBytes: SyncAPI.maxPageBytes) else {
                throw unavailable
            }
            let seq = try await store.currentSeq()
            seqs.raise(to: seq)
            return ChangesResult(epoch: store.epoch, seq: seq, changes: changes)
        }
        table.register(SyncAPI.creative) { params, _ in
            let (offset, length) = try params.checked()
            let notFound = JSONRPCError(code: APIError.creativeNotFound.code, message: "no creative \(params.sha256)")
            // The store checks the offset against the stored size before it reads: an offset past the end must be the
            // caller's -32602, not an internal error.
            let info: CreativeFacts, bytes: [UInt8]
            switch try await store.creativeChunk(sha256: params.sha256, offset: offset, length: length) {
            case .notFound: throw notFound
            case .pastEnd(let facts): throw JSONRPCError.invalidParams(field: "offset", "is past the end (\(facts.size) bytes)")
            case .bytes(let facts, let read): (info, bytes) = (facts, read)
            }
            return CreativeChunk(info, offset: offset, bytes: bytes)
        }
        table.register(SyncAPI.report) { report, context in
            try EdgeKeys.validate(report, key: context.peerKey, keys: edgeKeys, method: SyncAPI.report.name)
            let now = clock()
            try PeerNumbers.check(report, now: now, retention: statsRetention)
            try seals?.check(report, method: SyncAPI.report.name)
            let hourly = ReportHours.hourly(of: report, receivedAt: now)
            let region = report.region ?? edges.region(of: report.edgeId) ?? ""
            let (taken, last) = try await store.addReport(edgeId: report.edgeId, reportId: report.reportId, counts: report.counts,
                                                          hourly: hourly, apps: report.apps ?? [], region: region, now: now)
            if taken { edges.reports.observe(report.edgeId, at: now) }
            return EdgeReportResult(accepted: taken, lastReportId: last)
        }
        table.register(SyncAPI.ack, inline: { ack, context in
            try EdgeKeys.validate(ack, field: "", key: context.peerKey, keys: edgeKeys, method: SyncAPI.ack.name)
            try PeerNumbers.check(ack, field: "", seq: seqs.ceiling(for: ack.appliedSeq))
            let now = clock()
            try seals?.take(ack, now: now, method: SyncAPI.ack.name)
            edges.acknowledge(ack, now: now)
            return EdgeAckResult(seq: ack.appliedSeq)
        })
        table.register(SyncAPI.acks, inline: { batch, context in
            guard batch.acks.count <= EdgeAcks.maxAcks else { throw JSONRPCError.invalidParams(field: "acks", "must list at most \(EdgeAcks.maxAcks)") }
            // The sender's own mistakes (a malformed id, a key that may not bring the acknowledgement) refuse the batch; an
            // acknowledgement whose numbers are out of bounds (an edge behind a relay on another epoch, or a seq this
            // campaignd has not read yet) is left out and named, as one without its seal, so that it holds none of the
            // others back.
            var inBounds: [EdgeAck] = [], outOfBounds: [String] = []
            for (index, ack) in batch.acks.enumerated() {
                try EdgeKeys.validate(ack, field: "acks[\(index)].", key: context.peerKey, keys: edgeKeys, method: SyncAPI.acks.name)
                do {
                    try PeerNumbers.check(ack, field: "acks[\(index)].", seq: seqs.ceiling(for: ack.appliedSeq))
                    inBounds.append(ack)
                } catch {
                    outOfBounds.append(ack.edgeId)
                }
            }
            let now = clock()
            let (taken, unsealed) = seals?.take(inBounds, now: now, method: SyncAPI.acks.name) ?? (inBounds, [])
            for ack in taken { edges.acknowledge(ack, now: now) }
            let refused = outOfBounds + unsealed
            return EdgeAcksResult(taken: taken.count, refused: refused.isEmpty ? nil : refused)
        })
        return table
    }
}
