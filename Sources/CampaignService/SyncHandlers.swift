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
    /// whatever key brought them.
    static func table(store: any Store, edges: EdgeRegistry, edgeKeys: EdgeKeys?, seals: RecordSeals?, clock: @escaping WallClock) -> MethodTable {
        var table = MethodTable()
        table.register(SyncAPI.snapshot) { params, _ in
            guard params.isPaged else { return try await store.snapshot() }
            let (after, limit) = try params.checked()
            return try await store.snapshotPage(after: after, limit: limit, maxBytes: SyncAPI.maxPageBytes)
        }
        table.register(SyncAPI.changes) { params, _ in
            let unavailable = JSONRPCError(code: APIError.changesUnavailable.code, message: APIError.changesUnavailable.message)
            guard params.epoch == store.epoch else { throw unavailable }
            guard let changes = try await store.changes(since: params.since, limit: params.pageLimit, maxBytes: SyncAPI.maxPageBytes) else {
                throw unavailable
            }
            return ChangesResult(epoch: store.epoch, seq: try await store.currentSeq(), changes: changes)
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
            return CreativeChunk(sha256: info.sha256, contentType: info.contentType, width: info.width, height: info.height,
                                 size: info.size, offset: offset,
                                 data: Data(bytes).base64EncodedString())
        }
        table.register(SyncAPI.report) { report, context in
            try EdgeKeys.validate(report, key: context.peerKey, keys: edgeKeys, method: SyncAPI.report.name)
            try seals?.check(report, method: SyncAPI.report.name)
            guard report.counts.count <= 10_000 else { throw JSONRPCError.invalidParams(field: "counts", "must list at most 10000 campaigns") }
            for (index, item) in report.counts.enumerated() where item.impressions < 0 || item.clicks < 0 || item.skips < 0 {
                throw JSONRPCError.invalidParams(field: "counts[\(index)]", "counts must not be negative")
            }
            let hourly = try ReportHours.hourly(of: report, receivedAt: clock())
            let region = report.region ?? edges.region(of: report.edgeId) ?? ""
            let (taken, last) = try await store.addReport(edgeId: report.edgeId, reportId: report.reportId, counts: report.counts,
                                                          hourly: hourly, region: region)
            return EdgeReportResult(accepted: taken, lastReportId: last)
        }
        table.register(SyncAPI.ack, inline: { ack, context in
            try EdgeKeys.validate(ack, field: "", key: context.peerKey, keys: edgeKeys, method: SyncAPI.ack.name)
            let now = clock()
            try seals?.take(ack, now: now, method: SyncAPI.ack.name)
            edges.acknowledge(ack, now: now)
            return EdgeAckResult(seq: ack.appliedSeq)
        })
        table.register(SyncAPI.acks, inline: { batch, context in
            guard batch.acks.count <= EdgeAcks.maxAcks else { throw JSONRPCError.invalidParams(field: "acks", "must list at most \(EdgeAcks.maxAcks)") }
            for (index, ack) in batch.acks.enumerated() {
                try EdgeKeys.validate(ack, field: "acks[\(index)].", key: context.peerKey, keys: edgeKeys, method: SyncAPI.acks.name)
            }
            let now = clock()
            let (taken, refused) = seals?.take(batch.acks, now: now, method: SyncAPI.acks.name) ?? (batch.acks, [])
            for ack in taken { edges.acknowledge(ack, now: now) }
            return EdgeAcksResult(taken: taken.count, refused: refused.isEmpty ? nil : refused)
        })
        return table
    }
}
