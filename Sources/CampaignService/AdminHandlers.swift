import CampaignStore
import Crypto
import Dispatch
import DurableFiles
import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdRuntime
import Logging
import Synchronization
import ZMQRPC

/// Domain and store errors in their JSON-RPC form (the mapping lives here, at the boundary).
extension StoreError: JSONRPCErrorConvertible {
    public var jsonRPCError: JSONRPCError {
        switch self {
        case .notFound(let id):
            JSONRPCError(code: APIError.campaignNotFound.code, message: "no campaign \(id)", data: ["id": .number(JSONNumber(id))])
        case .field(let error):
            .invalidParams(field: error.field, error.rule)
        case .transition(let error):
            JSONRPCError(code: APIError.invalidTransition.code, message: error.description,
                         data: ["state": .string(error.state.rawValue), "operation": .string(error.operation.rawValue)])
        }
    }
}

extension CreativeInspector.Refusal: JSONRPCErrorConvertible {
    public var jsonRPCError: JSONRPCError {
        JSONRPCError(code: APIError.creativeRefused.code, message: "creative refused: \(description)")
    }
}

/// Runs blocking work (SQLite, files) on a dispatch queue, off Swift's cooperative threads.
func blocking<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async {
            continuation.resume(with: Result { try work() })
        }
    }
}

/// What campaignd knows of its edges, from their acknowledgements.
final class EdgeRegistry: Sendable {
    private let edges = Mutex<[String: EdgeInfo]>([:])
    /// An edge not heard from for this long is stale.
    let staleAfter: Double = 5
    let logger: Logger

    init(logger: Logger) {
        self.logger = logger
    }

    func acknowledge(_ ack: EdgeAck, now: Timestamp) {
        let previous = edges.withLock { edges in
            let previous = edges[ack.edgeId]
            edges[ack.edgeId] = EdgeInfo(edgeId: ack.edgeId, region: ack.region, epoch: ack.epoch,
                                         appliedSeq: ack.appliedSeq, lastSeen: now, stale: false)
            return previous
        }
        // One line when an edge appears, comes back, or moves to another epoch; not one per acknowledgement.
        let event: String? = switch previous {
        case nil: "edge joined"
        case let edge? where edge.lastSeen.seconds(until: now) > staleAfter: "edge back after silence"
        case let edge? where edge.epoch != ack.epoch: "edge moved to another epoch"
        default: nil
        }
        if let event {
            logger.info("\(event)", metadata: [LogField.edgeId: "\(ack.edgeId)", "region": "\(ack.region)",
                                               "epoch": "\(ack.epoch)", "applied_seq": "\(ack.appliedSeq)"])
        }
    }

    func list(now: Timestamp) -> [EdgeInfo] {
        edges.withLock { edges in
            edges.values.sorted { $0.edgeId < $1.edgeId }.map { edge in
                var edge = edge
                edge.stale = edge.lastSeen.seconds(until: now) > staleAfter
                return edge
            }
        }
    }
}

enum AdminHandlers {
    static func table(store: any Store, edges: EdgeRegistry, maxCreativeBytes: Int,
                      clock: @escaping WallClock, logger: Logger) -> MethodTable {
        var table = MethodTable()
        @Sendable func actor(_ context: RPCContext) -> String { context.peerKey ?? "local" }
        /// Every committed change is one log line, with the request, the campaign and who asked.
        @Sendable func committed(_ change: Change, _ context: RPCContext) -> CampaignChangeResult {
            logger.info("campaign changed", metadata: [
                LogField.requestId: LogField.requestId(context.id), LogField.campaignId: "\(change.id)",
                "op": "\(change.op.rawValue)", "seq": "\(change.seq)", "version": "\(change.campaign.version)",
                "actor": "\(actor(context))",
            ])
            return CampaignChangeResult(campaign: change.campaign, seq: change.seq)
        }

        table.register(AdminAPI.creativeUpload) { params, context in
            let bytes = try decodeBase64(params.data, limit: maxCreativeBytes)
            let facts = try CreativeInspector.inspect(bytes, declaredType: params.contentType)
            let sha256 = CreativeFiles.name(of: bytes)
            let info = CreativeFacts(sha256: sha256, contentType: facts.contentType, width: facts.width, height: facts.height, size: bytes.count)
            try await store.addCreative(info, bytes: bytes, actor: actor(context), now: clock())
            logger.info("creative stored", metadata: [LogField.requestId: LogField.requestId(context.id), "sha256": "\(sha256)",
                                                      "bytes": "\(bytes.count)", "content_type": "\(facts.contentType)",
                                                      "actor": "\(actor(context))"])
            return info
        }
        table.register(AdminAPI.campaignCreate) { fields, context in
            let change = try await store.create(fields, actor: actor(context), now: clock())
            return committed(change, context)
        }
        table.register(AdminAPI.campaignUpdate) { params, context in
            let change = try await store.update(id: params.id, fields: params.fields, actor: actor(context), now: clock())
            return committed(change, context)
        }
        for (method, operation) in AdminAPI.operations {
            table.register(method) { params, context in
                let change = try await store.apply(operation, id: params.id, actor: actor(context), now: clock())
                return committed(change, context)
            }
        }
        table.register(AdminAPI.campaignGet) { params, _ in
            guard let campaign = try await store.campaign(id: params.id) else { throw StoreError.notFound(params.id) }
            return CampaignResult(campaign: campaign)
        }
        table.register(AdminAPI.campaignList) { params, _ in
            if let app = params.app, app.isEmpty { throw JSONRPCError.invalidParams(field: "app", "must not be empty") }
            return CampaignListResult(campaigns: try await store.campaigns(app: params.app, state: params.state))
        }
        table.register(AdminAPI.edgeList) { _, _ in
            EdgeListResult(edges: edges.list(now: clock()), seq: try await store.currentSeq())
        }
        table.register(AdminAPI.campaignStats) { params, _ in
            let stats = try await store.stats(id: params.id)
            if let id = params.id, stats.isEmpty { throw StoreError.notFound(id) }
            return CampaignStatsResult(stats: stats)
        }
        return table
    }

    /// Strict base64 (RFC 4648, padded), refused when its bytes would exceed `limit`.
    static func decodeBase64(_ text: String, limit: Int) throws -> [UInt8] {
        guard text.utf8.count / 4 * 3 <= limit + 2 else {
            throw JSONRPCError(code: APIError.creativeRefused.code, message: "creative refused: larger than the limit of \(limit) bytes")
        }
        guard let data = Data(base64Encoded: text), !data.isEmpty else {
            throw JSONRPCError.invalidParams(field: "data", "must be non-empty standard base64")
        }
        guard data.count <= limit else {
            throw JSONRPCError(code: APIError.creativeRefused.code, message: "creative refused: \(data.count) bytes, the limit is \(limit)")
        }
        return [UInt8](data)
    }
}

enum SyncHandlers {
    static func table(store: any Store, edges: EdgeRegistry, clock: @escaping WallClock) -> MethodTable {
        var table = MethodTable()
        table.register(SyncAPI.snapshot) { params, _ in
            guard params.isPaged else { return try await store.snapshot() }
            let after = params.after ?? 0
            let limit = params.limit ?? SyncAPI.defaultSnapshotPage
            guard after >= 0 else { throw JSONRPCError.invalidParams(field: "after", "must not be negative") }
            guard (1...SyncAPI.maxSnapshotPage).contains(limit) else {
                throw JSONRPCError.invalidParams(field: "limit", "must be between 1 and \(SyncAPI.maxSnapshotPage)")
            }
            return try await store.snapshotPage(after: after, limit: limit, maxBytes: SyncAPI.maxPageBytes)
        }
        table.register(SyncAPI.changes) { params, _ in
            let unavailable = JSONRPCError(code: APIError.changesUnavailable.code, message: APIError.changesUnavailable.message)
            guard params.epoch == store.epoch else { throw unavailable }
            let limit = min(max(params.limit ?? 1000, 1), 10_000)
            let changes = try await store.changes(since: params.since, limit: limit, maxBytes: SyncAPI.maxPageBytes)
            let seq = try await store.currentSeq()
            guard let changes else { throw unavailable }
            return ChangesResult(epoch: store.epoch, seq: seq, changes: changes)
        }
        table.register(SyncAPI.creative) { params, _ in
            guard CampaignRules.isSHA256(params.sha256) else { throw JSONRPCError.invalidParams(field: "sha256", "must be 64 lowercase hex characters") }
            let offset = params.offset ?? 0
            let length = params.length ?? SyncAPI.maxChunk
            guard offset >= 0 else { throw JSONRPCError.invalidParams(field: "offset", "must not be negative") }
            guard (1...SyncAPI.maxChunk).contains(length) else { throw JSONRPCError.invalidParams(field: "length", "must be between 1 and \(SyncAPI.maxChunk)") }
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
        table.register(SyncAPI.report) { report, _ in
            guard !report.edgeId.isEmpty, report.edgeId.utf8.count <= 128 else { throw JSONRPCError.invalidParams(field: "edgeId", "must be 1 to 128 bytes") }
            guard report.counts.count <= 10_000 else { throw JSONRPCError.invalidParams(field: "counts", "must list at most 10000 campaigns") }
            for (index, item) in report.counts.enumerated() where item.impressions < 0 || item.clicks < 0 || item.skips < 0 {
                throw JSONRPCError.invalidParams(field: "counts[\(index)]", "counts must not be negative")
            }
            let (taken, last) = try await store.addReport(edgeId: report.edgeId, reportId: report.reportId, counts: report.counts)
            return EdgeReportResult(accepted: taken, lastReportId: last)
        }
        table.register(SyncAPI.ack, inline: { ack, _ in
            guard !ack.edgeId.isEmpty, ack.edgeId.utf8.count <= 128 else { throw JSONRPCError.invalidParams(field: "edgeId", "must be 1 to 128 bytes") }
            guard ack.region.utf8.count <= 64 else { throw JSONRPCError.invalidParams(field: "region", "must be at most 64 bytes") }
            edges.acknowledge(ack, now: clock())
            return EdgeAckResult(seq: ack.appliedSeq)
        })
        return table
    }
}
